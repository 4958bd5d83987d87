// Human formatting of values by unit, shared by the rule messages and the text renderers:
// "177.59 ms", "55.5%", "1.1 MB", "n/a".
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace perfgate {

std::string format_duration_us(std::optional<double> us);  // "177.59 ms", "n/a"
std::string format_pct(std::optional<double> pct);         // "55.5%", "n/a"
// As format_pct, but a share above 0 that would read "0.0%" keeps two significant digits
// ("0.0027%"): where a nonzero share is the point (time under a throttle limit).
std::string format_pct_nonzero(std::optional<double> pct);
std::string format_bytes(std::uint64_t bytes);  // "1.1 MB"
std::string format_number(std::optional<double> v, int decimals = 2);
// By a catalog unit ("us", "%", "count", "bytes", "ratio", "GB/s", "flop", "TFLOP/s", "version"),
// or a plain number for an empty or unknown unit.
std::string format_value(std::optional<double> v, std::string_view unit);

// A time on a trace's clock given in microseconds (--time-start, MCP's options.time_start_us), in
// nanoseconds as the analysis holds it; nullopt where it is not finite or past kMaxTraceTimeUs.
// Kineto's clock is microseconds since the epoch (1.7e15 in 2026): the bound leaves room for any
// trace's clock, and its nanoseconds fit an int64.
inline constexpr double kMaxTraceTimeUs = 9e15;
std::optional<std::int64_t> trace_time_ns(double us);

}  // namespace perfgate
