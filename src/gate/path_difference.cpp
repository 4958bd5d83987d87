#include "gate/path_difference.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "common/units.h"

namespace perfgate {
namespace {

struct Bound {
  Metric share;
  const char* what;
};

// HTA's bounds, which together make the whole path (docs/metrics.md, "Critical path").
constexpr Bound kBounds[] = {
    {Metric::CriticalPathCpuBoundPct, "host ops and runtime calls"},
    {Metric::CriticalPathDataLoadingPct, "data loading"},
    {Metric::CriticalPathGpuKernelLaunchOverheadPct, "launch delays"},
    {Metric::CriticalPathGpuKernelKernelOverheadPct, "gaps between kernels"},
    {Metric::CriticalPathGpuComputeBoundPct, "GPU compute"},
    {Metric::CriticalPathGpuCommunicationBoundPct, "communication"},
};

std::string signed_us(double us) {
  return (us > 0 ? "+" : us < 0 ? "-" : "") + format_duration_us(std::fabs(us));
}

// A bound whose time changed by less than this is not named (0.5% of the longer path).
double least_named_change(const PathDifference& d) {
  return 0.005 * std::max(d.baseline_length_us, d.length_us);
}

// What the other bounds' change must reach to get a bar of its own: under half a nanosecond it is
// the shares' rounding, below every digit shown.
constexpr double kLeastOtherChangeUs = 0.0005;

}  // namespace

std::optional<PathDifference> path_difference(const MetricValues& baseline, const MetricValues& run) {
  auto length = [](const MetricValues& m) { return m.get(Metric::CriticalPathLengthUs); };
  auto uncovered = [](const MetricValues& m) { return m.get(Metric::CriticalPathUncoveredStepPct); };
  if (!length(baseline) || !length(run) || *length(baseline) <= 0 || *length(run) <= 0) return std::nullopt;
  if (!uncovered(baseline) || !uncovered(run) || *uncovered(baseline) >= 100 || *uncovered(run) >= 100)
    return std::nullopt;
  PathDifference d;
  d.baseline_length_us = *length(baseline);
  d.length_us = *length(run);
  d.baseline_off_us = d.baseline_length_us * *uncovered(baseline) / (100 - *uncovered(baseline));
  d.off_us = d.length_us * *uncovered(run) / (100 - *uncovered(run));
  for (const Bound& b : kBounds) {
    std::optional<double> before = baseline.get(b.share), after = run.get(b.share);
    if (!before || !after) return std::nullopt;
    d.bounds.push_back({b.what, d.baseline_length_us * *before / 100, d.length_us * *after / 100});
  }
  std::stable_sort(d.bounds.begin(), d.bounds.end(),
                   [](const PathBoundChange& a, const PathBoundChange& b) { return a.delta() > b.delta(); });
  return d;
}

std::string path_difference_sentence(const PathDifference& d) {
  double least = least_named_change(d);
  std::vector<std::string> parts;
  for (const PathBoundChange& b : d.bounds) {
    if (std::fabs(b.delta()) < least) continue;
    // On the path in one run only: it moved onto the path, or left it.
    const char* how = b.baseline_us < least ? "moved onto the path"
                      : b.us < least        ? "left the path"
                      : b.delta() > 0       ? "grew"
                                            : "shrank";
    parts.push_back(fmt::format("{} {} {} ({} → {})", how, b.what, signed_us(b.delta()),
                                format_duration_us(b.baseline_us), format_duration_us(b.us)));
  }
  std::string out =
      fmt::format("On the critical path per step, {} → {} ({})", format_duration_us(d.baseline_length_us),
                  format_duration_us(d.length_us), signed_us(d.length_us - d.baseline_length_us));
  out += parts.empty() ? ": no bound changed by 0.5% of the path"
                       : ": " + fmt::format("{}", fmt::join(parts, "; "));
  out += fmt::format(". Off the path (step time no path explains) {} → {} ({}).",
                     format_duration_us(d.baseline_off_us), format_duration_us(d.off_us),
                     signed_us(d.off_us - d.baseline_off_us));
  return out;
}

ReportTable critical_path_changes(const PathDifference& d) {
  ReportTable t = declared_table(Table::CriticalPathChanges);
  double before = d.baseline_length_us + d.baseline_off_us, after = d.length_us + d.off_us;
  double at = before;  // where the next part's bar starts
  auto part = [&](const std::string& name, const char* kind, double baseline_us, double us) {
    double delta = us - baseline_us;
    t.rows.push_back({name, std::string(kind), baseline_us, us, delta, at, at + delta});
    at += delta;
  };
  t.rows.push_back(
      {std::string("Baseline step"), std::string("total"), before, ReportCell{}, ReportCell{}, 0.0, before});
  double least = least_named_change(d);
  double rest_baseline = d.baseline_length_us, rest = d.length_us;  // the path less the named bounds
  for (const PathBoundChange& b : d.bounds) {
    if (std::fabs(b.delta()) < least) continue;
    part(b.what, "bound", b.baseline_us, b.us);
    rest_baseline -= b.baseline_us;
    rest -= b.us;
  }
  if (std::fabs(rest - rest_baseline) >= kLeastOtherChangeUs)
    part("other bounds", "bounds", rest_baseline, rest);
  part("off the path", "off path", d.baseline_off_us, d.off_us);
  t.rows.push_back(
      {std::string("This run's step"), std::string("total"), before, after, after - before, 0.0, after});
  return t;
}

}  // namespace perfgate
