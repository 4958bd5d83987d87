#include "gate/path_difference.h"

#include <algorithm>
#include <cmath>
#include <map>

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

// HTA's class in the words the bounds use.
std::string_view bound_words(std::string_view bound) {
  if (bound == "cpu_bound") return "host";
  if (bound == "data_loading") return "data loading";
  if (bound == "gpu_kernel_launch_overhead") return "launch delay";
  if (bound == "gpu_kernel_kernel_overhead") return "kernel gap";
  if (bound == "gpu_compute_bound") return "GPU compute";
  if (bound == "gpu_communication_bound") return "communication";
  return bound;
}

// On the path in one run only: it moved onto the path, or left it.
const char* how_it_changed(double before, double after, double least) {
  return before < least   ? "moved onto the path"
         : after < least  ? "left the path"
         : after > before ? "grew"
                          : "shrank";
}

// A bound whose time changed by less than this is not named (0.5% of the longer path).
double least_named_change(const PathDifference& d) {
  return 0.005 * std::max(d.baseline_length_us, d.length_us);
}

// What the other bounds' change must reach to get a bar of its own: under half a nanosecond it is
// the shares' rounding, below every digit shown.
constexpr double kLeastOtherChangeUs = 0.0005;

}  // namespace

PathOpsDifference path_ops_difference(const PathProfile& baseline, const PathProfile& run) {
  PathOpsDifference d;
  d.baseline_length_us = baseline.length_us_per_step;
  d.length_us = run.length_us_per_step;
  std::map<std::pair<std::string, std::string>, std::pair<double, double>> by_name;
  for (const PathOp& op : baseline.ops) by_name[{op.name, op.bound}].first += op.us_per_step;
  for (const PathOp& op : run.ops) by_name[{op.name, op.bound}].second += op.us_per_step;
  double listed_before = 0, listed_after = 0;
  for (const auto& [key, times] : by_name) {
    d.ops.push_back({key.first, key.second, times.first, times.second});
    listed_before += times.first;
    listed_after += times.second;
  }
  std::stable_sort(d.ops.begin(), d.ops.end(), [](const PathOpChange& a, const PathOpChange& b) {
    return std::fabs(a.delta()) > std::fabs(b.delta());
  });
  d.baseline_rest_us = d.baseline_length_us - listed_before;
  d.rest_us = d.length_us - listed_after;
  return d;
}

std::optional<PathDifference> path_difference(const MetricValues& baseline, const MetricValues& run,
                                              const PathProfile* baseline_ops, const PathProfile* run_ops) {
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
  if (baseline_ops && run_ops) d.by_name = path_ops_difference(*baseline_ops, *run_ops);
  return d;
}

std::string path_difference_sentence(const PathDifference& d) {
  double least = least_named_change(d);
  std::vector<std::string> parts;
  for (const PathBoundChange& b : d.bounds) {
    if (std::fabs(b.delta()) < least) continue;
    // On the path in one run only: it moved onto the path, or left it.
    const char* how = how_it_changed(b.baseline_us, b.us, least);
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
  if (d.by_name) out += " " + path_ops_sentence(*d.by_name);
  return out;
}

std::string path_ops_sentence(const PathOpsDifference& d) {
  double least = 0.005 * std::max(d.baseline_length_us, d.length_us);
  std::vector<std::string> parts;
  double shown = 0;
  // What grew or moved onto the path first, then what left it or shrank: each at most kPathOpsNamed.
  for (bool growth : {true, false}) {
    std::size_t named = 0;
    for (const PathOpChange& op : d.ops) {
      if (named == kPathOpsNamed) break;
      if (std::fabs(op.delta()) < least || (op.delta() > 0) != growth) continue;
      ++named;
      shown += op.delta();
      parts.push_back(fmt::format("{} {} ({}) {} ({} → {})", how_it_changed(op.baseline_us, op.us, least),
                                  op.name, bound_words(op.bound), signed_us(op.delta()),
                                  format_duration_us(op.baseline_us), format_duration_us(op.us)));
    }
  }
  double total = d.length_us - d.baseline_length_us;
  std::string out = fmt::format("By name (each run's critical-path ops a step, {} → {}): ",
                                format_duration_us(d.baseline_length_us), format_duration_us(d.length_us));
  if (parts.empty()) return out + "no op's time on the path changed by 0.5% of the path.";
  return out + fmt::format("{}; everything else {}.", fmt::join(parts, "; "), signed_us(total - shown));
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
