#include "cli/progress.h"

#include <unistd.h>

#include <cstdio>

namespace perfgate::cli {

bool stderr_is_terminal() {
  return ::isatty(STDERR_FILENO) == 1;
}

void ProgressLine::update(std::uint64_t done, std::uint64_t total) {
  if (!enabled_ || total == 0) return;
  auto now = std::chrono::steady_clock::now();
  if (shown_ && now - last_ < std::chrono::milliseconds(100) && done < total) return;
  last_ = now;
  shown_ = true;
  std::fprintf(stderr, "\rperfgate: reading %3.0f%% (%.1f of %.1f MB)",
               100.0 * static_cast<double>(done) / static_cast<double>(total),
               static_cast<double>(done) / 1e6, static_cast<double>(total) / 1e6);
  std::fflush(stderr);
}

void ProgressLine::finish() {
  if (!shown_) return;
  std::fputs("\r\x1b[K", stderr);
  std::fflush(stderr);
  shown_ = false;
}

}  // namespace perfgate::cli
