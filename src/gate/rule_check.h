// Checks a rule as a whole (after its definition and every override) and derives its thresholds:
// metric names against the catalog, expressions, message placeholders, offender queries.
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/metrics.h"
#include "gate/rules.h"
#include "rule_files/yaml_check.h"

namespace perfgate {

bool valid_rule_id(std::string_view id);

// Reports problems at `at`; fills rule.warn/fail or warn_change/fail_change. False on any error.
bool check_rule(YamlCheck& check, const YAML::Node& at, Rule& rule);

// A metric as a rule names it: a catalog metric, or baseline./delta./ratio. of one. Rules name
// metrics by text; the evaluation resolves each name once, to this.
struct MetricReference {
  enum class Of : std::uint8_t { Current, Baseline, Delta, Ratio };
  Of of = Of::Current;
  Metric metric{};
};
// Empty where `name` is no catalog metric (with or without its prefix).
std::optional<MetricReference> metric_reference(std::string_view name);
bool is_metric_reference(std::string_view name);
// The unit of a reference: the metric's (a ratio. is a "ratio").
std::string reference_unit(const MetricReference& reference);
std::string reference_unit(std::string_view name);  // "" for a name that is no reference
// Whether a reference needs a baseline.
bool is_baseline_reference(std::string_view name);

// "+5%", "+3 ms", "-2 pts", "+2 count": a change limit, relative or in a unit that fits `metric_unit`
// (a bare number is refused: "10" could mean 10% or 10 us), in the bad direction
// of `better`. Empty optional and `error` set when the text cannot be read.
std::optional<ChangeLimit> parse_change(std::string_view text, std::string_view metric_unit, Better better,
                                        std::string& error);

}  // namespace perfgate
