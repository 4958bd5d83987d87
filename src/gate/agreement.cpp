#include "gate/agreement.h"

#include <algorithm>
#include <optional>

#include <fmt/format.h>

#include "gate/metric_expression.h"

namespace perfgate {
namespace {

struct Claim {
  std::size_t finding = 0;
  const ClaimedCause* cause = nullptr;
  double evidence = 0;  // % of the window the cause explains
};

bool fired(const ReportFinding& f) {
  return f.status == FindingStatus::Warn || f.status == FindingStatus::Fail;
}

// The evidence of a cause on this run's metrics; none where a metric it reads has no value.
std::optional<double> evidence_of(const ClaimedCause& cause, const ReportModel& report) {
  return MetricExpression(cause.evidence).evaluate(MetricLookup(report, nullptr));
}

const ClaimedCause* cause_named(const std::vector<ClaimedCause>& causes, const std::string& name) {
  auto it = std::find_if(causes.begin(), causes.end(), [&](const ClaimedCause& c) { return c.name == name; });
  return it == causes.end() ? nullptr : &*it;
}

// Whether `other` speaks over `claim`: their causes oppose and its evidence is stronger (a tie
// goes to the cause that is not the host's: it says why the host's remedies would not help).
bool speaks_over(const Claim& other, const Claim& claim) {
  if (other.cause->host == claim.cause->host) return false;
  return other.evidence > claim.evidence || (other.evidence == claim.evidence && !other.cause->host);
}

}  // namespace

void defer_opposed_findings(std::vector<ReportFinding>& findings, const std::vector<std::string>& claims,
                            const std::vector<ClaimedCause>& causes, const ReportModel& report) {
  std::vector<Claim> made;
  for (std::size_t i = 0; i < findings.size() && i < claims.size(); ++i) {
    if (!fired(findings[i]) || claims[i].empty()) continue;
    const ClaimedCause* cause = cause_named(causes, claims[i]);
    if (!cause) continue;
    // A cause whose evidence the run cannot weigh neither speaks over nor defers to another.
    if (std::optional<double> evidence = evidence_of(*cause, report)) made.push_back({i, cause, *evidence});
  }
  // Decided on the claims as made, so that the order of the rules does not matter.
  std::vector<std::pair<std::size_t, const Claim*>> deferrals;
  for (const Claim& claim : made) {
    const Claim* strongest = nullptr;
    for (const Claim& other : made)
      if (speaks_over(other, claim) && (!strongest || other.evidence > strongest->evidence))
        strongest = &other;
    if (strongest) deferrals.emplace_back(claim.finding, strongest);
  }
  for (const auto& deferral : deferrals) {
    // Named, not a structured binding: clang cannot capture one in the lambda under C++20.
    std::size_t index = deferral.first;
    const Claim* to = deferral.second;
    ReportFinding& f = findings[index];
    const Claim& own =
        *std::find_if(made.begin(), made.end(), [&](const Claim& c) { return c.finding == index; });
    f.recommendation = fmt::format(
        "Deferred to {}: it explains this idle time as {} ({:.1f}% of the window), against {:.1f}% for "
        "this rule's cause ({}); follow its advice, not this rule's.",
        findings[to->finding].id, to->cause->name, to->evidence, own.evidence, own.cause->name);
    f.gain_pct.reset();
    f.gain_bounded_by_path = false;
    f.gain_path_too_short = false;
  }
}

}  // namespace perfgate
