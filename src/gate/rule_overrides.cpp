// --set ID.KEY=VALUE and --disable ID: command-line overrides, checked like rule-file entries.
#include <algorithm>

#include <fmt/format.h>

#include "common/errors.h"
#include "common/suggest.h"
#include "common/utf8.h"
#include "gate/rule_entry.h"
#include "gate/rules.h"
#include "rule_files/yaml_check.h"

namespace perfgate {
namespace {

std::string unknown_rule(std::string_view id, const std::vector<Rule>& rules) {
  std::vector<std::string_view> ids;
  for (const Rule& r : rules) ids.push_back(r.id);
  return fmt::format("no rule '{}'{}", id, did_you_mean(id, ids));
}

bool has_rule(const std::vector<Rule>& rules, std::string_view id) {
  return std::any_of(rules.begin(), rules.end(), [&](const Rule& r) { return r.id == id; });
}

}  // namespace

// The --set settings of one rule, applied as one entry: checked together, so that `warn` and `fail`
// can change kind (from % to ms) in one command line.
struct RuleSettings {
  std::string id;
  std::string label;  // "--set A" or "--set A --set B"
  YAML::Node entry;
};

void apply_rule_overrides(RuleSet& set, const std::vector<std::string>& settings,
                          const std::vector<std::string>& disabled) {
  std::vector<std::string> errors;
  std::vector<RuleSettings> by_rule;
  for (const std::string& setting : settings) {
    std::string label = fmt::format("--set {}", setting);
    std::size_t equals = setting.find('=');
    std::size_t dot = setting.rfind('.', equals);
    if (equals == std::string::npos || dot == std::string::npos || dot == 0 || dot + 1 == equals) {
      errors.push_back(
          fmt::format("{}: error: expected ID.KEY=VALUE, e.g. gpu.low-utilization.warn=40", label));
      continue;
    }
    if (!is_valid_utf8(setting)) {
      errors.push_back("--set: error: the setting is not valid UTF-8");
      continue;
    }
    std::string id = setting.substr(0, dot);
    if (!has_rule(set.rules, id)) {
      errors.push_back(fmt::format("{}: error: {}", label, unknown_rule(id, set.rules)));
      continue;
    }
    auto it = std::find_if(by_rule.begin(), by_rule.end(), [&](const RuleSettings& r) { return r.id == id; });
    if (it == by_rule.end()) {
      it = by_rule.insert(by_rule.end(), {id, label, YAML::Node()});
      it->entry["id"] = id;
    } else {
      it->label += " " + label;
    }
    it->entry[setting.substr(dot + 1, equals - dot - 1)] = setting.substr(equals + 1);
  }
  for (const RuleSettings& r : by_rule) {
    YamlCheck check(r.label, false);
    apply_rule_entry(check, r.entry, set.rules);
    errors.insert(errors.end(), check.errors().begin(), check.errors().end());
  }
  for (const std::string& id : disabled) {
    auto it = std::find_if(set.rules.begin(), set.rules.end(), [&](const Rule& r) { return r.id == id; });
    if (it == set.rules.end())
      errors.push_back(fmt::format("--disable {}: error: {}", id, unknown_rule(id, set.rules)));
    else
      it->enabled = false;
  }
  if (errors.empty()) return;
  std::string all;
  for (const auto& e : errors) all += (all.empty() ? "" : "\n") + e;
  throw ConfigError(all);
}

}  // namespace perfgate
