#include "render/format.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "common/units.h"
#include "render/cell_format.h"
#include "render/short_labels.h"

namespace perfgate {

namespace {
thread_local const ReportModel* rendered_report = nullptr;
}  // namespace

RenderedReportScope::RenderedReportScope(const ReportModel& report) : outer_(rendered_report) {
  rendered_report = &report;
}
RenderedReportScope::~RenderedReportScope() {
  rendered_report = outer_;
}

std::string words(std::string_view fixed) {
  return rendered_report ? in_capture_terms(fixed, rendered_report->terms) : std::string(fixed);
}

std::string value_text(const MetricValues& m, Metric metric) {
  if (rendered_report && &m == &rendered_report->metrics)
    if (std::string withheld = withheld_text(*rendered_report, metric); !withheld.empty()) return withheld;
  return format_value(m.get(metric), metric_info(metric).unit);
}

std::string metric_label(Metric metric) {
  return words(metric_info(metric).label);
}

std::string gpu_architecture_text(const ReportGpu& g) {
  std::vector<std::string> parts;
  // An inferred architecture is a lower bound: a GPU runs kernels built for older ones too (cuBLAS
  // runs sm80_ kernels on Hopper).
  std::string newer = g.architecture_inferred ? " or newer" : "";
  if (!g.architecture.empty()) parts.push_back(g.architecture + newer);
  bool amd = g.architecture.starts_with("gfx");
  if (!amd && !g.compute_capability.empty()) parts.push_back("sm " + g.compute_capability + newer);
  if (g.architecture_inferred) parts.push_back("inferred from kernel names");
  if (parts.empty()) return "";
  std::string text = " (" + parts.front();
  for (std::size_t i = 1; i < parts.size(); ++i) text += ", " + parts[i];
  return text + ")";
}

std::string table_title(const ReportModel& report, std::string_view table) {
  const ReportTable* t = find_table(report.tables, table);
  for (std::size_t i = 0; !t && i < report.workers.size(); ++i)
    t = find_table(report.workers[i].tables, table);
  return t ? t->title : std::string(table);
}

int finding_rank(FindingStatus status) {
  switch (status) {
    case FindingStatus::Fail:
      return 0;
    case FindingStatus::Inconclusive:
      return 1;
    case FindingStatus::Warn:
      return 2;
    default:
      return 3;
  }
}

const ReportWorker* slowest_worker(const ReportModel& r) {
  const ReportWorker* slowest = nullptr;
  std::optional<double> slowest_mean;
  for (const ReportWorker& w : r.workers)
    if (auto mean = w.metric(Metric::StepsMeanUs); mean && (!slowest_mean || *mean > *slowest_mean)) {
      slowest = &w;
      slowest_mean = mean;
    }
  return slowest;
}

const ReportWorker* fastest_worker(const ReportModel& r) {
  const ReportWorker* fastest = nullptr;
  std::optional<double> fastest_mean;
  for (const ReportWorker& w : r.workers)
    if (auto mean = w.metric(Metric::StepsMeanUs); mean && (!fastest_mean || *mean < *fastest_mean)) {
      fastest = &w;
      fastest_mean = mean;
    }
  return fastest;
}

std::size_t window_steps(const ReportModel& r) {
  return static_cast<std::size_t>(
      std::count_if(r.steps.begin(), r.steps.end(), [](const ReportStep& s) { return s.in_window; }));
}

std::string_view changes_basis(const ReportModel& r) {
  if (!r.baseline) return "per step";
  switch (r.baseline->changes_basis) {
    case ChangeBasis::Step:
      return "per step";
    case ChangeBasis::Unit:
      return "per inferred unit";
    case ChangeBasis::Window:
      return "over each run's whole window";
  }
  return "per step";
}

std::string_view changes_order(const ReportModel& r) {
  return r.baseline && r.baseline->changes_by_call ? "largest change of the time a call first (at this run's "
                                                     "calls: the windows hold different work)"
                                                   : "largest first";
}

std::string mfu_text(const MetricValues& metrics) {
  if (auto mfu = metrics.get(Metric::ComputeMfuPct)) return format_pct(mfu);
  auto peak_known = metrics.get(Metric::ComputePeakKnownPct);
  auto coverage = metrics.get(Metric::ComputeFlopsCoveragePct);
  if (peak_known && *peak_known == 0)
    return words("n/a (no peak TFLOP/s is known for these GPUs: add them to the rules' gpu_peaks)");
  if (coverage)
    return fmt::format("n/a (FLOPs known for {} of the matrix work's time)", format_pct(coverage));
  return "n/a";
}

namespace {

std::string workers_text(const std::vector<std::string>& names) {
  if (names.size() == 1) return names.front();
  if (names.size() <= 3) {
    std::vector<std::string> head(names.begin(), names.end() - 1);
    return fmt::format("{} and {}", fmt::join(head, ", "), names.back());
  }
  return fmt::format("{}, {}, {} and {} more workers", names[0], names[1], names[2], names.size() - 3);
}

}  // namespace

std::string note_words(const Note& note) {
  return words(note_text(note));
}

std::vector<std::string> note_words(const std::vector<Note>& notes) {
  std::vector<std::string> out;
  out.reserve(notes.size());
  for (const Note& n : notes) out.push_back(note_words(n));
  return out;
}

std::string note_line(const ReportNote& note) {
  std::string text = note_words(note.note);
  return note.worker.empty() ? text : fmt::format("{}: {}", note.worker, text);
}

std::vector<std::string> note_lines(const std::vector<ReportNote>& notes) {
  std::vector<std::string> out;
  out.reserve(notes.size());
  for (const ReportNote& n : notes) out.push_back(note_line(n));
  return out;
}

namespace {

// Notes that several workers share, said once: "rank-0 and rank-1: ...".
std::vector<std::string> grouped(const std::vector<ReportNote>& notes) {
  std::vector<std::pair<std::string, std::vector<std::string>>> groups;  // the note, its workers
  std::map<std::string, std::size_t, std::less<>> group_of;
  for (const ReportNote& note : notes) {
    std::string text = note_words(note.note);
    auto [it, added] = group_of.try_emplace(text, groups.size());
    if (added) groups.push_back({text, {}});
    if (!note.worker.empty()) groups[it->second].second.push_back(note.worker);
  }
  std::vector<std::string> out;
  for (const auto& [text, names] : groups)
    out.push_back(names.empty() ? text : fmt::format("{}: {}", workers_text(names), text));
  return out;
}

}  // namespace

std::vector<std::string> grouped_notes(const ReportModel& r) {
  return grouped(r.warnings);
}

std::string_view gain_share_of(const ReportModel& r) {
  return window_steps(r) > 0 ? "the step time" : "the window";
}

std::string gain_path_note(const ReportFinding& f) {
  std::string covers = f.path_coverage_pct
                           ? fmt::format(", which covers {} of the step", format_pct(f.path_coverage_pct))
                           : "";
  if (f.gain_bounded_by_path) return "its time on the critical path" + covers;
  if (f.gain_path_too_short)
    return fmt::format("not bounded by the critical path, which covers only {} of the step",
                       format_pct(f.path_coverage_pct));
  return "";
}

std::string signed_change(const ReportMetricChange& c) {
  if (!c.delta) return "–";
  std::string_view unit = metric_info(c.metric).unit;
  if (unit == "%") return fmt::format("{:+.1f} pts", *c.delta);
  std::string change = (*c.delta > 0 ? "+" : "") + format_value(c.delta, unit);
  return c.ratio ? fmt::format("{} ({:+.1f}%)", change, 100 * (*c.ratio - 1)) : change;
}

std::string baseline_mismatch_text(const ReportModel& r) {
  if (!r.baseline) return "";
  const ReportBaseline& b = *r.baseline;
  std::string out;
  if (b.hardware_differs) {
    std::string now;
    for (const ReportGpu& g : r.gpus)
      if (now.find(g.name) == std::string::npos) now += (now.empty() ? "" : ", ") + g.name;
    std::string then;
    for (const std::string& name : b.gpu_names)
      if (then.find(name) == std::string::npos) then += (then.empty() ? "" : ", ") + name;
    out = fmt::format(
        fmt::runtime(
            words("The baseline ran on other GPUs ({} against {}): its changes mix hardware and code.")),
        then.empty() ? "unknown" : then, now.empty() ? "unknown" : now);
  }
  if (!b.tool_version.empty() && b.tool_version != r.tool_version)
    out += fmt::format("{}The baseline was analysed by perfgate {} (this run: {}): definitions may differ.",
                       out.empty() ? "" : " ", b.tool_version, r.tool_version);
  return out;
}

std::string window_work_text(const ReportModel& r) {
  if (!r.baseline) return "";
  const ReportBaseline& b = *r.baseline;
  std::string out = fmt::format("window steps {} → {}", b.steps, window_steps(r));
  for (Metric m : {Metric::KernelsCount, Metric::ComputeFlops}) {
    const ReportMetricChange* c = b.change(m);
    if (!c) continue;
    std::string_view unit = metric_info(m).unit;
    std::string name = m == Metric::KernelsCount ? "kernels" : "FLOPs";
    if (!c->value && !c->baseline)
      out += fmt::format(" · {} n/a", name);
    else
      out += fmt::format(" · {} {} → {}{}", name, format_value(c->baseline, unit),
                         format_value(c->value, unit), c->delta ? " (" + signed_change(*c) + ")" : "");
  }
  if (const auto& c = b.kernel_us_per_tflop)
    out += fmt::format(" · kernel time a TFLOP {} → {} ({})", format_value(c->baseline, "us"),
                       format_value(c->value, "us"), signed_change(*c));
  if (r.inferred_iterations && b.inferred_iterations &&
      r.inferred_iterations->family == b.inferred_iterations->family)
    out += fmt::format(" · inferred iterations {} → {}", b.inferred_iterations->units_us.size(),
                       r.inferred_iterations->units_us.size());
  return out;
}

std::string different_work_text(const ReportModel& r) {
  if (!r.baseline || !r.baseline->different_work) return "";
  return "The two windows hold different work and no steps align them: their totals (the critical path, "
         "each op's and kernel's time) compare different amounts of work, not only the change, and the "
         "gate claims no regression from them. Compare the time a call (delta_per_call_pct in What "
         "changed) or a TFLOP, or give both runs steps (--key-op, --step-pattern; where both repeat the "
         "same top-level range, the step times are compared per inferred iteration).";
}

std::string comparability_line(const ReportComparability& c) {
  return fmt::format("{}{}: {}", c.factor, c.holds ? "" : " (does not hold)", c.text);
}

std::string largest_change_text(const ReportModel& r, std::string_view direction) {
  const ReportTable* t = find_table(r.tables, Table::Changes);
  if (!t) return "";
  auto calls = [](std::optional<double> v) { return v ? format_value(v, "count") : std::string("–"); };
  for (std::size_t row = 0; row < t->rows.size(); ++row) {
    if (text_at(*t, row, table_column(Table::Changes, "direction")) != direction) continue;
    bool by_call = r.baseline && r.baseline->changes_by_call;
    double delta = by_call ? number_at(*t, row, table_column(Table::Changes, "delta_us_by_call"))
                           : number_at(*t, row, table_column(Table::Changes, "delta_us_per_step"));
    std::string name =
        distinct_short_labels({text_at(*t, row, table_column(Table::Changes, "name"))}, 80).front();
    std::optional<double> per_call =
        optional_number_at(*t, row, table_column(Table::Changes, "delta_per_call_pct"));
    return fmt::format(
        "{} ({}) {}{}{}, {} → {} calls", name, text_at(*t, row, table_column(Table::Changes, "item")),
        delta < 0 ? "-" : "+", format_duration_us(std::fabs(delta)),
        by_call && per_call ? fmt::format(" by its time a call ({:+.1f}%)", *per_call) : "",
        calls(optional_number_at(*t, row, table_column(Table::Changes, "baseline_calls_per_step"))),
        calls(optional_number_at(*t, row, table_column(Table::Changes, "calls_per_step"))));
  }
  return "";
}

namespace {

// The invariants of the report's own numbers: a lone worker's (its roofline rows included), else
// the run's.
const std::vector<InvariantViolation>& own_invariants(const ReportModel& r) {
  return r.workers.size() == 1 ? r.workers.front().invariants : r.invariants;
}

}  // namespace

std::vector<std::string> data_quality_lines(const ReportModel& r) {
  std::vector<std::string> lines;
  for (const InvariantViolation& v : own_invariants(r)) lines.push_back(note_words(invariant_warning(v)));
  if (r.workers.size() < 2) return lines;
  std::vector<ReportNote> workers;
  for (const ReportWorker& w : r.workers)
    for (const InvariantViolation& v : w.invariants) workers.push_back({w.name, invariant_warning(v)});
  for (std::string& line : grouped(workers)) lines.push_back(std::move(line));
  return lines;
}

bool counter_shown(const ReportModel& r, Metric metric) {
  bool other_vendor = !r.capture.devices.empty() &&
                      std::none_of(r.capture.devices.begin(), r.capture.devices.end(),
                                   [](const CaptureDevices& d) { return d.vendor == DeviceVendor::Nvidia; });
  return !other_vendor || r.metrics.get(metric).has_value();
}

std::string withheld_text(const ReportModel& r, Metric metric) {
  std::string_view name = metric_info(metric).name;
  for (const InvariantViolation& v : own_invariants(r))
    if (std::find(v.withheld.begin(), v.withheld.end(), name) != v.withheld.end())
      return fmt::format("n/a ({} does not hold: Data quality)", invariant_info(v.invariant).name);
  return "";
}

std::string_view verdict_word(std::string_view status) {
  return status == "fail" ? "FAIL" : status == "warn" ? "PASS with warnings" : "PASS";
}

std::string shown_path(std::string_view path) {
  namespace fs = std::filesystem;
  fs::path given = fs::path(path).lexically_normal();
  std::error_code error;
  fs::path here = fs::current_path(error);
  if (error) return given.string();
  fs::path absolute = given.is_absolute() ? given : (here / given).lexically_normal();
  fs::path relative = absolute.lexically_relative(here);
  // Further up than the working folder's parent, or up to the root ("../work/a.json" from /tmp),
  // ".." says less than the absolute path.
  auto up = std::count(relative.begin(), relative.end(), fs::path(".."));
  bool parent_is_root = here.parent_path() == here.root_path();
  if (relative.empty() || up > 1 || (up == 1 && parent_is_root)) return absolute.string();
  return relative.string();
}

std::string inputs_text(const ReportModel& r, std::size_t max) {
  std::size_t n = std::min(max, r.inputs.size());
  std::vector<std::string> shown(n), folder(n);
  for (std::size_t i = 0; i < n; ++i) {
    shown[i] = shown_path(r.inputs[i].path);
    std::size_t slash = shown[i].rfind('/');
    if (slash != std::string::npos) folder[i] = shown[i].substr(0, slash + 1);
  }
  std::string out;
  for (std::size_t i = 0; i < n; ++i) {
    if (i > 0) out += ", ";
    // A folder said once for the inputs in it, one after the other.
    bool after_same = i > 0 && !folder[i].empty() && folder[i] == folder[i - 1];
    bool before_same = i + 1 < n && !folder[i].empty() && folder[i] == folder[i + 1];
    if (after_same)
      out += shown[i].substr(folder[i].size());
    else if (before_same)
      out += folder[i] + ": " + shown[i].substr(folder[i].size());
    else
      out += shown[i];
    out += " (" + format_bytes(r.inputs[i].bytes) + ")";
  }
  if (r.inputs.size() > n) out += fmt::format(" and {} more", r.inputs.size() - n);
  return out;
}

std::string shown_baseline(const ReportBaseline& baseline) {
  bool one_file = (baseline.kind == "report" || baseline.kind == "profile") &&
                  baseline.path.find(", ") == std::string::npos &&
                  baseline.path.find("://") == std::string::npos;
  return one_file ? shown_path(baseline.path) : baseline.path;
}

}  // namespace perfgate
