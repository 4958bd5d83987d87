// A tool's arguments read against its input schema: a name the schema does not list, or a value of
// the wrong type or out of range, is a usage error (ConfigError, exit 2) that names the argument,
// returned to the client as a tool error it can correct.
#pragma once

#include <boost/json.hpp>

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace perfgate::mcp {

class ToolArgs {
 public:
  ToolArgs(std::string tool, const boost::json::object& args, std::initializer_list<std::string_view> known)
      : ToolArgs(std::move(tool), args, std::vector<std::string_view>(known)) {}
  ToolArgs(std::string tool, const boost::json::object& args, const std::vector<std::string_view>& known);

  std::optional<std::string> text(std::string_view key) const;
  std::string required_text(std::string_view key) const;
  // An array of strings, at most `max_items`; absent: empty.
  std::vector<std::string> texts(std::string_view key, std::size_t max_items = 64) const;
  std::optional<std::int64_t> integer(std::string_view key, std::int64_t min, std::int64_t max) const;
  std::optional<double> number(std::string_view key, double min, double max) const;
  bool flag(std::string_view key) const;
  const boost::json::object* object(std::string_view key) const;
  bool has(std::string_view key) const { return args_.contains(key); }

 private:
  [[noreturn]] void refuse(std::string_view key, std::string_view what) const;
  std::string tool_;
  const boost::json::object& args_;
};

}  // namespace perfgate::mcp
