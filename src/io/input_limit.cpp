// The memory limit on one input: its size syntax, its variable and its message (io/io.h).
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>

#include <fmt/format.h>

#include "common/errors.h"
#include "io/io.h"

namespace perfgate {

std::optional<std::uint64_t> parse_byte_size(std::string_view text) {
  double number = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), number);
  if (ec != std::errc() || end == text.data() || !(number >= 0)) return std::nullopt;
  std::string_view unit(end, static_cast<std::size_t>(text.data() + text.size() - end));
  while (unit.starts_with(' ')) unit.remove_prefix(1);
  int power = 0;
  if (!unit.empty()) {
    const std::string_view prefixes = "KMGT";
    std::size_t at = prefixes.find(static_cast<char>(std::toupper(static_cast<unsigned char>(unit[0]))));
    if (at != std::string_view::npos) {
      power = static_cast<int>(at) + 1;
      unit.remove_prefix(1);
      if (unit.starts_with('i')) unit.remove_prefix(1);
    }
    if (unit == "B" || unit == "b" || (power == 0 && unit == "bytes")) unit = {};
  }
  if (!unit.empty()) return std::nullopt;
  double bytes = std::ldexp(number, 10 * power);
  if (bytes >= 18446744073709551616.0) return std::nullopt;  // 2^64
  return static_cast<std::uint64_t>(std::floor(bytes));
}

// io.h: "4 GiB", "1.5 GiB", "1000 bytes"; and a size that is no whole sixteenth of its unit (a MiB
// or more) to a tenth of it.
std::string byte_size_text(std::uint64_t bytes) {
  static constexpr const char* kUnits[] = {"KiB", "MiB", "GiB", "TiB"};
  for (int i = 3; i >= 0; --i) {
    std::uint64_t unit = std::uint64_t{1} << (10 * (i + 1));
    if (bytes < unit) continue;
    // Sixteenths of the unit at most: the decimal text is exact (1.5 GiB, 1.0625 GiB). Another size
    // of a MiB or more (half of a machine's memory) to a tenth of its largest unit, as a person reads
    // it: "5.9 GiB", not "6170905 KiB" (issue 93).
    double in_units = static_cast<double>(bytes) / static_cast<double>(unit);
    if (bytes % (unit / 16) == 0) return fmt::format("{} {}", in_units, kUnits[i]);
    if (i >= 1) return fmt::format("{:.1f} {}", in_units, kUnits[i]);
  }
  return fmt::format("{} bytes", bytes);
}

std::uint64_t max_input_memory_from_environment() {
  const char* value = std::getenv(kMaxInputMemoryVariable);
  if (!value || !*value) return kDefaultMaxInputMemory;
  if (auto bytes = parse_byte_size(value)) return *bytes;
  throw ConfigError(fmt::format("{}={}: not a size (e.g. 8G, 512M or a number of bytes; 0: no limit)",
                                kMaxInputMemoryVariable, value));
}

std::string input_memory_message(const std::string& path, std::uint64_t limit) {
  return fmt::format(
      "{}: holding this input needs more than {} of memory, the limit for one input; raise it with "
      "--max-input-memory or {} if this is a real profile (0: no limit)",
      path, byte_size_text(limit), kMaxInputMemoryVariable);
}

}  // namespace perfgate
