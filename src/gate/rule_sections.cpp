#include "gate/rule_sections.h"

#include <array>
#include <string_view>

#include "gate/rule_entry.h"

namespace perfgate {

void read_gate_sections(YamlCheck& check, const YAML::Node& root, RuleSet& out) {
  if (YAML::Node advice = root["advice"]) {
    static constexpr std::array<std::string_view, 1> kKeys = {"fix_first_min_gain_pct"};
    if (check.is_map(advice, "advice")) {
      check.known_keys(advice, kKeys, "advice");
      if (std::optional<double> pct = check.percentage(advice, "fix_first_min_gain_pct"))
        out.fix_first_min_gain_pct = *pct;
    }
  }
  // The section's other key (max_kernel_gap_us) and its keys' check are the knowledge's.
  if (YAML::Node path = root["critical_path"]; path && path.IsMap())
    if (std::optional<double> pct = check.percentage(path, "min_coverage_pct"))
      out.critical_path_min_coverage_pct = *pct;
  if (YAML::Node r = root["rules"]) read_rules_section(check, r, out.rules);
}

}  // namespace perfgate
