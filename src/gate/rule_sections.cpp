#include "gate/rule_sections.h"

#include <algorithm>
#include <array>
#include <stdexcept>
#include <string_view>

#include <fmt/format.h>

#include "gate/capture_section.h"
#include "gate/expression.h"
#include "gate/rule_check.h"
#include "gate/rule_entry.h"
#include "gate/vocabulary_section.h"

namespace perfgate {
namespace {

// `advice: idle_causes`: the causes of the GPUs' idle time that rules claim (gate/rules.h,
// ClaimedCause), each with the expression of its evidence over the run's metrics. A file that lists
// them replaces the list.
void read_idle_causes(YamlCheck& check, const YAML::Node& node, RuleSet& out) {
  static constexpr std::array<std::string_view, 4> kKeys = {"name", "host", "evidence", "source"};
  if (!check.is_list(node, "idle_causes")) return;
  out.idle_causes.clear();
  for (const auto& item : node) {
    if (!check.is_map(item, "idle_causes entry")) continue;
    check.known_keys(item, kKeys, "idle_causes");
    if (!item["name"] || !item["host"] || !item["evidence"]) {
      check.error(item, "an idle_causes entry needs 'name', 'host' and 'evidence'");
      continue;
    }
    ClaimedCause cause;
    cause.name = check.string(item["name"], "name").value_or("");
    cause.host = check.boolean(item["host"], "host").value_or(true);
    cause.evidence = check.string(item["evidence"], "evidence").value_or("");
    if (item["source"]) cause.source = check.string(item["source"], "source").value_or("");
    try {
      Expression evidence(cause.evidence);
      for (const std::string& name : evidence.variables())
        if (!metric_reference(name) || is_baseline_reference(name))
          check.error(item["evidence"], fmt::format("'{}' is no metric of the run", name));
    } catch (const std::invalid_argument& e) {
      check.error(item["evidence"], fmt::format("cannot read the evidence: {}", e.what()));
    }
    out.idle_causes.push_back(std::move(cause));
  }
}

// Every cause a rule or its recommendations claim is one of `advice: idle_causes`.
void check_claims(YamlCheck& check, const YAML::Node& at, const RuleSet& rules) {
  auto known = [&](const std::string& claim) {
    return claim.empty() || std::any_of(rules.idle_causes.begin(), rules.idle_causes.end(),
                                        [&](const ClaimedCause& c) { return c.name == claim; });
  };
  for (const Rule& r : rules.rules) {
    if (!known(r.claims))
      check.error(at, fmt::format("rule {} claims '{}', no cause of advice: idle_causes", r.id, r.claims));
    for (const Rule::ConditionalText& c : r.recommendations)
      if (!known(c.claims))
        check.error(at, fmt::format("a recommendations entry of rule {} claims '{}', no cause of advice: "
                                    "idle_causes",
                                    r.id, c.claims));
  }
}

}  // namespace

void read_gate_sections(YamlCheck& check, const YAML::Node& root, RuleSet& out) {
  if (YAML::Node advice = root["advice"]) {
    static constexpr std::array<std::string_view, 2> kKeys = {"fix_first_min_gain_pct", "idle_causes"};
    if (check.is_map(advice, "advice")) {
      check.known_keys(advice, kKeys, "advice");
      if (advice["fix_first_min_gain_pct"])
        if (std::optional<double> pct = check.percentage(advice, "fix_first_min_gain_pct"))
          out.fix_first_min_gain_pct = *pct;
      if (YAML::Node causes = advice["idle_causes"]) read_idle_causes(check, causes, out);
    }
  }
  // The section's other key (max_kernel_gap_us) and its keys' check are the knowledge's.
  if (YAML::Node path = root["critical_path"]; path && path.IsMap())
    if (std::optional<double> pct = check.percentage(path, "min_coverage_pct"))
      out.critical_path_min_coverage_pct = *pct;
  YAML::Node vocabulary = root["vocabulary"];
  if (vocabulary) read_vocabulary_section(check, vocabulary, out);
  if (YAML::Node capture = root["capture"]) read_capture_section(check, capture, out.capture);
  YAML::Node rules = root["rules"];
  if (rules) read_rules_section(check, rules, out.rules);
  // After both too: a file may add terms, or advice that names them.
  if (rules || vocabulary) check_framework_terms(check, rules ? rules : root, out);
  // After both: a file may change the causes, the rules' claims or both.
  if (rules || (root["advice"] && root["advice"]["idle_causes"]))
    check_claims(check, rules ? rules : root, out);
}

}  // namespace perfgate
