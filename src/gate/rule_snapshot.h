// The shipped default rule set encoded at build time, so that a run decodes it instead of reading
// its YAML (rule_snapshot.cpp).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "perfgate/rules.h"

namespace perfgate {

// binary_codec's encoding of the whole set, field by field.
std::string encode_rule_set(const RuleSet& rules);
// The set again; nullopt for bytes that are not one whole encoded set of this build.
std::optional<RuleSet> decode_rule_set(std::string_view bytes);

// The snapshot the program was built with (use_default_rules_snapshot, rules.h), decoded: what
// load_rules starts from instead of the shipped default file; nullopt where none was set.
std::optional<RuleSet> default_rules_from_snapshot();

}  // namespace perfgate
