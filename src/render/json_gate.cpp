#include "render/json_gate.h"

namespace perfgate {
namespace {

void write_verdict(JsonWriter& j, const ReportVerdict& v) {
  j.key("verdict").begin_object();
  j.key("status").value(v.status);
  j.key("exit_code").value(v.exit_code);
  j.key("fail_on").value(v.fail_on);
  j.key("passed").value(static_cast<std::uint64_t>(v.passed));
  j.key("warnings").value(static_cast<std::uint64_t>(v.warnings));
  j.key("failures").value(static_cast<std::uint64_t>(v.failures));
  j.key("not_applicable").value(static_cast<std::uint64_t>(v.not_applicable));
  j.key("skipped").value(static_cast<std::uint64_t>(v.skipped));
  j.key("inconclusive").value(static_cast<std::uint64_t>(v.inconclusive));
  j.end_object();
}

void write_step_test(JsonWriter& j, const ReportStepTest& t) {
  j.key("step_test").begin_object();
  j.key("method").value(t.method);
  j.key("current_steps").value(static_cast<std::uint64_t>(t.current_steps));
  j.key("baseline_steps").value(static_cast<std::uint64_t>(t.baseline_steps));
  j.key("ratio").value(t.ratio);
  j.key("ci_low").value(t.ci_low);
  j.key("ci_high").value(t.ci_high);
  j.key("confidence").value(t.confidence);
  j.key("p_value").value(t.p_value);
  j.key("alpha").value(t.alpha);
  j.key("baseline_runs").value(static_cast<std::uint64_t>(t.baseline_runs));
  j.key("noise_pct").value(t.noise_pct);
  j.key("run_noise_pct").value(t.run_noise_pct);
  j.key("mdc_pct").value(t.mdc_pct);
  j.key("steps_needed");
  if (t.steps_needed)
    j.value(static_cast<std::uint64_t>(*t.steps_needed));
  else
    j.null();
  j.key("outlier_steps").begin_array();
  for (const std::string& s : t.outlier_steps) j.value(s);
  j.end_array();
  j.key("baseline_outlier_steps").value(static_cast<std::uint64_t>(t.baseline_outlier_steps));
  j.key("excluded_runs").value(static_cast<std::uint64_t>(t.excluded_runs));
  if (!t.work_unit.empty()) {
    j.key("work_unit").value(t.work_unit);
    j.key("work_ratio").value(t.work_ratio);
  }
  j.end_object();
}

void write_finding(JsonWriter& j, const ReportFinding& f) {
  j.begin_object();
  j.key("id").value(f.id);
  j.key("title").value(f.title);
  j.key("headline").value(f.headline);  // perfgate-report/2.7
  j.key("severity").value(f.severity);
  j.key("status").value(finding_status_name(f.status));
  j.key("counts_as").value(f.counts_as);
  j.key("metric").value(f.metric);
  j.key("unit").value(f.unit);
  j.key("value").value(f.value);
  j.key("threshold").value(f.threshold);
  j.key("threshold_text").value(f.threshold_text);
  j.key("baseline").value(f.baseline);
  j.key("problem").value(f.problem);
  j.key("recommendation").value(f.recommendation);
  j.key("see").begin_array();
  for (const std::string& name : f.see) j.value(name);
  j.end_array();
  j.key("reason").value(f.reason);
  j.key("gain_pct").value(f.gain_pct);
  j.key("gain_bounded_by_path").value(f.gain_bounded_by_path);
  if (!f.gain_withheld.empty()) j.key("gain_withheld").value(f.gain_withheld);
  if (f.path_coverage_pct) j.key("path_coverage_pct").value(*f.path_coverage_pct);
  if (f.gain_path_too_short) j.key("gain_path_too_short").value(true);
  if (f.in_baseline) j.key("in_baseline").value(true);  // the rule fires on the baseline's metrics too
  j.key("offenders").begin_array();
  for (const auto& o : f.offenders)
    j.begin_object().key("label").value(o.label).key("value").value(o.value).end_object();
  j.end_array();
  if (f.step_test) write_step_test(j, *f.step_test);
  j.key("docs").value(f.docs);
  j.key("source").value(f.source);
  j.end_object();
}

// A history baseline's recent values of each gated metric, the current run last.
void write_trends(JsonWriter& j, const std::vector<ReportMetricTrend>& trends) {
  j.key("trends").begin_array();
  for (const ReportMetricTrend& t : trends) {
    j.begin_object().key("metric").value(t.metric).key("unit").value(t.unit).key("points").begin_array();
    for (const ReportTrendPoint& p : t.points)
      j.begin_object()
          .key("commit")
          .value(p.commit)
          .key("value")
          .value(p.value)
          .key("is_current")
          .value(p.is_current)
          .end_object();
    j.end_array().end_object();
  }
  j.end_array();
}

void write_baseline(JsonWriter& j, const ReportBaseline& b) {
  j.key("baseline").begin_object();
  j.key("path").value(b.path);
  j.key("kind").value(b.kind);
  j.key("runs").value(static_cast<std::uint64_t>(b.runs));
  j.key("tool_version").value(b.tool_version);
  j.key("inputs").begin_array();
  for (const auto& in : b.inputs) j.value(in.path);
  j.end_array();
  j.key("gpus").begin_array();
  for (const auto& g : b.gpu_names) j.value(g);
  j.end_array();
  j.key("steps").value(static_cast<std::uint64_t>(b.steps));
  j.key("hardware_differs").value(b.hardware_differs);
  j.key("different_work").value(b.different_work);
  // What the delta tables count over ("step", "unit", "window": their columns' "_per_*"), and
  // whether "changes" is ordered by the change of the time a call (perfgate-report/2.4).
  j.key("changes_basis").value(basis_suffix(b.changes_basis).substr(std::string_view("_per_").size()));
  j.key("changes_by_call").value(b.changes_by_call);
  j.key("kernel_us_per_tflop");
  if (b.kernel_us_per_tflop)
    j.begin_object()
        .key("baseline")
        .value(b.kernel_us_per_tflop->baseline)
        .key("value")
        .value(b.kernel_us_per_tflop->value)
        .end_object();
  else
    j.null();
  j.key("comparability").begin_array();
  for (const ReportComparability& c : b.comparability)
    j.begin_object()
        .key("factor")
        .value(c.factor)
        .key("holds")
        .value(c.holds)
        .key("overlap_pct")
        .value(c.overlap_pct)
        .key("text")
        .value(c.text)
        .end_object();
  j.end_array();
  j.key("metrics").begin_object();  // the baseline's value of each metric, and the change
  for (const auto& m : b.metrics)
    j.key(metric_name(m.metric))
        .begin_object()
        .key("baseline")
        .value(m.baseline)
        .key("delta")
        .value(m.delta)
        .key("ratio")
        .value(m.ratio)
        .end_object();
  j.end_object();
  write_trends(j, b.trends);
  j.end_object();
}

}  // namespace

void write_gate(JsonWriter& j, const ReportModel& r) {
  if (r.verdict) write_verdict(j, *r.verdict);
  if (r.baseline) write_baseline(j, *r.baseline);
  j.key("findings").begin_array();
  for (const auto& f : r.findings) write_finding(j, f);
  j.end_array();
}

}  // namespace perfgate
