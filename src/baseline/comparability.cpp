// How comparable a run and its baseline are, stated with every comparison (docs/rules.md,
// "Comparability"): the devices, the share of kernel and op time under names both runs have, the
// steps, and whether the two windows hold the same work. A before/after pair of windows cut at a
// fixed length (300 ms of an nsys capture) can hold different amounts of work: the same code ran
// fewer iterations in the slower window, and its window totals then read as changes of the code.
#include <algorithm>
#include <cmath>
#include <map>
#include <string_view>

#include <fmt/format.h>

#include "baseline/baseline.h"
#include "common/table_codes.h"

namespace perfgate {
namespace {

// The kernels' or ops' time under names both runs have, of each run's time (in %), and the names.
struct Overlap {
  std::size_t common = 0, baseline_names = 0, run_names = 0;
  std::optional<double> baseline_pct, run_pct;
};

// The ops' row of GPU work no op launched ("(no op)") names no op: two runs without ops would
// otherwise share it and read as the same workload whatever their kernels.
std::map<std::string, double> time_by_name(const std::vector<BaselineRow>& rows, bool families) {
  std::map<std::string, double> out;
  for (const BaselineRow& r : rows)
    if (!families || r.name != kNoOpName) out[families ? family_of(r.name) : r.name] += r.gpu_us + r.cpu_us;
  return out;
}

bool has_ops(const std::vector<BaselineRow>& ops) {
  return std::any_of(ops.begin(), ops.end(), [](const BaselineRow& r) { return r.name != kNoOpName; });
}

Overlap overlap_of(const std::vector<BaselineRow>& baseline, const std::vector<BaselineRow>& run,
                   bool families) {
  std::map<std::string, double> before = time_by_name(baseline, families),
                                after = time_by_name(run, families);
  Overlap o{0, before.size(), after.size(), {}, {}};
  double before_total = 0, after_total = 0, before_common = 0, after_common = 0;
  for (const auto& [name, us] : before) {
    before_total += us;
    if (auto it = after.find(name); it != after.end()) {
      ++o.common;
      before_common += us;
      after_common += it->second;
    }
  }
  for (const auto& [name, us] : after) after_total += us;
  if (before_total > 0) o.baseline_pct = 100 * before_common / before_total;
  if (after_total > 0) o.run_pct = 100 * after_common / after_total;
  return o;
}

ReportComparability overlap_factor(const char* factor, const char* what, const Overlap& o) {
  ReportComparability c{factor, "", std::nullopt, true};
  if (o.baseline_names == 0 && o.run_names == 0) {
    c.text = fmt::format("no {} in either run", what);
    return c;
  }
  if (o.baseline_pct && o.run_pct)
    c.overlap_pct = std::min(*o.baseline_pct, *o.run_pct);
  else
    c.overlap_pct = 0;  // one run has time under such names and the other none
  c.holds = *c.overlap_pct >= kMinOverlapPct;
  c.text =
      fmt::format("{} of {} {} names in common ({:.1f}% of the baseline's {} time, {:.1f}% of this run's)",
                  o.common, o.baseline_names + o.run_names - o.common, what, o.baseline_pct.value_or(0), what,
                  o.run_pct.value_or(0));
  return c;
}

// A GPU the trace does not describe (an nsys export without TARGET_INFO_GPU): unnamed on both sides
// compares as the same.
constexpr const char* kUnnamed = "GPU of unknown name";

std::string devices_text(const std::vector<std::pair<std::string, int>>& counts,
                         const std::vector<std::string>& names) {
  std::string out;
  if (!counts.empty()) {
    for (const auto& [name, n] : counts)
      out += fmt::format("{}{} x {}", out.empty() ? "" : ", ", n, name.empty() ? kUnnamed : name);
  } else {
    for (const std::string& name : names) out += (out.empty() ? "" : ", ") + (name.empty() ? kUnnamed : name);
  }
  return out.empty() ? "no GPU" : out;
}

ReportComparability devices_factor(const Baseline& run, const Baseline& baseline) {
  std::string before = devices_text(baseline.gpu_counts, baseline.info.gpu_names);
  std::string after = devices_text(run.gpu_counts, run.info.gpu_names);
  // A pooled baseline keeps the names, not the counts: then the names alone compare.
  bool counts_known = !baseline.gpu_counts.empty() && !run.gpu_counts.empty();
  bool same =
      counts_known ? baseline.gpu_counts == run.gpu_counts : baseline.info.gpu_names == run.info.gpu_names;
  if (same) return {"devices", fmt::format("{} in both", after), std::nullopt, true};
  return {"devices", fmt::format("the baseline ran on {}, this run on {}", before, after), std::nullopt,
          false};
}

std::string count_text(std::optional<double> v) {
  return v ? fmt::format("{:.0f}", *v) : std::string("n/a");
}

// "kernels 4010 → 3587 (-10.5%)"; empty where either run lacks the count.
std::string work_change(const char* what, std::optional<double> before, std::optional<double> after) {
  if (!before || !after) return "";
  std::string pct = *before > 0 ? fmt::format(" ({:+.1f}%)", (*after / *before - 1) * 100) : "";
  return fmt::format("{} {} → {}{}", what, count_text(before), count_text(after), pct);
}

bool differs(std::optional<double> before, std::optional<double> after) {
  if (!before || !after || *before <= 0 || *after <= 0) return false;
  return std::fabs(*after / *before - 1) * 100 > kDifferentWorkPct;
}

ReportComparability steps_factor(const Baseline& run, const Baseline& baseline) {
  std::size_t before = baseline.info.steps, after = run.info.steps;
  if (changes_per_step(after, before))
    return {"steps",
            fmt::format("{} window steps in the baseline, {} in this run: compared per step", before, after),
            std::nullopt, true};
  std::string which = before == 0 && after == 0 ? "neither run has window steps"
                      : before == 0             ? "the baseline has no window steps"
                                                : "this run has no window steps";
  auto kernels_before = baseline.metric(Metric::KernelsCount),
       kernels_after = run.metric(Metric::KernelsCount);
  std::string work = work_change("kernels", kernels_before, kernels_after);
  if (compares_inferred(run.inferred_iterations, after, baseline.inferred_iterations, before)) {
    const ReportInferredIterations& i = *run.inferred_iterations;
    MatchedUnits m = match_inferred_units(i, baseline);
    return {"steps",
            fmt::format(
                "{}: step times compared per inferred iteration ({} '{}', {} units in the baseline, {} in "
                "this run{}){}",
                which, i.kind, i.family, m.baseline_units, m.current_units,
                m.by_identity ? fmt::format(", {} matched by name", m.names.size()) : "",
                windows_hold_different_work(run, baseline)
                    ? "; the whole windows hold different work (" + work + ")"
                    : ""),
            std::nullopt, !m.by_identity || !m.names.empty()};
  }
  if (windows_hold_different_work(run, baseline))
    return {"steps",
            fmt::format("{}: whole windows compared, and they hold different work ({})", which, work),
            std::nullopt, false};
  return {"steps", fmt::format("{}: whole windows compared{}", which, work.empty() ? "" : " (" + work + ")"),
          std::nullopt, true};
}

}  // namespace

// An op family: every run of decimal digits replaced by '#', so that "blocks.3" and "blocks.17"
// (an FSDP wrapper per layer: a shorter window holds other layers) are one name.
std::string family_of(std::string_view name) {
  std::string out;
  bool previous_digit = false;
  for (char ch : name) {
    bool digit = ch >= '0' && ch <= '9';
    if (!(digit && previous_digit)) out += digit ? '#' : ch;
    previous_digit = digit;
  }
  return out;
}

bool windows_hold_different_work(const Baseline& run, const Baseline& baseline) {
  if (changes_per_step(run.info.steps, baseline.info.steps)) return false;
  return differs(baseline.metric(Metric::KernelsCount), run.metric(Metric::KernelsCount)) ||
         differs(baseline.metric(Metric::ComputeFlops), run.metric(Metric::ComputeFlops));
}

namespace {

// Window steps a run: a pooled baseline's metrics are the median of its runs', its steps every
// run's together.
double steps_a_window(const Baseline& b) {
  double steps = static_cast<double>(b.info.steps);
  return b.run_steps_us.size() > 1 ? steps / static_cast<double>(b.run_steps_us.size()) : steps;
}

}  // namespace

std::optional<ReportStepWork> step_work(const Baseline& run, const Baseline& baseline,
                                        double min_flops_coverage_pct) {
  if (!changes_per_step(run.info.steps, baseline.info.steps)) return std::nullopt;
  double run_steps = steps_a_window(run), baseline_steps = steps_a_window(baseline);
  struct PerStep {
    double before = 0, after = 0;
    bool differs() const { return std::fabs(after / before - 1) * 100 > kDifferentWorkPct; }
  };
  auto per_step = [&](Metric id) -> std::optional<PerStep> {
    auto before = baseline.metric(id), after = run.metric(id);
    if (!before || !after || *before <= 0 || *after <= 0) return std::nullopt;
    return PerStep{*before / baseline_steps, *after / run_steps};
  };
  std::optional<PerStep> flops = per_step(Metric::ComputeFlops), kernels = per_step(Metric::KernelsCount);
  if (!flops && !kernels) return std::nullopt;
  ReportStepWork w;
  // No matrix op at all (no coverage): the counted ops are all the work there is, as MFU reads it.
  double coverage = std::min(baseline.metric(Metric::ComputeFlopsCoveragePct).value_or(100),
                             run.metric(Metric::ComputeFlopsCoveragePct).value_or(100));
  w.per_flop = flops && coverage >= min_flops_coverage_pct;
  const PerStep& told = flops ? *flops : *kernels;
  w.measure = flops ? "FLOPs" : "kernels";
  w.baseline = told.before;
  w.value = told.after;
  auto text = [](const char* what, const PerStep& p, const char* format) {
    return fmt::format("{} a step {} → {} ({:+.1f}%)", what, fmt::format(fmt::runtime(format), p.before),
                       fmt::format(fmt::runtime(format), p.after), (p.after / p.before - 1) * 100);
  };
  if (flops) w.text = text("FLOPs", *flops, "{:.3g}");
  // FLOPs that measure the work decide alone: a fused or split kernel changes the kernel count, not
  // the work. Counted for a sliver of it, they may miss what changed, and the kernels tell too.
  w.differs = flops && flops->differs();
  if (!w.per_flop) {
    if (kernels) w.text += (w.text.empty() ? "" : ", ") + text("kernels", *kernels, "{:.1f}");
    if (flops) w.flops_coverage_pct = coverage;
    w.differs = w.differs || (kernels && kernels->differs());
  }
  return w;
}

std::optional<ReportComparability> step_work_factor(const ReportStepWork& work,
                                                    double min_flops_coverage_pct) {
  if (!work.differs) return std::nullopt;
  if (work.per_flop)
    return ReportComparability{"work", work.text + ": the step time is compared per FLOP", std::nullopt,
                               true};
  std::string why = work.flops_coverage_pct
                        ? fmt::format(
                              "the FLOPs are counted for {:.1f}% of the matrix work, under the {:.0f}% "
                              "that measures it",
                              *work.flops_coverage_pct, min_flops_coverage_pct)
                        : std::string("neither run counts FLOPs to measure it");
  return ReportComparability{"work",
                             fmt::format("{}: {}, so no time per unit of work compares", work.text, why),
                             std::nullopt, false};
}

std::vector<ReportComparability> comparability(const Baseline& run, const Baseline& baseline) {
  ReportComparability kernels =
      overlap_factor("kernels", "kernel", overlap_of(baseline.kernels, run.kernels, false));
  ReportComparability ops = overlap_factor("ops", "op", overlap_of(baseline.ops, run.ops, true));
  // Where both runs have ops, the ops say whether they ran the same workload: a change may swap the
  // kernels an op launches (Tensor Cores turned off, another GEMM algorithm) and that is what the
  // gate must judge, not a reason to withhold it. The kernels decide only where a run has no ops.
  if (!kernels.holds && has_ops(baseline.ops) && has_ops(run.ops)) {
    kernels.holds = true;
    kernels.text +=
        ": the kernels differ, but the ops compare (a change may swap the kernels an op launches)";
  }
  return {devices_factor(run, baseline), std::move(kernels), std::move(ops), steps_factor(run, baseline)};
}

}  // namespace perfgate
