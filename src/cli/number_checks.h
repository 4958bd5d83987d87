// Checks of whole-number options. CLI11's NonNegativeNumber, PositiveNumber and Range state their
// bounds with %f ("Value x not in range 0.000000 to 1797693…", 309 digits for an unbounded one) and
// call a word that is no number "not in range": these name the option's bounds as whole numbers
// and say which of the two is wrong.
#pragma once

#include <fmt/format.h>
#include <CLI/CLI.hpp>
#include <charconv>
#include <cstdint>
#include <limits>
#include <string>

namespace perfgate::cli {

inline CLI::Validator whole_number(std::int64_t min,
                                   std::int64_t max = std::numeric_limits<std::int64_t>::max()) {
  bool unbounded = max == std::numeric_limits<std::int64_t>::max();
  std::string bounds = unbounded ? fmt::format("{} or more", min) : fmt::format("{} to {}", min, max);
  auto check = [=](std::string& text) -> std::string {
    std::int64_t value = 0;
    const char* end = text.data() + text.size();
    auto [stop, error] = std::from_chars(text.data(), end, value);
    if (error == std::errc::result_out_of_range)
      return fmt::format("{} is too large (a whole number, {})", text, bounds);
    if (error != std::errc{} || stop != end || text.empty())
      return fmt::format("'{}' is not a whole number ({})", text, bounds);
    if (value < min || value > max) return fmt::format("{} is out of range ({})", value, bounds);
    return "";
  };
  // The help keeps CLI11's names of these checks ("N:INT in [0 - 1024]", "N:NONNEGATIVE").
  std::string help = !unbounded ? fmt::format("INT in [{} - {}]", min, max)
                     : min == 0 ? "NONNEGATIVE"
                     : min == 1 ? "POSITIVE"
                                : fmt::format("INT >= {}", min);
  return CLI::Validator(check, help, "whole_number");
}

}  // namespace perfgate::cli
