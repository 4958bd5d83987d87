// A rule file's `vocabulary:` section (issue 89): the words findings use for the capture's devices
// and work (`words`), and the names in advice that only some captures' users can act on
// (`framework_terms`), with the check that every `recommendations` entry naming one declares whom
// it is for.
#pragma once

#include <yaml-cpp/yaml.h>

#include "gate/rules.h"
#include "rule_files/yaml_check.h"

namespace perfgate {

// A file that gives `words` or `framework_terms` replaces that list.
void read_vocabulary_section(YamlCheck& check, const YAML::Node& node, RuleSet& out);

// Every rule's advice against `framework_terms`: a rule's `recommendation` names none of the terms,
// and a `recommendations` entry names only terms of groups it declares (by `frameworks`,
// `devices`/`vendors`, `workloads`/`workload` or `formats`).
void check_framework_terms(YamlCheck& check, const YAML::Node& at, const RuleSet& rules);

}  // namespace perfgate
