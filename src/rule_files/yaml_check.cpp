#include "rule_files/yaml_check.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <re2/re2.h>

#include "common/suggest.h"

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

std::vector<std::string> YamlCheck::names(const YAML::Node& node, std::string_view what) {
  std::vector<std::string> out;
  if (!node) return out;
  if (node.IsScalar()) {
    if (auto name = string(node, what)) out.push_back(*name);
  } else if (is_list(node, what)) {
    for (const auto& item : node)
      if (auto name = string(item, what)) out.push_back(*name);
  }
  return out;
}

std::optional<std::string> YamlCheck::string(const YAML::Node& node, std::string_view what) {
  if (node.IsScalar()) return node.Scalar();
  error(node, fmt::format("'{}' must be a string", what));
  return std::nullopt;
}

std::optional<double> YamlCheck::number(const YAML::Node& node, std::string_view what) {
  double value = 0;
  // YAML reads .nan and .inf: a non-finite setting would pass every range check.
  if (node.IsScalar() && YAML::convert<double>::decode(node, value) && std::isfinite(value)) return value;
  error(node, fmt::format("'{}' must be a finite number", what));
  return std::nullopt;
}

std::optional<bool> YamlCheck::boolean(const YAML::Node& node, std::string_view what) {
  bool value = false;
  if (node.IsScalar() && YAML::convert<bool>::decode(node, value)) return value;
  error(node, fmt::format("'{}' must be true or false", what));
  return std::nullopt;
}

std::optional<double> YamlCheck::percentage(const YAML::Node& node, const char* key) {
  YAML::Node v = node[key];
  if (!v) return std::nullopt;
  std::optional<double> pct = number(v, key);
  if (pct && (*pct < 0 || *pct > 100)) {
    error(v, fmt::format("{} is a percentage, 0 to 100", key));
    return std::nullopt;
  }
  return pct;
}

std::string pattern_error(const std::string& pattern) {
  RE2::Options options;  // RE2's syntax, as the knowledge's pattern sets compile it
  options.set_log_errors(false);
  RE2 re(pattern, options);
  return re.ok() ? std::string() : re.error();
}

std::optional<std::string> YamlCheck::pattern(const YAML::Node& node, std::string_view what) {
  auto text = string(node, what);
  if (!text || shipped_) return text;
  if (std::string why = pattern_error(*text); !why.empty()) {
    error(node, fmt::format("invalid regular expression '{}': {}", *text, why));
    return std::nullopt;
  }
  return text;
}

namespace {

using Position = std::pair<int, int>;  // line, column

void walk_maps(YamlCheck& check, const YAML::Node& node, std::set<Position>& reported) {
  if (node.IsSequence())
    for (const auto& item : node) walk_maps(check, item, reported);
  if (!node.IsMap()) return;
  // A mapping has a few keys: a linear search of views into the nodes' own keys costs less than a
  // std::map of copies (the shipped rule file has some 600 mappings; their map took 1% of a small run).
  std::vector<std::pair<std::string_view, int>> first_line;
  for (const auto& entry : node) {
    walk_maps(check, entry.second, reported);
    if (!entry.first.IsScalar()) continue;
    const std::string& key = entry.first.Scalar();
    auto it =
        std::find_if(first_line.begin(), first_line.end(), [&](const auto& k) { return k.first == key; });
    if (it == first_line.end()) {
      first_line.emplace_back(key, entry.first.Mark().line + 1);
      continue;
    }
    // An alias repeats a mapping: its duplicates are reported once.
    Position at{entry.first.Mark().line, entry.first.Mark().column};
    if (reported.insert(at).second)
      check.error(entry.first, fmt::format("duplicate key '{}' (first at line {})", key, it->second));
  }
}

}  // namespace

void YamlCheck::duplicate_keys(const YAML::Node& root) {
  std::set<Position> reported;
  walk_maps(*this, root, reported);
}

}  // namespace perfgate
