// Evaluates each enabled rule on the report model and the baseline: one finding per rule.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "common/metrics.h"
#include "common/units.h"
#include "gate/agreement.h"
#include "gate/capture_words.h"
#include "gate/expression.h"
#include "gate/gate.h"
#include "gate/inferred_units.h"
#include "gate/message_template.h"
#include "gate/metric_expression.h"
#include "gate/offenders.h"
#include "gate/path_difference.h"
#include "gate/rule_check.h"
#include "gate/rule_expressions.h"
#include "gate/statistics.h"
#include "gate/step_comparison.h"

namespace perfgate {
namespace {

// A gain this far above its bound (percentage points) is rounding, not a contradiction.
constexpr double kGainRoundingPct = 0.05;

// A change: "+1.20 ms", "-14.8 pts" (a difference of percentages is in points).
std::string signed_value(double v, std::string_view unit) {
  if (unit == "%") return fmt::format("{:+.1f} pts", v);
  return (v > 0 ? "+" : "") + format_value(v, unit);
}

class RuleEvaluator {
 public:
  RuleEvaluator(const Rule& rule, const ReportModel& report, const Baseline* baseline,
                std::string_view no_baseline_reason, double min_path_coverage_pct,
                const CaptureWording& wording, const std::vector<FrameworkTerms>& link_groups)
      : wording_(wording),
        link_groups_(link_groups),
        min_path_coverage_pct_(min_path_coverage_pct),
        r_(rule),
        x_(rule),
        report_(report),
        baseline_(baseline),
        no_baseline_reason_(no_baseline_reason),
        lookup_(report, baseline) {}

  ReportFinding run() {
    describe();
    if (needs_baseline(r_, x_) && !baseline_)
      return done(FindingStatus::Skipped, no_baseline_reason_.empty()
                                              ? "no baseline to compare with: run with --baseline REPORT.json"
                                              : std::string(no_baseline_reason_));
    if (x_.applies_if) {
      auto applies = x_.applies_if->evaluate(lookup_);
      if (!applies)
        return done(FindingStatus::NotApplicable,
                    fmt::format("{} has no value for this profile (applies_if: {})",
                                x_.applies_if->first_missing(lookup_), r_.applies_if));
      if (*applies == 0) return done(FindingStatus::NotApplicable, "applies only when " + r_.applies_if);
    }
    if (r_.compare_baseline && r_.test != StepTest::None && snapshots_alone())
      return done(FindingStatus::NotApplicable,
                  "memory snapshots record no steps by nature: no step time to compare (regression.memory "
                  "compares their peaks)");
    // Steps made of inferred units compare as the units, matched by name and paired (issue 74).
    if (r_.compare_baseline && r_.test != StepTest::None && baseline_ &&
        (unit_steps_ = units_of_inferred_steps(report_, *baseline_)))
      return by_inferred_iterations();
    if (r_.compare_baseline && r_.test != StepTest::None)
      if (std::string missing = missing_steps(); !missing.empty()) {
        if (compares_inferred(report_.inferred_iterations, window_steps(), baseline_->inferred_iterations,
                              baseline_->step_durations_us.size()))
          return by_inferred_iterations();
        ReportFinding f = done(FindingStatus::Inconclusive, "no steps to compare: " + missing);
        f.problem.clear();  // the rule's message reads a step time; the reason says why there is none
        // Nor is there anything per step to look into: what to do is give both runs steps.
        f.offenders.clear();
        f.see.clear();
        f.recommendation =
            "Give both runs steps: prof.step() each iteration (ProfilerStep#N) or an NVTX range per "
            "iteration "
            "(nsys), --key-op REGEX naming the op that opens an iteration, or --step-pattern inferred where "
            "both runs repeat a top-level range; meanwhile compare the time a call in What changed.";
        return f;
      }
    f_.value = !r_.metric.empty() ? lookup_(x_.metric)
               : x_.value         ? x_.value->evaluate(lookup_)
                                  : std::nullopt;
    if (!f_.value && (!r_.metric.empty() || x_.value))
      return done(FindingStatus::NotApplicable,
                  fmt::format("{} has no value for this profile",
                              !r_.metric.empty() ? r_.metric : x_.value->first_missing(lookup_)));
    if (x_.condition) return by_condition();
    if (r_.compare_baseline) return by_baseline();
    return by_threshold();
  }

 private:
  void describe() {
    f_.id = r_.id;
    f_.title = r_.title;
    bool can_fail = r_.fail || r_.fail_change || (!r_.condition.empty() && r_.severity == Severity::Error);
    f_.severity = can_fail ? "error" : "warning";
    f_.metric = !r_.metric.empty() ? r_.metric : r_.value;
    f_.unit = x_.metric ? reference_unit(*x_.metric) : !r_.metric.empty() ? "" : r_.unit;
    // A link to another framework's page is none (issue 89): a recommendations entry may give its own.
    if (link_fits_capture(r_.docs, link_groups_, capture())) f_.docs = r_.docs;
    f_.source = r_.source;
  }

  ReportFinding by_condition() {
    auto fires = x_.condition->evaluate(lookup_);
    f_.threshold_text = r_.condition;
    if (!fires)
      return done(FindingStatus::NotApplicable,
                  fmt::format("{} has no value for this profile", x_.condition->first_missing(lookup_)));
    if (*fires == 0) return done(FindingStatus::Pass, "");
    return done(r_.severity == Severity::Error ? FindingStatus::Fail : FindingStatus::Warn, "");
  }

  ReportFinding by_threshold() {
    bool higher = r_.better == Better::Higher;
    double v = *f_.value;
    auto crossed = [&](const std::optional<double>& t) { return t && (higher ? v < *t : v > *t); };
    auto text = [&](double t) { return fmt::format("{} {}", higher ? "<" : ">", format_value(t, f_.unit)); };
    for (const auto& [t, status] :
         {std::pair{&r_.fail, FindingStatus::Fail}, std::pair{&r_.warn, FindingStatus::Warn}}) {
      if (!crossed(*t)) continue;
      f_.threshold = **t;
      f_.threshold_text = text(**t);
      return done(status, "");
    }
    f_.threshold = r_.warn ? r_.warn : r_.fail;
    if (f_.threshold) f_.threshold_text = text(*f_.threshold);
    return done(FindingStatus::Pass, "");
  }

  // A step-time change explained by the two runs' critical paths per step (issue 74, item 6): what
  // grew on the path, moved onto it or left it, by bound and by name, where both runs have one. An
  // inconclusive finding too: the steps align, so the paths per step compare like with like.
  void explain_along_the_path(ReportFinding& f) const {
    if (f.status != FindingStatus::Fail && f.status != FindingStatus::Warn &&
        f.status != FindingStatus::Inconclusive)
      return;
    std::optional<PathProfile> now = path_profile(report_);
    const PathProfile* before = baseline_->path_profile ? &*baseline_->path_profile : nullptr;
    std::optional<PathDifference> d =
        path_difference(baseline_->metrics, report_.metrics, before, now ? &*now : nullptr);
    if (!d) return;
    f.problem += (f.problem.empty() ? "" : " ") + path_difference_sentence(*d);
    if (now && !before)
      f.problem +=
          " The baseline keeps no critical-path ops (a history keeps them for runs recorded since its "
          "schema 5; a JSON report where its workers have critical_path tables): no op is named.";
  }

  ReportFinding by_baseline() {
    f_.baseline = x_.metric ? lookup_.base(x_.metric->metric) : std::nullopt;
    if (!f_.baseline) return done(FindingStatus::NotApplicable, "the baseline has no value for " + r_.metric);
    if (r_.test != StepTest::None) {
      std::vector<double> current;
      std::vector<std::string> names;
      for (const ReportStep& s : report_.steps)
        if (s.in_window) current.push_back(s.duration_us), names.push_back(s.name);
      const auto& runs = baseline_->run_steps_us.empty()
                             ? std::vector<std::vector<double>>{baseline_->step_durations_us}
                             : baseline_->run_steps_us;
      // Where the work per step differs and both runs' FLOPs measure it, the time per FLOP compares
      // (issue 74: a batch x2, FLOPs a step +100%, read "+60% step time" and failed); where nothing
      // measures it, the work factor does not hold and not_comparable() abstains.
      const ReportStepWork* work =
          report_.baseline && report_.baseline->step_work ? &*report_.baseline->step_work : nullptr;
      std::optional<StepWorkBasis> basis;
      if (work && work->differs && work->per_flop) basis = StepWorkBasis{"FLOP", work->ratio()};
      StepComparison c = compare_steps(r_, current, names, runs, basis ? &*basis : nullptr);
      f_.step_test = c.test;
      if (c.limit) set_limit(*c.limit, c.limit_value);
      if (basis) per_unit_of_work_ = true;
      ReportFinding f = done(
          c.status, !basis ? c.reason
                           : fmt::format("work per step {:+.1f}% (FLOPs {:.3g} → {:.3g} a step), compared "
                                         "per FLOP: {}",
                                         (work->ratio() - 1) * 100, work->baseline, work->value, c.reason));
      explain_along_the_path(f);
      return f;
    }
    bool higher = r_.better == Better::Higher;
    double base = *f_.baseline, v = *f_.value;
    auto limit_value = [&](const ChangeLimit& l) {
      double change = l.relative ? base * l.amount : l.amount;
      return higher ? base - change : base + change;
    };
    for (const auto& [l, status] :
         {std::pair{&r_.fail_change, FindingStatus::Fail}, std::pair{&r_.warn_change, FindingStatus::Warn}}) {
      if (!*l) continue;
      double at = limit_value(**l);
      if (higher ? v < at : v > at) {
        set_limit(**l, at);
        return done(status, "");
      }
    }
    if (const auto* nearest = r_.warn_change ? &*r_.warn_change : r_.fail_change ? &*r_.fail_change : nullptr)
      set_limit(*nearest, limit_value(*nearest));
    return done(FindingStatus::Pass, "");
  }

  // Both runs are PyTorch memory snapshots alone (a peak, no kernel): the step time does not apply.
  bool snapshots_alone() const {
    auto alone = [](std::optional<double> peak, std::optional<double> kernels) {
      return peak && (!kernels || *kernels == 0);
    };
    return alone(report_.metric(Metric::MemorySnapshotPeakBytes), report_.metric(Metric::KernelsCount)) &&
           alone(baseline_->metric(Metric::MemorySnapshotPeakBytes), baseline_->metric(Metric::KernelsCount));
  }

  std::size_t window_steps() const {
    return static_cast<std::size_t>(std::count_if(report_.steps.begin(), report_.steps.end(),
                                                  [](const ReportStep& s) { return s.in_window; }));
  }

  // The step-time test on the units both runs inferred (docs/rules.md, "Inferred iterations"): the
  // like-with-like comparison where no steps are marked, so windows of different work do not stop it.
  ReportFinding by_inferred_iterations() {
    const ReportInferredIterations& now = unit_steps_ ? *unit_steps_ : *report_.inferred_iterations;
    MatchedUnits m = match_inferred_units(now, *baseline_);
    std::string basis = fmt::format(
        "compared per inferred iteration: {}, both repeat the {} '{}' ({}; a unit may be a layer or a "
        "micro-batch rather than a training step)",
        unit_steps_ ? "this run's steps are its inferred units (--step-pattern inferred)"
                    : "neither run marks steps",
        now.kind, now.family, matched_units_text(m));
    if (m.by_identity && m.names.empty())
      return done(FindingStatus::Inconclusive, basis + ": no unit of this run is one of the baseline's");
    // The statistic the rule's metric reads, as compare_steps takes it (steps.mean_us: the mean).
    bool mean = metric_id(r_.metric) == Metric::StepsMeanUs;
    Statistic stat = mean ? Statistic::Mean : Statistic::Median;
    std::vector<double> all_baseline;
    for (const auto& run : m.baseline_runs_us)
      all_baseline.insert(all_baseline.end(), run.begin(), run.end());
    f_.value = statistic(m.current_us, stat);
    f_.baseline = statistic(all_baseline, stat);
    std::vector<std::string> names = m.names;
    for (std::size_t i = names.size(); i < m.current_us.size(); ++i)
      names.push_back(fmt::format("inferred unit {}", i + 1));
    // Matched one to one: the paired test on the pairs (issue 74), each unit against the same unit of
    // the baseline (a pool's: the geometric mean of its runs'), so that blocks that differ among
    // themselves do not count as noise.
    StepComparison c = m.by_identity ? compare_paired_steps(r_, m.current_us, m.baseline_runs_us)
                                     : compare_steps(r_, m.current_us, names, m.baseline_runs_us);
    f_.step_test = c.test;
    if (c.limit) set_limit(*c.limit, c.limit_value);
    per_inferred_iteration_ = true;
    ReportFinding f = done(c.status, c.reason.empty() ? basis : basis + ". " + c.reason);
    if (f.problem.empty()) return f;
    // The rule's message reads per window step, and its offenders are window totals of different work:
    // say what was compared, and where to look per unit instead.
    f.problem = fmt::format(
        "The {} inferred iteration (a unit of the {} '{}') takes {}, {} against the "
        "baseline's {}{}.",
        mean ? "mean" : "median", now.kind, now.family, format_value(*f_.value, "us"),
        signed_value(*f_.value - *f_.baseline, "us"), format_value(*f_.baseline, "us"),
        limit_ ? " (limit " + limit_->text + ")" : "");
    // Steps made of the units have a path each: what grew on it per unit is stated, and the per-step
    // tables (the offenders) are per unit.
    if (unit_steps_) {
      explain_along_the_path(f);
      return f;
    }
    f.problem += " " + matched_unit_path_text(*baseline_, report_, m);
    f.offenders.clear();
    f.see.clear();
    // What changed counts the matched units' work where both runs hold it (issue 95), else the windows'.
    bool inside = matched_unit_work(now, *baseline_).has_value();
    f.recommendation = std::string("Find what got slower in each unit: ") +
                       (inside ? "the ops and kernels in What changed (the work inside the matched units)"
                               : "the time a call of the ops and kernels in What changed (the window totals "
                                 "hold different amounts of work)") +
                       ", or analyse both runs with --step-pattern inferred for per-unit step tables.";
    return f;
  }

  // Why a change against the baseline is no regression of the code (docs/rules.md, "Work per window
  // and comparability"), or "": a comparability factor that does not hold (other devices, kernels or
  // ops mostly not in common); or windows of different work without steps: a window total (a time, a
  // count) compares different amounts of work, and a share of the window (the data loader's, GPU
  // utilization) depends on where each capture was cut (issue 74: two cuts of one run, 0-525 and
  // 0-600 ms, read "data-loader share +5.0 pts"). The step test per inferred iteration compares
  // like with like and still judges.
  std::string not_comparable() const {
    if (!report_.baseline) return "";
    std::string failing;
    for (const ReportComparability& c : report_.baseline->comparability)
      if (!c.holds && c.factor != "steps")
        failing += (failing.empty() ? "" : "; ") + c.factor + ": " + c.text;
    if (!failing.empty()) return "not comparable with the baseline (" + failing + ")";
    bool total = f_.unit == "us" || f_.unit == "count" || f_.unit == "bytes" || f_.unit == "flop";
    if (const auto& work = report_.baseline->step_work; work && work->differs && total && !per_unit_of_work_)
      return fmt::format(
          "the work per step differs ({} a step {:+.1f}%): a total per step compares different amounts of "
          "work, not only the change",
          work->measure, (work->ratio() - 1) * 100);
    if (!report_.baseline->different_work || per_inferred_iteration_) return "";
    if (total)
      return "the two windows hold different work and no steps align them: a window total compares different "
             "amounts of work, not only the change";
    return "the two windows hold different work and no steps align them: a share of the window depends on "
           "where each capture was cut, not only on the change";
  }

  // Which run has no window steps for the step-time test, or "" when both have: a window total
  // is no step time, and "not applied" would read as the pass of a pair whose steps were compared.
  std::string missing_steps() const {
    bool run = window_steps() > 0;
    bool base = !baseline_->step_durations_us.empty();
    if (run && base) return "";
    std::string which = !run && !base ? "neither this run nor the baseline has window steps"
                        : !run        ? "this run has no window steps"
                                      : "the baseline has no window steps";
    return which +
           " (ProfilerStep#N ranges, an NVTX range per iteration, or matches of --step-pattern or "
           "--key-op), so the step time was not compared. Give both runs steps, or name the op that "
           "starts each iteration with --key-op";
  }

  void set_limit(const ChangeLimit& l, double at) {
    limit_ = l;
    f_.threshold = at;
    f_.threshold_text = fmt::format("{} vs the baseline ({} {})", l.text,
                                    r_.better == Better::Higher ? "<" : ">", format_value(at, f_.unit));
  }

  // Comparability decides abstention before the direction does (issue 74): a pair that is not
  // comparable is inconclusive whether the run came out slower, alike or faster, so that a faster
  // run on other GPUs cannot pass where the slower one would abstain.
  ReportFinding done(FindingStatus status, std::string reason) {
    bool decided =
        status == FindingStatus::Fail || status == FindingStatus::Warn || status == FindingStatus::Pass;
    if (decided && r_.compare_baseline)
      if (std::string why = not_comparable(); !why.empty()) {
        status = FindingStatus::Inconclusive;
        reason = why + (reason.empty() ? "" : ". " + reason);
      }
    if (status == FindingStatus::Pass) {
      if (std::string why = pass_not_evidence(); !why.empty()) {
        status = FindingStatus::NotApplicable;
        reason = std::move(why);
      }
    }
    f_.status = status;
    f_.reason = std::move(reason);
    bool fired = status == FindingStatus::Warn || status == FindingStatus::Fail;
    if (status == FindingStatus::Fail) f_.counts_as = "error";
    if (status == FindingStatus::Warn) f_.counts_as = "warning";
    if (status == FindingStatus::Inconclusive)
      f_.counts_as = r_.inconclusive == InconclusiveAs::Error     ? "error"
                     : r_.inconclusive == InconclusiveAs::Warning ? "warning"
                                                                  : "none";
    if (!fired && status != FindingStatus::Inconclusive) return f_;
    set_gain();
    if (r_.offenders) f_.offenders = find_offenders(*r_.offenders, report_);
    // The rule's own words in the capture's before the trace's values fill them in (issue 89).
    f_.problem = with_articles(fill(in_capture_terms(r_.problem, terms())), words().words) +
                 inferred_architecture_note();
    f_.recommendation = with_articles(fill(in_capture_terms(recommendation_text(), terms())), words().words);
    f_.see = r_.see;
    return f_;
  }

  // Why a pass would say nothing (`pass_needs` does not hold), with the values it read; "" when it
  // holds or cannot be evaluated (nothing shows the evidence incomplete).
  std::string pass_not_evidence() const {
    if (!x_.pass_needs) return "";
    std::optional<double> holds = x_.pass_needs->evaluate(lookup_);
    if (!holds || *holds != 0) return "";
    std::string values;
    const auto& names = x_.pass_needs->variables();
    const auto& references = x_.pass_needs->references();
    for (std::size_t i = 0; i < names.size(); ++i)
      values += fmt::format(
          "{}{} {}", values.empty() ? "" : ", ", names[i],
          format_value(lookup_(references[i]), references[i] ? reference_unit(*references[i]) : ""));
    return fmt::format("it can pass only when {} ({}): what it read cannot show the whole run", r_.pass_needs,
                       values);
  }

  // The estimated gain, never above what removing the cause could save (`saves`); none where
  // that time has no value (no GPU activity: no GPU idle time to win back). Where the trace has a
  // critical path that covers most of the step (rules: critical_path.min_coverage_pct), never
  // above the cause's time on it either (`on_path`): work off the path can get faster without the
  // step getting shorter. A path that leaves much of the step unexplained bounds nothing; the
  // finding says how much it covers either way.
  // A gain with no `saves` has no bound (a user's rule file): it is withheld, never stated unbounded.
  void set_gain() {
    if (!x_.gain || !x_.saves) return;
    f_.gain_pct = x_.gain->evaluate(lookup_);
    f_.saves = r_.saves;
    std::optional<double> bound = x_.saves->evaluate(lookup_);
    if (!f_.gain_pct || !bound) {
      f_.gain_pct.reset();
      return;
    }
    // Above its bound by more than rounding: one of the two measures is wrong, and neither is
    // printed as a gain (issue 89: a gain over its bound is withheld, never capped).
    if (*f_.gain_pct > std::max(*bound, 0.0) + kGainRoundingPct) {
      f_.gain_withheld = fmt::format(
          "n/a: the estimate ({}, {}) is more than its cause could save ({}, {}); the two measure the "
          "cause differently (over other windows, or counting time that overlaps other work), so one "
          "of them is in doubt",
          format_pct(*f_.gain_pct), r_.gain, format_pct(std::max(*bound, 0.0)), r_.saves);
      f_.gain_pct.reset();
      return;
    }
    f_.gain_pct = std::min(*f_.gain_pct, std::max(*bound, 0.0));
    if (!x_.on_path || !f_.gain_pct) return;
    std::optional<double> on_path = x_.on_path->evaluate(lookup_);
    if (!on_path) return;
    f_.path_coverage_pct = lookup_.current(Metric::CriticalPathCoveragePct);
    if (f_.path_coverage_pct && *f_.path_coverage_pct < min_path_coverage_pct_) {
      f_.gain_path_too_short = *on_path < *f_.gain_pct;
      return;
    }
    f_.gain_bounded_by_path = *on_path < *f_.gain_pct;
    f_.gain_pct = std::min(*f_.gain_pct, std::max(*on_path, 0.0));
  }

  // Whether every input of the run is of one of `formats` (an entry worded for JAX's XSpace
  // profiles applies to a run of them, not to one that mixes them with PyTorch traces).
  bool inputs_are(const std::vector<std::string>& formats) const {
    if (formats.empty()) return true;
    if (report_.inputs.empty()) return false;
    for (const ReportInput& in : report_.inputs)
      if (std::find(formats.begin(), formats.end(), in.format) == formats.end()) return false;
    return true;
  }

  const CaptureView& capture() const { return wording_.view; }
  const CaptureWords& words() const { return wording_.words; }
  const CaptureTerms& terms() const { return wording_.terms; }

  // Whether an entry is worded for this run: its input formats, and the capture's devices,
  // frameworks and workload (gate/capture_words.h).
  bool worded_for_run(const Rule::ConditionalText& r) {
    return inputs_are(r.formats) && worded_for_capture(r, capture());
  }

  // The first `recommendations` entry whose condition holds and that is worded for the run, else
  // `recommendation`; with the cause that advice claims. A rule without a `recommendation` whose
  // entries are all worded for other captures gives no remedy, and says so (issue 89: another
  // workload's or vendor's remedy is worse than none).
  std::string recommendation_text() {
    for (const auto& r : r_.recommendations) {
      if (!worded_for_run(r)) continue;
      std::optional<double> holds = r.when.empty() ? 1.0 : MetricExpression(r.when).evaluate(lookup_);
      if (holds && *holds != 0) {
        claim_ = r.claims.empty() ? r_.claims : r.claims;
        if (!r.docs.empty()) f_.docs = r.docs;
        return r.text;
      }
    }
    claim_ = r_.claims;
    if (!r_.recommendation.empty() || r_.recommendations.empty()) return r_.recommendation;
    return fmt::format("No remedy is given for {}: this rule's advice is worded for other captures.",
                       capture_phrase(capture(), words()));
  }

 public:
  // The cause the finding's advice claims (gate/agreement.h); "" for none or a finding not fired.
  const std::string& claim() const { return claim_; }

 private:
  // A rule that depends on the GPU architecture, when a GPU's architecture was inferred from
  // kernel names (the trace does not describe its devices), says so.
  std::string inferred_architecture_note() const {
    auto architecture = [](const std::optional<MetricReference>& m) {
      return m && m->of == MetricReference::Of::Current && m->metric == Metric::GpuComputeCapability;
    };
    bool reads_architecture = architecture(x_.metric);
    for (const auto* x : {&x_.value, &x_.condition, &x_.applies_if, &x_.gain})
      if (*x)
        for (const auto& reference : (*x)->references()) reads_architecture |= architecture(reference);
    if (!reads_architecture) return "";
    for (const ReportGpu& g : report_.gpus)
      if (g.architecture_inferred)
        return fmt::format(
            " (GPU {}: architecture {} or newer, sm {} or newer, inferred from kernel names; the trace does "
            "not "
            "describe its devices)",
            g.device, g.architecture, g.compute_capability);
    return "";
  }

  std::string fill(const std::string& text) {
    return fill_template(text, [&](std::string_view name) -> std::string {
      if (name == "value") return format_value(f_.value, f_.unit);
      if (name == "threshold") return format_value(f_.threshold, f_.unit);
      if (name == "baseline") return format_value(f_.baseline, f_.unit);
      if (name == "delta")
        return f_.value && f_.baseline ? signed_value(*f_.value - *f_.baseline, f_.unit) : "n/a";
      if (name == "limit") return limit_ ? limit_->text : f_.threshold_text;
      if (name == "gain") return format_pct(f_.gain_pct);
      if (name == "offenders") return offenders_text(f_.offenders);
      if (std::string word = words().word(name); !word.empty()) return word;
      // What shares of time are shares of: a run without steps is one window (its metrics say so).
      if (name == "step_time")
        return lookup_.current(Metric::WindowStepsInWindow).value_or(0) > 0 ? "the step time" : "the window";
      for (const auto& [value_name, expression] : r_.values)
        if (value_name == name) return format_value(MetricExpression(expression).evaluate(lookup_), "");
      // A metric named in the message's text, resolved here.
      return format_value(lookup_(metric_reference(name)), reference_unit(name));
    });
  }

  const CaptureWording& wording_;                   // decided once per gate run (evaluate_rules)
  const std::vector<FrameworkTerms>& link_groups_;  // the rules' framework_terms
  double min_path_coverage_pct_;
  const Rule& r_;
  RuleExpressions x_;
  const ReportModel& report_;
  const Baseline* baseline_;
  std::string_view no_baseline_reason_;
  MetricLookup lookup_;
  ReportFinding f_;
  std::optional<ChangeLimit> limit_;
  bool per_inferred_iteration_ = false;  // the step-time test ran on inferred units
  // This run's window steps as its inferred units, where the step-time test compares them so.
  std::optional<ReportInferredIterations> unit_steps_;
  bool per_unit_of_work_ = false;  // the step-time test compared the time per FLOP
  std::string claim_;
};

bool fired(FindingStatus s) {
  return s == FindingStatus::Warn || s == FindingStatus::Fail;
}

// On a baseline run, a finding that the same rule, as it is now, also gives on the baseline's own
// metrics was there before the change: it is marked, so that what the change did comes first. Rules
// that compare with the baseline are about the change itself and are never marked.
void mark_in_baseline(std::vector<ReportFinding>& findings, const RuleSet& rules, const ReportModel& report,
                      const Baseline& baseline, const CaptureWording& wording) {
  ReportModel before;  // the baseline's metrics alone: what the rules' thresholds and conditions read
  before.metrics = baseline.metrics;
  before.families = report.families;
  std::size_t i = 0;
  for (const Rule& r : rules.rules) {
    if (!r.enabled) continue;
    ReportFinding& f = findings[i++];
    if (!fired(f.status) || needs_baseline(r, RuleExpressions(r))) continue;
    ReportFinding then = RuleEvaluator(r, before, nullptr, "", rules.critical_path_min_coverage_pct, wording,
                                       rules.framework_terms)
                             .run();
    f.in_baseline = fired(then.status);
  }
}

}  // namespace

std::vector<ReportFinding> evaluate_rules(const RuleSet& rules, const ReportModel& report,
                                          const Baseline* baseline, std::string_view no_baseline_reason) {
  return evaluate_rules(rules, report, baseline, no_baseline_reason, capture_wording(rules.words, report));
}

std::vector<ReportFinding> evaluate_rules(const RuleSet& rules, const ReportModel& report,
                                          const Baseline* baseline, std::string_view no_baseline_reason,
                                          const CaptureWording& wording) {
  std::vector<ReportFinding> findings;
  std::vector<std::string> claims;
  for (const Rule& r : rules.rules)
    if (r.enabled) {
      RuleEvaluator evaluator(r, report, baseline, no_baseline_reason, rules.critical_path_min_coverage_pct,
                              wording, rules.framework_terms);
      findings.push_back(evaluator.run());
      claims.push_back(evaluator.claim());
    }
  defer_opposed_findings(findings, claims, rules.idle_causes, report);
  for (ReportFinding& f : findings)
    f.fix_first = (f.status == FindingStatus::Warn || f.status == FindingStatus::Fail) && f.gain_pct &&
                  *f.gain_pct >= rules.fix_first_min_gain_pct;
  if (baseline) mark_in_baseline(findings, rules, report, *baseline, wording);
  return findings;
}

}  // namespace perfgate
