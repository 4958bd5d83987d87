#include "load/neuron/scalar_values.h"

#include <charconv>
#include <cmath>

#include <fmt/format.h>

namespace perfgate::neuron {
namespace {

// 2^63 as a double: the first value beyond int64.
constexpr double kInt64Limit = 9223372036854775808.0;

std::optional<std::int64_t> truncated(double d) {
  if (!std::isfinite(d) || d >= kInt64Limit || d < -kInt64Limit) return std::nullopt;
  return static_cast<std::int64_t>(d);
}

std::string_view trimmed(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

std::optional<double> parse_double(std::string_view s) {
  s = trimmed(s);
  double d = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), d);
  if (ec != std::errc() || end != s.data() + s.size() || !std::isfinite(d)) return std::nullopt;
  return d;
}

bool equals_ignoring_case(std::string_view a, std::string_view lower) {
  if (a.size() != lower.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if ((a[i] | 0x20) != lower[i]) return false;
  return true;
}

}  // namespace

std::optional<std::int64_t> as_integer(const Scalar& v) {
  switch (v.kind) {
    case Scalar::Kind::Int:
      return v.i;
    case Scalar::Kind::UInt:
      if (v.u > static_cast<std::uint64_t>(INT64_MAX)) return std::nullopt;
      return static_cast<std::int64_t>(v.u);
    case Scalar::Kind::Double:
      return truncated(v.d);
    case Scalar::Kind::String: {
      std::string_view s = trimmed(v.text);
      std::int64_t i = 0;
      auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), i);
      if (ec == std::errc() && end == s.data() + s.size()) return i;
      if (std::optional<double> d = parse_double(s)) return truncated(*d);
      return std::nullopt;
    }
    case Scalar::Kind::Null:
    case Scalar::Kind::Bool:
      break;
  }
  return std::nullopt;
}

std::optional<double> as_number(const Scalar& v) {
  switch (v.kind) {
    case Scalar::Kind::Int:
      return static_cast<double>(v.i);
    case Scalar::Kind::UInt:
      return static_cast<double>(v.u);
    case Scalar::Kind::Double:
      if (!std::isfinite(v.d)) return std::nullopt;
      return v.d;
    case Scalar::Kind::String:
      return parse_double(v.text);
    case Scalar::Kind::Null:
    case Scalar::Kind::Bool:
      break;
  }
  return std::nullopt;
}

std::optional<bool> as_flag(const Scalar& v) {
  if (v.kind == Scalar::Kind::Bool) return v.b;
  if (v.kind == Scalar::Kind::String) {
    std::string_view s = trimmed(v.text);
    if (equals_ignoring_case(s, "true")) return true;
    if (equals_ignoring_case(s, "false")) return false;
  }
  if (std::optional<double> d = as_number(v)) return *d != 0;
  return std::nullopt;
}

std::string as_text(const Scalar& v) {
  switch (v.kind) {
    case Scalar::Kind::String:
      return std::string(v.text);
    case Scalar::Kind::Int:
      return std::to_string(v.i);
    case Scalar::Kind::UInt:
      return std::to_string(v.u);
    case Scalar::Kind::Double:
      return fmt::format("{}", v.d);
    case Scalar::Kind::Bool:
      return v.b ? "true" : "false";
    case Scalar::Kind::Null:
      break;
  }
  return {};
}

}  // namespace perfgate::neuron
