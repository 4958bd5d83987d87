#include "mcp/tool_args.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "common/errors.h"

namespace perfgate::mcp {
namespace json = boost::json;

ToolArgs::ToolArgs(std::string tool, const json::object& args, const std::vector<std::string_view>& known)
    : tool_(std::move(tool)), args_(args) {
  for (const auto& [key, value] : args)
    if (std::find(known.begin(), known.end(), std::string_view(key)) == known.end())
      refuse(key, fmt::format("is not an argument of {} (it takes: {})", tool_, fmt::join(known, ", ")));
}

void ToolArgs::refuse(std::string_view key, std::string_view what) const {
  throw ConfigError(fmt::format("{}: argument \"{}\" {}", tool_, key, what));
}

std::optional<std::string> ToolArgs::text(std::string_view key) const {
  const json::value* v = args_.if_contains(key);
  if (!v || v->is_null()) return std::nullopt;
  if (!v->is_string()) refuse(key, "must be a string");
  return std::string(v->get_string());
}

std::string ToolArgs::required_text(std::string_view key) const {
  std::optional<std::string> v = text(key);
  if (!v || v->empty()) refuse(key, "is required");
  return *v;
}

std::vector<std::string> ToolArgs::texts(std::string_view key, std::size_t max_items) const {
  const json::value* v = args_.if_contains(key);
  if (!v || v->is_null()) return {};
  // As the schema says: one path as a string is refused too, so that a client learns the type the
  // schema declares instead of one that works here only.
  if (!v->is_array())
    refuse(key, v->is_string() ? "must be an array of strings (one path: [\"x.json\"])"
                               : "must be an array of strings");
  const json::array& items = v->get_array();
  if (items.size() > max_items) refuse(key, fmt::format("has {} items; at most {}", items.size(), max_items));
  std::vector<std::string> out;
  for (const json::value& item : items) {
    if (!item.is_string()) refuse(key, "must be an array of strings");
    out.emplace_back(item.get_string());
  }
  return out;
}

std::optional<std::int64_t> ToolArgs::integer(std::string_view key, std::int64_t min,
                                              std::int64_t max) const {
  const json::value* v = args_.if_contains(key);
  if (!v || v->is_null()) return std::nullopt;
  std::int64_t n = 0;
  if (v->is_int64()) {
    n = v->get_int64();
  } else if (v->is_uint64()) {
    refuse(key, fmt::format("is {}; it must be from {} to {}", v->get_uint64(), min, max));
  } else if (double d = v->is_double() ? v->get_double() : 0.5; d > -9e18 && d < 9e18 && d == std::trunc(d)) {
    n = static_cast<std::int64_t>(d);  // 5.0, from a client that writes every number so
  } else {
    refuse(key, fmt::format("must be an integer from {} to {}", min, max));
  }
  if (n < min || n > max) refuse(key, fmt::format("is {}; it must be from {} to {}", n, min, max));
  return n;
}

std::optional<double> ToolArgs::number(std::string_view key, double min, double max) const {
  const json::value* v = args_.if_contains(key);
  if (!v || v->is_null()) return std::nullopt;
  if (!v->is_number()) refuse(key, fmt::format("must be a number from {:g} to {:g}", min, max));
  double d = v->to_number<double>();
  if (!(d >= min && d <= max)) refuse(key, fmt::format("is {:g}; it must be from {:g} to {:g}", d, min, max));
  return d;
}

bool ToolArgs::flag(std::string_view key) const {
  const json::value* v = args_.if_contains(key);
  if (!v || v->is_null()) return false;
  if (!v->is_bool()) refuse(key, "must be true or false");
  return v->get_bool();
}

const json::object* ToolArgs::object(std::string_view key) const {
  const json::value* v = args_.if_contains(key);
  if (!v || v->is_null()) return nullptr;
  if (!v->is_object()) refuse(key, "must be an object");
  return &v->get_object();
}

}  // namespace perfgate::mcp
