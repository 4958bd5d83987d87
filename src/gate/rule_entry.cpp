#include "gate/rule_entry.h"

#include <algorithm>
#include <array>
#include <map>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "common/capture_profile.h"
#include "common/suggest.h"
#include "gate/capture_words.h"
#include "gate/rule_check.h"
#include "gate/run_context.h"

namespace perfgate {
namespace {

constexpr std::array<std::string_view, 35> kRuleKeys = {
    "id",      "title",      "metric",    "value",        "unit",       "condition",      "applies_if",
    "compare", "better",     "warn",      "fail",         "threshold",  "severity",       "test",
    "alpha",   "confidence", "resamples", "inconclusive", "problem",    "recommendation", "recommendations",
    "docs",    "source",     "gain",      "saves",        "pass_needs", "values",         "offenders",
    "enabled", "note",       "see",       "on_path",      "family",     "claims",         "frameworks"};
constexpr std::array<std::string_view, 11> kConditionalTextKeys = {
    "when",    "text",       "formats",   "vendors", "workload", "claims",
    "devices", "frameworks", "workloads", "phases",  "docs"};
constexpr std::array<std::string_view, 6> kOffenderKeys = {"table", "where", "sort",
                                                           "label", "show",  "limit"};

// A key whose value is one of a few words.
template <typename T, std::size_t N>
std::optional<T> choice(YamlCheck& check, const YAML::Node& node, std::string_view key,
                        const std::array<std::pair<std::string_view, T>, N>& options) {
  auto text = check.string(node, key);
  if (!text) return std::nullopt;
  std::vector<std::string_view> words;
  for (const auto& [word, value] : options) {
    if (*text == word) return value;
    words.push_back(word);
  }
  check.error(node, fmt::format("'{}' must be one of: {}; got '{}'{}", key, fmt::join(words, ", "), *text,
                                did_you_mean(*text, words)));
  return std::nullopt;
}

constexpr std::array<std::pair<std::string_view, Better>, 2> kBetter = {
    {{"lower", Better::Lower}, {"higher", Better::Higher}}};
constexpr std::array<std::pair<std::string_view, Severity>, 2> kSeverity = {
    {{"warning", Severity::Warning}, {"error", Severity::Error}}};
constexpr std::array<std::pair<std::string_view, StepTest>, 3> kTests = {
    {{"none", StepTest::None}, {"robust-t", StepTest::RobustT}, {"mann-whitney", StepTest::MannWhitney}}};
constexpr std::array<std::pair<std::string_view, InconclusiveAs>, 3> kInconclusive = {
    {{"warning", InconclusiveAs::Warning}, {"error", InconclusiveAs::Error}, {"pass", InconclusiveAs::Pass}}};
constexpr std::array<std::pair<std::string_view, bool>, 2> kCompare = {{{"baseline", true}, {"none", false}}};

void read_text(YamlCheck& check, const YAML::Node& entry, std::string_view key, std::string& out) {
  if (YAML::Node v = entry[std::string(key)])
    if (auto text = check.string(v, key)) out = *text;
}

void read_offenders(YamlCheck& check, const YAML::Node& node, Rule& rule) {
  if (!check.is_map(node, "offenders")) return;
  check.known_keys(node, kOffenderKeys, "offenders");
  OffenderQuery q = rule.offenders.value_or(OffenderQuery{});
  read_text(check, node, "table", q.table);
  read_text(check, node, "where", q.where);
  read_text(check, node, "sort", q.sort);
  read_text(check, node, "label", q.label);
  read_text(check, node, "show", q.show);
  if (YAML::Node limit = node["limit"]) {
    auto n = check.number(limit, "limit");
    if (n && (*n < 1 || *n > 100 || *n != static_cast<double>(static_cast<int>(*n))))
      check.error(limit, "'limit' must be a whole number from 1 to 100");
    else if (n)
      q.limit = static_cast<std::size_t>(*n);
  }
  rule.offenders = q;
}

void read_values(YamlCheck& check, const YAML::Node& node, Rule& rule) {
  if (!check.is_map(node, "values")) return;
  for (const auto& entry : node) {
    std::string name = entry.first.Scalar();
    auto text = check.string(entry.second, name);
    if (!text) continue;
    auto it =
        std::find_if(rule.values.begin(), rule.values.end(), [&](const auto& v) { return v.first == name; });
    if (it != rule.values.end())
      it->second = *text;
    else
      rule.values.emplace_back(name, *text);
  }
}

void read_recommendations(YamlCheck& check, const YAML::Node& node, Rule& rule) {
  if (!check.is_list(node, "recommendations")) return;
  rule.recommendations.clear();
  for (const auto& item : node) {
    if (!check.is_map(item, "recommendations entry")) continue;
    check.known_keys(item, kConditionalTextKeys, "recommendations");
    if (!item["text"]) {
      check.error(item, "a recommendations entry needs 'text'");
      continue;
    }
    // No `when`: the entry holds wherever its keys fit the capture.
    auto when = item["when"] ? check.string(item["when"], "when") : std::optional<std::string>("");
    auto text = check.string(item["text"], "text");
    // `formats: xplane` or a list: the input formats (the readers' names) the text is worded for.
    std::vector<std::string> formats = check.names(item["formats"], "formats");
    // `vendors: amd` or a list, of the vendors the gate knows (gate/run_context.h).
    std::vector<std::string> vendors = check.names(item["vendors"], "vendors");
    for (const std::string& v : vendors)
      if (std::find(kVendorNames.begin(), kVendorNames.end(), v) == kVendorNames.end())
        check.error(item["vendors"],
                    fmt::format("unknown vendor '{}' (one of: {})", v, fmt::join(kVendorNames, ", ")));
    std::string workload;
    if (const YAML::Node w = item["workload"]) {
      workload = check.string(w, "workload").value_or("");
      if (!workload_named(workload))
        check.error(
            w, fmt::format("unknown workload '{}' (one of: {})", workload, fmt::join(kWorkloadNames, ", ")));
    }
    std::string claims;
    if (const YAML::Node c = item["claims"]) claims = check.string(c, "claims").value_or("");
    // The captures it is worded for (common/capture_profile.h's names).
    std::vector<std::string> devices = check.names(item["devices"], "devices");
    for (const std::string& d : devices)
      if (!capture_enum_named<DeviceKind>(kDeviceKindNames, d) &&
          !capture_enum_named<DeviceVendor>(kDeviceVendorNames, d))
        check.error(item["devices"],
                    fmt::format("unknown device '{}' (a kind: {}; or a vendor: {})", d,
                                fmt::join(kDeviceKindNames, ", "), fmt::join(kDeviceVendorNames, ", ")));
    std::vector<std::string> frameworks = check.names(item["frameworks"], "frameworks");
    std::vector<std::string> workloads = check.names(item["workloads"], "workloads");
    for (const std::string& w : workloads)
      if (w != "inference" && !capture_enum_named<CaptureWorkload>(kCaptureWorkloadNames, w))
        check.error(item["workloads"], fmt::format("unknown workload '{}' (one of: {}, inference)", w,
                                                   fmt::join(kCaptureWorkloadNames, ", ")));
    std::vector<std::string> phases = check.names(item["phases"], "phases");
    const std::vector<std::string_view>& phase_names = capture_phase_names();
    for (const std::string& ph : phases)
      if (std::find(phase_names.begin(), phase_names.end(), ph) == phase_names.end())
        check.error(item["phases"], fmt::format("unknown phase '{}' (one of: {}){}", ph,
                                                fmt::join(phase_names, ", "), did_you_mean(ph, phase_names)));
    std::string docs;
    if (const YAML::Node d = item["docs"]) docs = check.string(d, "docs").value_or("");
    if (when && text)
      rule.recommendations.push_back({*when, *text, std::move(formats), std::move(vendors),
                                      std::move(workload), std::move(claims), std::move(devices),
                                      std::move(frameworks), std::move(workloads), std::move(phases),
                                      std::move(docs)});
  }
}

// `see: gpu_gaps` or `see: [op_deltas, kernel_deltas]`.
void read_see(YamlCheck& check, const YAML::Node& node, Rule& rule) {
  rule.see.clear();
  if (node.IsScalar()) {
    if (auto name = check.string(node, "see")) rule.see.push_back(*name);
    return;
  }
  if (!check.is_list(node, "see")) return;
  for (const auto& item : node)
    if (auto name = check.string(item, "see")) rule.see.push_back(*name);
}

// `family: gpu`, or a list: `family: [gpu, cpu-only]`.
void read_families(YamlCheck& check, const YAML::Node& node, Rule& rule) {
  rule.families.clear();
  auto add = [&](const YAML::Node& item) {
    auto name = check.string(item, "family");
    if (!name) return;
    if (auto family = device_family_named(*name)) {
      if (std::find(rule.families.begin(), rule.families.end(), *family) == rule.families.end())
        rule.families.push_back(*family);
      return;
    }
    std::vector<std::string_view> names(kDeviceFamilyNames.begin(), kDeviceFamilyNames.end());
    check.error(item, fmt::format("'family' must be one or a list of: {}; got '{}'{}", fmt::join(names, ", "),
                                  *name, did_you_mean(*name, names)));
  };
  if (node.IsScalar()) return add(node);
  if (!check.is_list(node, "family")) return;
  for (const auto& item : node) add(item);
}

void read_number(YamlCheck& check, const YAML::Node& entry, std::string_view key, double low, double high,
                 double& out) {
  YAML::Node v = entry[std::string(key)];
  if (!v) return;
  auto n = check.number(v, key);
  if (n && (*n <= low || *n >= high))
    check.error(v, fmt::format("'{}' must be between {} and {} (exclusive); got {}", key, low, high, *n));
  else if (n)
    out = *n;
}

constexpr std::array<std::pair<std::string_view, std::string Rule::*>, 17> kTextKeys = {{
    {"title", &Rule::title},
    {"metric", &Rule::metric},
    {"value", &Rule::value},
    {"unit", &Rule::unit},
    {"condition", &Rule::condition},
    {"applies_if", &Rule::applies_if},
    {"problem", &Rule::problem},
    {"recommendation", &Rule::recommendation},
    {"docs", &Rule::docs},
    {"source", &Rule::source},
    {"gain", &Rule::gain},
    {"saves", &Rule::saves},
    {"on_path", &Rule::on_path},
    {"claims", &Rule::claims},
    {"pass_needs", &Rule::pass_needs},
    {"warn", &Rule::warn_text},
    {"fail", &Rule::fail_text},
}};

void read_keys(YamlCheck& check, const YAML::Node& e, Rule& rule) {
  // An override may switch a rule between a metric and an expression.
  if (e["value"] && !e["metric"]) rule.metric.clear();
  if (e["metric"] && !e["value"]) rule.value.clear();
  for (const auto& [key, member] : kTextKeys) read_text(check, e, key, rule.*member);
  if (YAML::Node v = e["compare"])
    if (auto c = choice(check, v, "compare", kCompare)) rule.compare_baseline = *c;
  if (YAML::Node v = e["better"]) rule.better = choice(check, v, "better", kBetter);
  if (YAML::Node v = e["severity"])
    if (auto s = choice(check, v, "severity", kSeverity)) rule.severity = *s;
  if (YAML::Node v = e["test"])
    if (auto t = choice(check, v, "test", kTests)) rule.test = *t;
  if (YAML::Node v = e["inconclusive"])
    if (auto i = choice(check, v, "inconclusive", kInconclusive)) rule.inconclusive = *i;
  read_number(check, e, "alpha", 0, 0.5, rule.alpha);
  read_number(check, e, "confidence", 0.5, 1, rule.confidence);
  if (YAML::Node v = e["resamples"])
    check.error(v,
                "'resamples' is no longer used: the step-time interval comes from the step model "
                "(docs/rules.md, \"The step-time test\"); remove it");
  if (YAML::Node v = e["enabled"])
    if (auto b = check.boolean(v, "enabled")) rule.enabled = *b;
  if (YAML::Node v = e["values"]) read_values(check, v, rule);
  if (YAML::Node v = e["recommendations"]) read_recommendations(check, v, rule);
  if (YAML::Node v = e["offenders"]) read_offenders(check, v, rule);
  if (YAML::Node v = e["see"]) read_see(check, v, rule);
  if (YAML::Node v = e["family"]) read_families(check, v, rule);
  if (YAML::Node v = e["frameworks"]) rule.frameworks = check.names(v, "frameworks");
  // `threshold` is the one threshold of the rule's severity: warn, or fail for an error rule.
  if (YAML::Node v = e["threshold"]) {
    if (auto text = check.string(v, "threshold"))
      (rule.severity == Severity::Error ? rule.fail_text : rule.warn_text) = *text;
  }
}

// A new rule needs a title, what it reads and when it fires. An entry with an unknown id that lacks
// one of them is taken for an override of a misspelt id when an existing id is near it, or when it
// gives none of title, metric, value or condition; else it is an incomplete new rule, and what it
// lacks is reported as such.
bool complete_new_rule(const YAML::Node& e) {
  bool reads = e["metric"] || e["value"] || e["condition"];
  bool fires = e["warn"] || e["fail"] || e["threshold"] || e["condition"];
  return e["title"] && reads && fires;
}

// The error for an entry that overrides an unknown id, or empty when it is a new rule.
std::string unknown_id_error(const YAML::Node& e, std::string_view id, const std::vector<Rule>& rules) {
  if (complete_new_rule(e)) return {};
  std::vector<std::string_view> ids;
  for (const Rule& r : rules) ids.push_back(r.id);
  if (std::string near = did_you_mean(id, ids); !near.empty())
    return fmt::format("unknown rule id '{}'{}", id, near);
  if (e["title"] || e["metric"] || e["value"] || e["condition"]) return {};
  return fmt::format(
      "unknown rule id '{}': a new rule needs a 'title' and a 'metric', 'value' or "
      "'condition'; an override needs the id of an existing rule (perfgate rules list)",
      id);
}

}  // namespace

void apply_rule_entry(YamlCheck& check, const YAML::Node& entry, std::vector<Rule>& rules) {
  if (!check.is_map(entry, "rules entry")) return;
  check.known_keys(entry, kRuleKeys, "rule");
  YAML::Node id_node = entry["id"];
  if (!id_node) return check.error(entry, "a rule needs an 'id'");
  auto id = check.string(id_node, "id");
  if (!id) return;
  if (!valid_rule_id(*id))
    return check.error(id_node, fmt::format("rule id '{}' must be lower-case letters, digits, '.' and '-', "
                                            "starting with a letter or digit",
                                            *id));
  auto it = std::find_if(rules.begin(), rules.end(), [&](const Rule& r) { return r.id == *id; });
  bool is_new = it == rules.end();
  if (std::string unknown = is_new ? unknown_id_error(entry, *id, rules) : ""; !unknown.empty())
    return check.error(id_node, unknown);
  Rule rule = is_new ? Rule{} : *it;
  rule.id = *id;
  std::size_t errors_before = check.errors().size();
  read_keys(check, entry, rule);
  bool read_ok = check.errors().size() == errors_before;
  rule.defined_at = fmt::format("{}:{}", check.file(), entry.Mark().line + 1);
  // Checked even after a bad key, so that one pass reports every problem of the file.
  if (!check_rule(check, entry, rule) || !read_ok) return;
  if (is_new)
    rules.push_back(std::move(rule));
  else
    *it = std::move(rule);
}

void read_rules_section(YamlCheck& check, const YAML::Node& node, std::vector<Rule>& rules) {
  if (!check.is_list(node, "rules")) return;
  std::map<std::string, int> first_line;  // the ids of this file, where each was first given
  for (const auto& entry : node) {
    YAML::Node id = entry.IsMap() ? entry["id"] : YAML::Node();
    if (id && id.IsScalar()) {
      auto [it, inserted] = first_line.emplace(id.Scalar(), entry.Mark().line + 1);
      if (!inserted) {
        check.error(id, fmt::format("rule '{}' is given twice in this file (first at line {}); give its "
                                    "keys in one entry",
                                    it->first, it->second));
        continue;
      }
    }
    apply_rule_entry(check, entry, rules);
  }
}

}  // namespace perfgate
