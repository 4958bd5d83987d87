#include "gate/path_difference.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <iterator>
#include <map>
#include <string_view>

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

std::optional<PathDifference> matched_unit_path_difference(const std::vector<UnitPath>& baseline,
                                                           const std::vector<UnitPath>& run,
                                                           const std::vector<std::string>& matched,
                                                           std::size_t* units) {
  std::map<std::string_view, const UnitPath*> before, after;
  for (const UnitPath& u : baseline) before.emplace(u.unit, &u);
  for (const UnitPath& u : run) after.emplace(u.unit, &u);
  // Each side's sums over the units both have a path of, then divided by them.
  PathDifference d;
  d.per = "matched unit";
  std::array<PathBoundChange, std::size(kBounds)> bounds{};
  PathProfile before_ops, after_ops;
  std::map<std::pair<std::string, std::string>, std::pair<double, double>> ops;
  std::size_t n = 0;
  for (const std::string& name : matched) {
    auto b = before.find(name), a = after.find(name);
    if (b == before.end() || a == after.end()) continue;
    ++n;
    d.baseline_length_us += b->second->length_us;
    d.length_us += a->second->length_us;
    d.baseline_off_us += std::max(0.0, b->second->span_us - b->second->length_us);
    d.off_us += std::max(0.0, a->second->span_us - a->second->length_us);
    for (std::size_t i = 0; i < bounds.size(); ++i) {
      bounds[i].baseline_us += b->second->bounds_us[i];
      bounds[i].us += a->second->bounds_us[i];
    }
    for (const PathOp& op : b->second->ops) ops[{op.name, op.bound}].first += op.us_per_step;
    for (const PathOp& op : a->second->ops) ops[{op.name, op.bound}].second += op.us_per_step;
  }
  if (units) *units = n;
  if (n == 0) return std::nullopt;
  auto per_unit = static_cast<double>(n);
  d.baseline_length_us /= per_unit;
  d.length_us /= per_unit;
  d.baseline_off_us /= per_unit;
  d.off_us /= per_unit;
  for (std::size_t i = 0; i < bounds.size(); ++i)
    d.bounds.push_back({kBounds[i].what, bounds[i].baseline_us / per_unit, bounds[i].us / per_unit});
  std::stable_sort(d.bounds.begin(), d.bounds.end(),
                   [](const PathBoundChange& a, const PathBoundChange& b) { return a.delta() > b.delta(); });
  before_ops.steps = after_ops.steps = per_unit;
  before_ops.length_us_per_step = d.baseline_length_us;
  after_ops.length_us_per_step = d.length_us;
  for (const auto& [key, times] : ops) {
    if (times.first > 0) before_ops.ops.push_back({key.first, key.second, times.first / per_unit});
    if (times.second > 0) after_ops.ops.push_back({key.first, key.second, times.second / per_unit});
  }
  d.by_name = path_ops_difference(before_ops, after_ops);
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
  std::string out = fmt::format("On the critical path per {}, {} → {} ({})", d.per,
                                format_duration_us(d.baseline_length_us), format_duration_us(d.length_us),
                                signed_us(d.length_us - d.baseline_length_us));
  out += parts.empty() ? ": no bound changed by 0.5% of the path"
                       : ": " + fmt::format("{}", fmt::join(parts, "; "));
  out += fmt::format(". Off the path ({} time no path explains) {} → {} ({}).",
                     d.per == "step" ? "step" : "unit", format_duration_us(d.baseline_off_us),
                     format_duration_us(d.off_us), signed_us(d.off_us - d.baseline_off_us));
  if (d.by_name) out += " " + path_ops_sentence(*d.by_name, d.per);
  return out;
}

std::string path_ops_sentence(const PathOpsDifference& d, std::string_view per) {
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
  std::string out = fmt::format("By name (each run's critical-path ops a {}, {} → {}): ", per,
                                format_duration_us(d.baseline_length_us), format_duration_us(d.length_us));
  if (parts.empty()) return out + "no op's time on the path changed by 0.5% of the path.";
  return out + fmt::format("{}; everything else {}.", fmt::join(parts, "; "), signed_us(total - shown));
}

std::string matched_unit_path_text(const Baseline& baseline, const ReportModel& run,
                                   const MatchedUnits& matched) {
  std::size_t units = 0;
  std::optional<PathDifference> d;
  if (matched.by_identity)
    d = matched_unit_path_difference(baseline.unit_paths, unit_paths(run), matched.names, &units);
  if (d) {
    std::string sentence =
        path_difference_sentence(*d);  // "On the critical path …": one sentence with the lead
    if (!sentence.empty())
      sentence[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(sentence[0])));
    return fmt::format(
        "Over the {} matched units with a critical path in both runs (each unit's path over its "
        "host range, of the worker whose path of it is longest): {}",
        units, sentence);
  }
  std::string why = !matched.by_identity
                        ? "the units are not matched by name (a report of an earlier perfgate)"
                        : "the baseline keeps no critical path per unit (a history, or a "
                          "report of an earlier perfgate)";
  return "What grew on the critical path per unit is not computed: " + why +
         ", and each run's one path over its whole window holds other units and the work between them (a "
         "path divided by the units would count that work). Analyse both runs with --step-pattern inferred: "
         "the units become the steps, each with its own path, and the step-time finding names what grew on "
         "the path per unit.";
}

ReportTable critical_path_changes(const PathDifference& d, const std::optional<MedianSteps>& medians) {
  ReportTable t = declared_table(Table::CriticalPathChanges);
  double before = d.baseline_length_us + d.baseline_off_us, after = d.length_us + d.off_us;
  double at = medians ? medians->baseline_us : before;  // where the next part's bar starts
  auto part = [&](const std::string& name, const char* kind, double baseline_us, double us) {
    double delta = us - baseline_us;
    t.rows.push_back({name, std::string(kind), baseline_us, us, delta, at, at + delta});
    at += delta;
  };
  if (medians) {
    t.rows.push_back({std::string("Baseline step (median)"), std::string("total"), medians->baseline_us,
                      ReportCell{}, ReportCell{}, 0.0, medians->baseline_us});
    part("baseline: its mean step against its median", "statistic", medians->baseline_us, before);
  } else {
    t.rows.push_back({std::string("Baseline step (mean)"), std::string("total"), before, ReportCell{},
                      ReportCell{}, 0.0, before});
  }
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
  if (medians) {
    part("this run: its median step against its mean", "statistic", after, medians->us);
    t.rows.push_back({std::string("This run's step (median)"), std::string("total"), medians->baseline_us,
                      medians->us, medians->us - medians->baseline_us, 0.0, medians->us});
    return t;
  }
  t.rows.push_back({std::string("This run's step (mean)"), std::string("total"), before, after,
                    after - before, 0.0, after});
  return t;
}

}  // namespace perfgate
