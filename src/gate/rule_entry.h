// The `rules:` section of a rule file: each entry defines a rule or overrides one by id.
#pragma once

#include <yaml-cpp/yaml.h>

#include <vector>

#include "gate/rules.h"
#include "rule_files/yaml_check.h"

namespace perfgate {

void read_rules_section(YamlCheck& check, const YAML::Node& node, std::vector<Rule>& rules);

// One entry: a new rule when its id is unknown, else an override of the keys it gives. The rule is
// checked as a whole afterwards, so an override cannot leave it inconsistent.
void apply_rule_entry(YamlCheck& check, const YAML::Node& entry, std::vector<Rule>& rules);

}  // namespace perfgate
