#include "rules/yaml_check.h"

#include <algorithm>

#include <fmt/format.h>

#include "analyse/pattern_set.h"
#include "rules/suggest.h"

namespace perfgate {

void YamlCheck::error(const YAML::Node& at, const std::string& message) {
  if (!positions_ || at.Mark().is_null()) {
    errors_.push_back(fmt::format("{}: error: {}", file_, message));
    return;
  }
  errors_.push_back(
      fmt::format("{}:{}:{}: error: {}", file_, at.Mark().line + 1, at.Mark().column + 1, message));
}

void YamlCheck::known_keys(const YAML::Node& map, std::span<const std::string_view> allowed,
                           std::string_view where) {
  for (const auto& entry : map) {
    std::string key = entry.first.Scalar();
    if (std::find(allowed.begin(), allowed.end(), key) == allowed.end())
      error(entry.first,
            fmt::format("unknown key '{}'{}{}", key, where.empty() ? "" : fmt::format(" in '{}'", where),
                        did_you_mean(key, allowed)));
  }
}

bool YamlCheck::is_map(const YAML::Node& node, std::string_view what) {
  if (node.IsMap()) return true;
  error(node, fmt::format("'{}' must be a mapping", what));
  return false;
}

bool YamlCheck::is_list(const YAML::Node& node, std::string_view what) {
  if (node.IsSequence()) return true;
  error(node, fmt::format("'{}' must be a list", what));
  return false;
}

std::optional<std::string> YamlCheck::string(const YAML::Node& node, std::string_view what) {
  if (node.IsScalar()) return node.Scalar();
  error(node, fmt::format("'{}' must be a string", what));
  return std::nullopt;
}

std::optional<double> YamlCheck::number(const YAML::Node& node, std::string_view what) {
  double value = 0;
  if (node.IsScalar() && YAML::convert<double>::decode(node, value)) return value;
  error(node, fmt::format("'{}' must be a number", what));
  return std::nullopt;
}

std::optional<bool> YamlCheck::boolean(const YAML::Node& node, std::string_view what) {
  bool value = false;
  if (node.IsScalar() && YAML::convert<bool>::decode(node, value)) return value;
  error(node, fmt::format("'{}' must be true or false", what));
  return std::nullopt;
}

std::optional<std::string> YamlCheck::pattern(const YAML::Node& node, std::string_view what) {
  auto text = string(node, what);
  if (!text) return std::nullopt;
  if (std::string why = pattern_error(*text); !why.empty()) {
    error(node, fmt::format("invalid regular expression '{}': {}", *text, why));
    return std::nullopt;
  }
  return text;
}

}  // namespace perfgate
