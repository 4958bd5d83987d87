// The gate's sections of a rule file: `rules:` (each entry defines a rule or overrides one by id),
// `advice:` (what "What to fix first" lists) and `critical_path: min_coverage_pct` (where a rule's
// `on_path` bounds its gain). The rule file's format and the knowledge's sections are the knowledge
// stage's (rule_files/rule_files.h, knowledge/classification_section.h).
#pragma once

#include <yaml-cpp/yaml.h>

#include "gate/rules.h"
#include "rule_files/yaml_check.h"

namespace perfgate {

// Reads each of those sections that `root` (a rule file's mapping) has into `out`, on top of what
// it holds, with `check`'s errors.
void read_gate_sections(YamlCheck& check, const YAML::Node& root, RuleSet& out);

}  // namespace perfgate
