// Rule files (YAML): classification settings now, rules and thresholds as the gate grows.
// A file applies on top of the shipped `default` set unless it says `extends: none`.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "perfgate/analysis.h"

namespace perfgate {

struct RuleSet {
  Classification classification;
  std::vector<std::string> sources;  // the files applied, base first ("default" for the shipped set)
};

// Loads the shipped default set, then each file in order. Throws ConfigError
// ("file:line:col: error: ...") for unreadable, malformed or invalid files.
RuleSet load_rules(const std::vector<std::string>& files);

// The shipped rule files by name ("default", "tb-plugin"), and their text.
std::vector<std::string> shipped_rule_names();
std::string_view shipped_rule_text(std::string_view name);  // empty when unknown

}  // namespace perfgate
