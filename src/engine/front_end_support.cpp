#include "engine/front_end_support.h"

#include <algorithm>
#include <iterator>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "common/errors.h"
#include "common/units.h"
#include "load/load.h"

namespace perfgate {
namespace {

// The runs an entry is worded for, beside its condition: " (formats: xplane; vendors: amd)".
std::string run_conditions(const Rule::ConditionalText& c) {
  std::vector<std::string> parts;
  if (!c.formats.empty()) parts.push_back(fmt::format("formats: {}", fmt::join(c.formats, ", ")));
  if (!c.vendors.empty()) parts.push_back(fmt::format("vendors: {}", fmt::join(c.vendors, ", ")));
  if (!c.workload.empty()) parts.push_back(fmt::format("workload: {}", c.workload));
  if (!c.devices.empty()) parts.push_back(fmt::format("devices: {}", fmt::join(c.devices, ", ")));
  if (!c.frameworks.empty()) parts.push_back(fmt::format("frameworks: {}", fmt::join(c.frameworks, ", ")));
  if (!c.workloads.empty()) parts.push_back(fmt::format("workloads: {}", fmt::join(c.workloads, ", ")));
  if (!c.phases.empty()) parts.push_back(fmt::format("phases: {}", fmt::join(c.phases, ", ")));
  if (!c.claims.empty()) parts.push_back(fmt::format("claims: {}", c.claims));
  if (!c.docs.empty()) parts.push_back(fmt::format("docs: <{}>", c.docs));
  return parts.empty() ? "" : fmt::format(" ({})", fmt::join(parts, "; "));
}

// One rule's section of docs/rules.md.
void append_markdown(std::string& out, const Rule& r) {
  auto line = std::back_inserter(out);
  std::string what = !r.metric.empty() ? fmt::format("`{}`", r.metric) : fmt::format("`{}`", r.value);
  fmt::format_to(line, "### `{}`: {}\n\n", r.id, r.title);
  fmt::format_to(line, "- **Reads** {}{}; **fires** {}{}\n", r.condition.empty() ? what : "",
                 r.condition.empty() ? "" : fmt::format("`{}`", r.condition),
                 r.condition.empty() ? rule_limits_text(r) : "when the condition holds",
                 r.applies_if.empty() ? "" : fmt::format("; applies when `{}`", r.applies_if));
  if (!r.problem.empty()) fmt::format_to(line, "- **Problem** (as reported): {}\n", r.problem);
  if (!r.source.empty()) fmt::format_to(line, "- **Source**: {}\n", r.source);
  // Conditional advice in its order: the first whose condition holds is the one reported.
  for (const auto& c : r.recommendations)
    fmt::format_to(line, "- **Recommendation**{}{}: {}\n",
                   c.when.empty() ? "" : fmt::format(" when `{}`", c.when), run_conditions(c), c.text);
  if (!r.recommendation.empty())
    fmt::format_to(line, "- **Recommendation**{}: {}\n", r.recommendations.empty() ? "" : " otherwise",
                   r.recommendation);
  if (!r.claims.empty())
    fmt::format_to(line, "- **Claims** the GPUs' idle time for `{}` (How findings defer to each other)\n",
                   r.claims);
  if (!r.see.empty()) fmt::format_to(line, "- **See**: `{}`\n", fmt::join(r.see, "`, `"));
  if (!r.gain.empty())
    fmt::format_to(
        line, "- **Estimated gain**: `{}` % of the step time{}{}\n", r.gain,
        r.saves.empty() ? "" : fmt::format(", at most `{}`", r.saves),
        r.on_path.empty() ? "" : fmt::format(" and at most its time on the critical path, `{}`", r.on_path));
  if (!r.pass_needs.empty()) fmt::format_to(line, "- **Passes only when** `{}` (else n/a)\n", r.pass_needs);
  if (!r.docs.empty()) fmt::format_to(line, "- **More**: <{}>\n", r.docs);
  out += '\n';
}

}  // namespace

std::string profile_format(const std::string& path) {
  return detect_format(path);
}

std::unordered_map<std::string_view, FileIdentity> sniffed_identities(const ResolvedInputs* resolved) {
  std::unordered_map<std::string_view, FileIdentity> known;
  if (resolved)
    for (const InputFile& input : resolved->inputs)
      if (input.identity.known()) known.emplace(input.path, input.identity);
  return known;
}

std::int64_t window_time_ns(std::string_view field, double us) {
  if (std::optional<std::int64_t> ns = trace_time_ns(us)) return *ns;
  throw RequestError(
      std::string(field), [field = std::string(field), us](const RequestError::FieldNames& name) {
        return fmt::format("{} {}: not a time of the trace's clock in microseconds", name(field), us);
      });
}

std::uint64_t device_memory_bytes(const std::string& text) {
  std::optional<std::uint64_t> bytes = parse_byte_size(text);
  if (bytes && *bytes != 0) return *bytes;
  throw RequestError("device_memory", [text](const RequestError::FieldNames& name) {
    return fmt::format("{} {}: not a size of device memory (e.g. 80G, 141G or a number of bytes)",
                       name("device_memory"), text);
  });
}

std::vector<GatedMetric> gated_metrics_of(const RuleBook& book) {
  std::vector<GatedMetric> out;
  for (const Rule& r : book.rules.rules) {
    if (!r.enabled || !r.compare_baseline) continue;
    if (std::ranges::any_of(out, [&r](const GatedMetric& g) { return g.metric == r.metric; })) continue;
    GatedMetric g{r.metric, r.id, std::nullopt, r.warn_change ? r.warn_change : r.fail_change};
    if (r.better) g.better = *r.better == Better::Lower ? Improves::Lower : Improves::Higher;
    out.push_back(std::move(g));
  }
  return out;
}

std::string effective_rules_text(const RuleBook& book) {
  return effective_rules_yaml(book.knowledge, book.rules);
}

std::string rules_table(const RuleBook& book) {
  std::string out;
  for (const Rule& r : book.rules.rules)
    fmt::format_to(std::back_inserter(out), "{:<34} {:<8} {:<36} {}\n", r.id, r.enabled ? "" : "disabled",
                   r.metric.empty() ? (r.value.empty() ? "(condition)" : r.value) : r.metric,
                   rule_limits_text(r));
  return out;
}

std::string rules_markdown(const RuleBook& book) {
  std::string out;
  for (const Rule& r : book.rules.rules) append_markdown(out, r);
  return out;
}

}  // namespace perfgate
