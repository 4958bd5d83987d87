// A one-line progress indicator on stderr for long loads, shown only on a terminal.
#pragma once

#include <chrono>
#include <cstdint>
#include <mutex>

namespace perfgate::cli {

class ProgressLine {
 public:
  // Shown when stderr is a terminal and the input is larger than `min_bytes`.
  explicit ProgressLine(bool enabled) : enabled_(enabled) {}
  ~ProgressLine() { finish(); }
  void update(std::uint64_t done, std::uint64_t total);
  void finish();

 private:
  bool enabled_;
  bool shown_ = false;
  std::chrono::steady_clock::time_point last_{};
};

bool stderr_is_terminal();
inline constexpr std::uint64_t kProgressMinBytes = 50ull * 1000 * 1000;

}  // namespace perfgate::cli
