#include <algorithm>
#include <charconv>
#include <iterator>
#include <map>
#include <optional>
#include <string_view>
#include <unordered_map>
#include <utility>

#include <fmt/format.h>

#include "analyse/analysis.h"
#include "analyse/metric_values.h"
#include "analyse/run/worker_hold.h"
#include "common/fixed_text.h"
#include "common/version.h"
#include "io/spill_arena.h"
#include "report/build_report.h"
#include "report/neuron_report_tables.h"
#include "report/run_tables.h"

namespace perfgate {
namespace {

double us(TimeNs ns) {
  return static_cast<double>(ns) / 1000.0;
}

ReportWindow report_window(const WorkerAnalysis& w) {
  ReportWindow r;
  r.step_source = step_source_name(w.steps.source);
  r.start_us = us(w.window.start);
  r.end_us = us(w.window.end);
  r.wall_us = us(w.window.length());
  r.steps_total = w.steps.steps.size();
  r.steps_in_window = w.window.steps.size();
  r.iter_start = w.window.first_number;
  r.iter_stop = w.window.last_number;
  return r;
}

std::vector<ReportStep> report_steps(const WorkerAnalysis& w) {
  std::vector<ReportStep> out;
  out.reserve(w.steps.steps.size());  // held with the report: grown by doubling, up to twice the steps
  // Under a clock offset a window step's time is on the GPUs' clock (WorkerAnalysis::gpu_step_times),
  // as the step metrics are.
  bool on_gpu_clock = !w.window.steps.empty() && w.gpu_step_times.size() == w.window.steps.size();
  std::size_t in_window = 0;
  RowHold hold(out, [](ReportStep& r) { r.name = std::string(r.name); });  // a row a step (worker_hold.h)
  for (const Step& s : w.steps.steps) {
    ReportStep r;
    r.name = s.name;
    r.number = s.number;
    r.start_us = us(s.start);
    r.duration_us = us(s.duration());
    if (on_gpu_clock && s.in_window) r.duration_us = us(w.gpu_step_times[in_window++]);
    r.gpu_activities = s.gpu_activities;
    r.in_window = s.in_window;
    if (s.in_window) {
      std::array<double, kBreakdownParts> parts{};
      for (std::size_t i = 0; i < kBreakdownParts; ++i) parts[i] = us(s.breakdown[i]);
      r.breakdown_us = parts;
    }
    out.push_back(std::move(r));
    hold.added();
  }
  hold.finish();
  return out;
}

std::vector<ReportGpu> report_gpus(const WorkerAnalysis& w) {
  std::vector<ReportGpu> out;
  out.reserve(w.gpus.size());
  for (const GpuMetrics& g : w.gpus) {
    ReportGpu r;
    r.worker = w.worker;
    r.device = g.device;
    r.name = g.name;
    if (g.compute_major >= 0)
      r.compute_capability =
          std::to_string(g.compute_major).append(".").append(std::to_string(std::max(0, g.compute_minor)));
    r.architecture = g.architecture;
    r.architecture_inferred = g.architecture_inferred;
    r.sm_count = g.sm_count;
    r.memory_bytes = g.memory_bytes;
    r.kernel_count = g.kernel_count;
    r.kernel_ns = g.kernel_ns;
    r.busy_ns = g.busy_ns;
    r.utilization_pct = g.utilization_pct;
    r.busy_pct = g.busy_pct;
    r.idle_pct = g.idle_pct;
    r.sm_efficiency_pct = g.sm_efficiency_pct;
    r.achieved_occupancy_pct = g.achieved_occupancy_pct;
    r.tensor_core_kernel_time_pct = g.tensor_core_kernel_time_pct;
    out.push_back(std::move(r));
  }
  return out;
}

ReportSystem report_system(const ProfileInfo& info) {
  ReportSystem s;
  s.trace_format = info.format;
  s.family = info.family;
  s.schema_version = info.schema_version;
  s.trace_name = info.trace_name;
  s.rank = info.rank;
  s.world_size = info.world_size;
  s.distributed_backend = info.distributed_backend;
  s.base_time_ns = info.base_time_ns;
  s.attributes = info.attributes;
  return s;
}

// Shares of a total by name, largest first: "fp32 65.4%, bf16 30.1%" ("" names `unnamed`).
template <typename Value>
std::string shares_text(const std::map<std::string, Value>& parts, std::string_view unnamed) {
  double total = 0;
  for (const auto& [name, value] : parts) total += static_cast<double>(value);
  if (total <= 0) return "";
  std::vector<std::pair<double, std::string>> order;
  for (const auto& [name, value] : parts)
    if (value > 0) order.emplace_back(static_cast<double>(value), name.empty() ? std::string(unnamed) : name);
  std::sort(order.begin(), order.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  std::string out;
  for (const auto& [value, name] : order)
    out += fmt::format("{}{} {:.1f}%", out.empty() ? "" : ", ", name, 100 * value / total);
  return out;
}

// A worker's largest matrix work whose FLOPs are not modelled: an op, or the Tensor Core kernels no
// op owns (graph replays without their capture trace); its time `part` is 0 when there is none.
struct Unmodelled {
  std::string_view name;
  TimeNs part = 0;
  double whole = 0;  // the matrix work's time
};

Unmodelled largest_unmodelled(const WorkerAnalysis& w) {
  const ComputeSums& c = w.compute;
  TimeNs unowned = w.tensor_cores.unowned_tc_kernel_ns;
  double whole = static_cast<double>(c.eligible_device) + static_cast<double>(unowned);
  bool replay = unowned > c.largest_unmodelled_ns;
  TimeNs part = replay ? unowned : c.largest_unmodelled_ns;
  if (whole <= 0 || part <= 0) return {};
  return {replay ? "Tensor Core kernels no op owns (graph replays without their capture trace)"
                 : std::string_view(c.largest_unmodelled),
          part, whole};
}

// "vllm::moe_forward (42.0% of the matrix work's time)", appended in place as fmt's "{:.1f}" writes
// the share: made for each worker's roofline note, and only for the largest of the run's.
void append_unmodelled(std::string& out, const Unmodelled& u) {
  char pct[kFixedTextMax];
  out.append(u.name).append(" (");
  out.append(pct, write_fixed(pct, 100 * static_cast<double>(u.part) / u.whole, 1));
  out.append("% of the matrix work's time)");
}

// The run's device families, and its largest matrix work without a FLOP count (the largest of any
// worker's), in one pass: under --max-memory each pass maps the held workers back, and looks after
// them (looked): the pass allocates nothing now, so operator new's looks at the resident set no
// longer trim it (8,192 tiny ranks at --max-memory 24M peaked at 47-60 MB, not 32).
void add_families_and_largest_unmodelled(ReportModel& m, const RunAnalysis& analysis) {
  TimeNs most = 0;
  for (const WorkerAnalysis& w : looked(analysis.workers)) {
    m.families.add(w.info.family);
    if (Unmodelled u = largest_unmodelled(w); u.part > most) {
      most = u.part;
      m.largest_unmodelled_op.clear();
      append_unmodelled(m.largest_unmodelled_op, u);
    }
  }
}

// What MFU is measured against: the precisions the ops ran in.
std::string precision_note(const WorkerAnalysis& w) {
  std::string mix = shares_text(w.compute.ideal_seconds_by_precision, "unknown");
  return mix.empty() ? ""
                     : fmt::format(
                           " MFU and the roofline are against the peaks of the precisions the ops ran in "
                           "(share of the time at the peak: {}).",
                           mix);
}

// The roofline's ceilings as the report states them, or why there are none.
std::string roofline_note(const WorkerAnalysis& w) {
  if (w.roofline.modelled_kernel_ns <= 0 && w.roofline.flop == 0) return "";
  const ComputeSums& c = w.compute;
  if (w.gpus.empty())
    return "No roofline: the profile ran no GPU work; the table has the model's FLOPs and bytes.";
  if (c.peak_name.empty())
    return "No roofline: no entry of rules: gpu_peaks matches this GPU; the table has the model's FLOPs and "
           "bytes "
           "(add the GPU's peaks and memory_gbps in a rule file).";
  if (!c.peak_has_memory)
    return fmt::format(
        "No roofline: the gpu_peaks entry {} has no memory_gbps; the table has the model's FLOPs "
        "and bytes.",
        c.peak_name);
  return fmt::format(
      "Ceilings: {} ({}){}.{}", c.peak_name, c.peak_source.empty() ? "no source given" : c.peak_source,
      c.peak_measured ? ", measured max-achievable figures from a rule file, not a datasheet's" : "",
      precision_note(w));
}

// `r`: a new section, made in place in the report's list (a section moved through values three
// times cost a tenth as much as making it, issue 78). `metrics`: the worker's, copied or taken from
// it (w.metrics is then not read).
void report_worker(ReportWorker& r, const WorkerAnalysis& w, MetricValues metrics) {
  r.name = w.worker;
  r.input_path = w.source_path;
  r.detailed = w.detailed;
  r.detailed_as = w.detailed_as;
  r.window = report_window(w);
  r.metrics = std::move(metrics);
  r.steps = report_steps(w);
  r.dropped_steps.reserve(w.steps.dropped.size());
  for (const DroppedStep& d : w.steps.dropped) r.dropped_steps.push_back({d.name, d.reason});
  r.gpus = report_gpus(w);
  r.system = report_system(w.info);
  r.capture = w.capture;
  r.invariants = w.invariants;
  r.warnings = w.warnings;
  r.roofline_note = roofline_note(w);
  // The HTML shows the note under the roofline: it names the matrix work MFU has no FLOPs for.
  if (Unmodelled u = largest_unmodelled(w); u.part > 0) {
    if (!r.roofline_note.empty()) r.roofline_note += ' ';
    r.roofline_note += "FLOP coverage: the largest matrix work without a FLOP count is ";
    append_unmodelled(r.roofline_note, u);
    r.roofline_note += '.';
  }
  const Timeline& t = w.tables.timeline;
  r.timeline = {t.step, us(t.step_start), us(t.step_duration), t.activities, t.gpu_clock};
  if (w.memory.peak_allocated)
    r.memory_peak = {w.memory.peak_op, w.memory.peak_device, us(w.memory.peak_time),
                     w.memory.totals_from_changes};
  r.tables = worker_tables(w, r);
}

// Each unit's identity: its opening range's name and which occurrence of that name in the window it
// is (1, 2, ... in time order). Keys views into `units`, which outlive the result.
using UnitIdentity = std::pair<std::string_view, std::size_t>;
std::vector<UnitIdentity> unit_identities(const std::vector<InferredUnit>& units) {
  std::unordered_map<std::string_view, std::size_t> seen;
  std::vector<UnitIdentity> out;
  out.reserve(units.size());
  for (const InferredUnit& u : units) out.emplace_back(u.name, ++seen[u.name]);
  return out;
}

std::string unit_name(const UnitIdentity& identity) {
  return inferred_unit_name(identity.first, identity.second);
}

// A unit's work summed over the workers, each list by name (as the workers' lists are sorted).
struct UnitWorkSums {
  std::size_t counted = 0;  // workers that counted it
  std::vector<ReportUnitRow> ops, regions, kernels;
  double gpu_idle_us = 0;
};

ReportUnitRow unit_row(const UnitWorkRow& r) {
  return {r.name, us(r.gpu), us(r.host), static_cast<double>(r.calls)};
}

// `rows` (sorted by name) added into `into` (sorted by name): a merge of two sorted lists, not a map
// of names per unit (a run of 4,000 units spent 3.7% of its instructions in those maps).
void add_unit_rows(std::vector<ReportUnitRow>& into, const std::vector<UnitWorkRow>& rows) {
  std::vector<ReportUnitRow> merged;
  merged.reserve(into.size() + rows.size());
  auto a = into.begin();
  auto b = rows.begin();
  while (a != into.end() || b != rows.end()) {
    if (b == rows.end() || (a != into.end() && a->name < b->name)) {
      merged.push_back(std::move(*a++));
    } else if (a == into.end() || b->name < a->name) {
      merged.push_back(unit_row(*b++));
    } else {
      ReportUnitRow& sum = merged.emplace_back(std::move(*a++));
      sum.gpu_us += us(b->gpu);
      sum.cpu_us += us(b->host);
      sum.calls += static_cast<double>(b->calls);
      ++b;
    }
  }
  into = std::move(merged);
}

// A run's units are told apart by name and occurrence.
struct IdentityHash {
  std::size_t operator()(const UnitIdentity& id) const {
    return std::hash<std::string_view>{}(id.first) * 31 + id.second;
  }
};

// A unit's work for the report: its sums where every worker counted it.
ReportUnitWork unit_work_of(UnitWorkSums& sums, std::size_t workers) {
  ReportUnitWork w;
  if (sums.counted < workers) return w;
  w.counted = true;
  w.ops = std::move(sums.ops);
  w.regions = std::move(sums.regions);
  w.kernels = std::move(sums.kernels);
  w.gpu_idle_us = sums.gpu_idle_us;
  return w;
}

// The run's inferred iterations: where every worker inferred the same family, each unit the slowest
// worker's of the same identity (as run_steps takes each step), over the units all workers have, in
// the first worker's order.
std::optional<ReportInferredIterations> run_inferred(const RunAnalysis& analysis) {
  const InferredIterations* first = nullptr;
  for (const WorkerAnalysis& w : analysis.workers) {
    const std::optional<InferredIterations>& inferred = w.steps.inferred;
    if (!inferred || (first && (inferred->family != first->family || inferred->kind != first->kind)))
      return std::nullopt;
    if (!first) first = &*inferred;
  }
  if (!first) return std::nullopt;
  ReportInferredIterations r;
  r.family = first->family;
  r.kind = inferred_kind_name(first->kind);
  r.key_op = first->key_op;
  r.work_per_unit = first->work_per_unit;
  r.host_work = first->host_work;
  r.steps = analysis.workers.front().steps.source == StepSource::Inferred;
  r.workers = analysis.workers.size();
  // Each identity's slowest unit, and how many workers have it: by name, then by occurrence.
  std::unordered_map<std::string_view, std::vector<std::pair<double, std::size_t>>> slowest;
  // And each identity's work, summed over the workers (where every worker counted it).
  std::unordered_map<UnitIdentity, UnitWorkSums, IdentityHash> work;
  bool with_work = true;
  for (const WorkerAnalysis& w : analysis.workers) {
    r.set_aside = std::max(r.set_aside, w.steps.inferred->set_aside);
    const std::vector<InferredUnit>& units = w.steps.inferred->units;
    std::vector<UnitIdentity> identities = unit_identities(units);
    with_work = with_work && w.unit_work.size() == units.size();
    for (std::size_t i = 0; i < units.size(); ++i) {
      auto& occurrences = slowest[identities[i].first];
      if (occurrences.size() < identities[i].second) occurrences.resize(identities[i].second);
      auto& [longest, workers] = occurrences[identities[i].second - 1];
      longest = std::max(longest, us(units[i].end - units[i].start));
      ++workers;
      if (!with_work || !w.unit_work[i].counted) continue;
      UnitWorkSums& sums = work[identities[i]];
      ++sums.counted;
      add_unit_rows(sums.ops, w.unit_work[i].ops);
      add_unit_rows(sums.regions, w.unit_work[i].regions);
      add_unit_rows(sums.kernels, w.unit_work[i].kernels);
      sums.gpu_idle_us += us(w.unit_work[i].gpu_idle);
    }
  }
  for (const UnitIdentity& identity : unit_identities(first->units)) {
    const auto& [longest, workers] = slowest.at(identity.first)[identity.second - 1];
    if (workers < analysis.workers.size()) continue;
    r.unit_names.push_back(unit_name(identity));
    r.units_us.push_back(longest);
    if (with_work) r.unit_work.push_back(unit_work_of(work[identity], analysis.workers.size()));
  }
  return r;
}

// `value`, copied under `pack` where it packs (io/spill_arena.h): past a quarter of the --max-memory
// budget the copy is in the spill file, not the heap, and without the spare capacity and holes of
// its making. What a run of many workers keeps of each until its report is written (issue 78);
// elsewhere `value` itself, uncopied.
template <class T>
T held(spill::Pack& pack, T value) {
  spill::PackScope scope(pack);
  if (!spill::packing()) return value;
  return T(value);  // made before the scope closes
}

// The same for `value` where it lies: replaced by its copy where `pack` packs, else left alone.
template <class T>
void hold_in_place(spill::Pack& pack, T& value) {
  std::optional<T> copy;
  {
    spill::PackScope scope(pack);
    if (spill::packing()) copy.emplace(value);
  }
  if (copy) value = std::move(*copy);
}

// The run's tables and, of several workers, its steps: they read every worker's analysis.
void add_run_tables(ReportModel& m, const RunAnalysis& analysis, spill::Pack& pack) {
  std::vector<std::int64_t> ranks = rank_ids(analysis);
  if (run_of_snapshots(analysis))  // a folder of snapshots: not ranks (issue 91, item 7)
    m.tables.push_back(memory_snapshots_table(analysis));
  else
    m.tables.push_back(m.families.only(DeviceFamily::Neuron) ? neuron_ranks_table(analysis, ranks)
                                                             : ranks_table(analysis, ranks));
  if (analysis.workers.size() <= 1) return;
  m.tables.push_back(rank_collectives_table(analysis, ranks));
  for (ReportTable& t : collective_tables(analysis, ranks)) m.tables.push_back(std::move(t));
  for (ReportTable& t : job_critical_path_tables(analysis, ranks)) m.tables.push_back(std::move(t));
  for (ReportTable& t : run_sum_tables(analysis.tables)) m.tables.push_back(std::move(t));
  m.tables = held(pack, std::move(m.tables));  // a row per rank in some
  for (const auto& [name, duration] : run_steps(analysis.workers)) {
    ReportStep s;
    s.name = name;
    s.duration_us = duration;
    m.steps.push_back(std::move(s));
  }
}

// `owned`: the same analysis where the report may take it apart (build_report(RunAnalysis&&)). A
// run folder of many ranks held each rank's analysis and its section until its report was written
// (issue 78: 65,536 tiny ranks, 1,596 MiB and 414 k page faults): the run's tables are made first,
// then each worker's section takes its metrics and lets the rest of its analysis go. Not where the
// spill file holds the workers (--max-memory, analyse/run/worker_hold.h): taking them apart would
// write their pages back to the file, and the run's tables made first are on the heap during the
// loop, whose resident set then trims the workers' pages more often (65,536 tiny ranks at
// --max-memory 64M: 27% more page faults, 10 MB more at the peak). There, as before, each worker's
// tables but its collectives go (the run's collectives by rank are made after the workers).
ReportModel build(const std::vector<ReportInput>& inputs, const RunAnalysis& analysis, RunAnalysis* owned,
                  const std::vector<std::string>& rule_sources, const AnalysisOptions& options) {
  spill::Pack pack;
  ReportModel m;
  m.tool_version = kVersion;
  m.inputs = held(pack, inputs);
  m.settings.iter_start = options.window.iter_start;
  m.settings.iter_stop = options.window.iter_stop;
  m.settings.skip_first = options.window.skip_first;
  m.settings.time_start = options.window.time_start;
  m.settings.time_stop = options.window.time_stop;
  m.settings.device = options.device;
  m.settings.key_op = options.key_op;
  m.settings.rule_sources = rule_sources;
  m.metrics = analysis.metrics;
  add_families_and_largest_unmodelled(m, analysis);
  m.capture = analysis.capture;
  m.capture_line = capture_line(m.capture);
  m.run_warnings = analysis.warnings;
  m.invariants = analysis.invariants;
  m.inferred_iterations = run_inferred(analysis);
  bool take_apart = owned && spill::stats().in_use == 0;
  if (take_apart) add_run_tables(m, analysis, pack);
  const std::size_t workers = analysis.workers.size();
  m.workers.reserve(workers);
  // Taken apart, each worker is freed whole as its section is made (WorkerList: a block a worker), and
  // the heap gives its memory to the sections that follow.
  for (std::size_t i = 0; i < workers; ++i) {
    if ((i & 63U) == 63U) spill::trim_if_spilled();  // reads held workers back (analyse/run/worker_hold.h)
    const WorkerAnalysis& w = take_apart ? analysis.workers.front() : analysis.workers[i];
    ReportWorker& section = m.workers.emplace_back();
    if (take_apart)
      report_worker(section, w, std::move(owned->workers.front().metrics));
    else
      report_worker(section, w, w.metrics);
    hold_in_place(pack, section);
    {
      spill::PackScope scope(pack);
      for (auto& g : m.workers.back().gpus) m.gpus.push_back(g);
      for (const Note& warning : w.warnings) m.warnings.push_back({workers > 1 ? w.worker : "", warning});
    }
    if (take_apart) {
      owned->workers.pop_front();
    } else if (owned) {
      WorkerTables& tables = owned->workers[i].tables;
      std::vector<CollectiveRow> collectives = std::move(tables.collectives);
      tables = WorkerTables{};
      tables.collectives = std::move(collectives);
    }
  }
  if (!take_apart) add_run_tables(m, analysis, pack);
  if (m.workers.size() == 1) {
    const std::vector<ReportStep>& steps = m.workers.front().steps;
    // A copy of the section's steps, packed where the section is, where it is long (as RowHold).
    std::optional<spill::PackScope> scope;
    if (steps.size() >= kRowHoldBatch) scope.emplace(pack);
    for (const auto& s : steps)
      if (s.in_window) m.steps.push_back(s);
  }
  return m;
}

}  // namespace

ReportModel build_report(const std::vector<ReportInput>& inputs, const RunAnalysis& analysis,
                         const std::vector<std::string>& rule_sources, const AnalysisOptions& options) {
  return build(inputs, analysis, nullptr, rule_sources, options);
}

ReportModel build_report(const std::vector<ReportInput>& inputs, RunAnalysis&& analysis,
                         const std::vector<std::string>& rule_sources, const AnalysisOptions& options) {
  return build(inputs, analysis, &analysis, rule_sources, options);
}

// Built by appending: one per unit, thousands in a long window, where fmt::format cost 5x as much.
std::string inferred_unit_name(std::string_view name, std::size_t occurrence) {
  std::string out(name);
  if (occurrence == 1) return out;
  char digits[24];
  auto end = std::to_chars(std::begin(digits), std::end(digits), occurrence).ptr;
  out.append(" (").append(digits, end).push_back(')');
  return out;
}

}  // namespace perfgate
