// Wires the analysers together for one profile, then for a run of workers.
#include <algorithm>
#include <functional>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "analyse/activity_intervals.h"
#include "analyse/analysis.h"
#include "analyse/attribution.h"
#include "analyse/capture/capture_decision.h"
#include "analyse/classifier.h"
#include "analyse/communication/communication.h"
#include "analyse/communication/parallelism.h"
#include "analyse/critical_path/critical_path.h"
#include "analyse/gpu/architecture.h"
#include "analyse/gpu/flops.h"
#include "analyse/gpu/gpu_utilization.h"
#include "analyse/gpu/idle.h"
#include "analyse/gpu/idle_nvtx.h"
#include "analyse/gpu/launch_delay.h"
#include "analyse/gpu/roofline.h"
#include "analyse/gpu/tc_shapes.h"
#include "analyse/gpu/tensor_cores.h"
#include "analyse/invariants.h"
#include "analyse/memory/memory.h"
#include "analyse/metric_values.h"
#include "analyse/neuron/neuron_metrics.h"
#include "analyse/neuron/neuron_tables.h"
#include "analyse/ops/blocking_copy.h"
#include "analyse/ops/host_activity.h"
#include "analyse/ops/kernels_table.h"
#include "analyse/ops/op_stats.h"
#include "analyse/ops/ops_table.h"
#include "analyse/ops/unit_work.h"
#include "analyse/ops/warmup.h"
#include "analyse/run/worker_hold.h"
#include "analyse/steps/breakdown.h"
#include "analyse/steps/inferred.h"
#include "analyse/steps/iterations.h"
#include "analyse/steps/resources.h"
#include "analyse/steps/step_stats.h"
#include "analyse/steps/steps.h"
#include "analyse/steps/window.h"
#include "analyse/timeline/timeline.h"
#include "analyse/worker_attribution.h"
#include "model/side_by_side.h"

namespace perfgate {
namespace {

// Stretches of the capture the Neuron device timeline shows per lane (neuron_tables.h).
constexpr std::size_t kNeuronTimelineBuckets = 400;

// The stages one after another on this thread where the worker has one, without the task list
// run_side_by_side takes: its std::functions hold these lambdas on the heap (issue 78: 8 of a tiny
// rank's allocations).
template <class... Stage>
void run_stages(unsigned threads, Stage&&... stages) {
  if (threads <= 1) {
    (stages(), ...);
    return;
  }
  run_side_by_side(threads, {std::function<void()>(std::forward<Stage>(stages))...});
}

// The op-level analyses share per-op statistics that are freed when they are done.
// `templates`: the Triton GEMM templates it counted (w.warnings is not its to write: analyse_memory
// runs beside it).
// The window's op calls and those in the backward pass (ops.backward_pct, what tells training from
// inference). Counted only for the PyTorch profiler's traces, which show the autograd engine's
// thread and nodes: an XSpace profile's ops run in no autograd engine, and an nsys export's NVTX
// ranges of a training run need not show its backward pass (h100x2_fsdp_training: all fprop).
// Of the same calls, those that show what the run already applies: fused attention (SDPA) and
// GradScaler's loss scaling (rules: fused_attention_ops, grad_scaler_ops).
OpCallSums op_call_sums(const Profile& profile, const OpStats& stats, const NameClasses& classes) {
  OpCallSums sums;
  if (profile.info.step_marking != StepMarking::ProfilerStepRanges) return sums;
  for (std::size_t e = 0; e < stats.size(); ++e) {
    if (!stats.is_op(e) || !stats.in_window(e)) continue;
    ++sums.calls;
    if (stats.backward(e)) ++sums.backward_calls;
    StringId name = profile.host_events[e].name;
    if (classes.fused_attention_op(name)) ++sums.fused_attention_calls;
    if (classes.grad_scaler_op(name)) ++sums.grad_scaler_calls;
  }
  return sums;
}

void op_stage(const Profile& profile, const Attribution& attribution, NameClasses& classes,
              const CompiledClassification& compiled, WorkerAnalysis& w, TemplateCalls& templates,
              PrecisionOverrides& overrides, bool detailed) {
  OpStats stats(profile, attribution, classes, w.window, w.steps.marker_events);
  ArgumentCache args(profile);
  XlaCosts xla(profile);
  std::vector<float> flops = counted_flops(profile, stats, args, classes, compiled, xla, templates);
  OpTableInputs in{profile,
                   attribution,
                   stats,
                   compiled,
                   classes,
                   args,
                   flops,
                   w.steps.marker_events,
                   {w.window.start, w.window.end}};
  build_op_tables(in, w.tables, detailed);
  w.tables.regions = build_regions(in);
  if (w.steps.inferred)
    w.unit_work = unit_work(profile, attribution, stats, w.steps.marker_events, w.window, *w.steps.inferred);
  TensorCoreShapeReport shapes = tensor_core_shapes(profile, stats, args);
  w.tables.tc_shape_findings = std::move(shapes.findings);
  w.tensor_cores.misaligned_shapes = shapes.misaligned;
  w.tensor_cores.eligible_op_names_without_tc = shapes.ops_not_using_tc;
  w.compute = compute_sums(profile, stats, args, flops, compiled, w.gpus, overrides);
  RooflineResult roofline = roofline_table({profile, stats, compiled, args, flops, w.gpus, xla});
  w.tables.roofline = std::move(roofline.rows);
  w.roofline = roofline.sums;
  CollectiveCallRecorder calls(profile, w.steps, w.window);
  collectives(profile, stats, classes, args, w.communication, w.tables.collectives, calls);
  w.collective_calls = calls.finish();
  w.parallelism = parallelism(profile, stats, classes);
  w.op_calls = op_call_sums(profile, stats, classes);
}

// The analyses over merged activity intervals, the largest transient data, freed afterwards.
// gpu_steps: the host's and the GPU's clocks do not line up (launch_delay.h), so the breakdown,
// resources and the host's shares are of the steps on the GPUs' clock, not of the host's steps: a
// step's host span and its GPU work cannot be placed on one timeline (issues 53, 72).
void interval_stage(const Profile& profile, const Attribution& attribution, NameClasses& classes,
                    WorkerAnalysis& w, const std::vector<Interval>& gpu_steps, const IntervalList& one_offs,
                    bool communication_host_time, const std::vector<DeviceHostLink>& links) {
  ActivityIntervals intervals =
      classify_intervals(profile, attribution, classes, w.steps.marker_events, communication_host_time);
  w.mean_breakdown = window_breakdown(w.steps, w.window, intervals, gpu_steps);
  w.resources = resource_split(gpu_steps.empty() ? window_spans(w.steps, w.window) : gpu_steps, intervals);
  w.tables.iterations = iteration_rows(profile, classes, w.steps, w.window, intervals);
  w.host =
      host_activity(profile, attribution, classes, w.steps, w.window, intervals, gpu_steps, one_offs, links);
  communication_time(intervals, w.window, w.communication);
  if (!gpu_steps.empty()) w.communication.window = w.gpu_steps_span;
}

// The window's step time by the serving phase each step's name states (rules: serving_phases).
ServingPhases serving_phases(const StepDetection& steps, const Window& window,
                             const CompiledClassification& compiled) {
  ServingPhases out;
  for (std::size_t i : window.steps) {
    const Step& s = steps.steps[i];
    add_time(out.steps, s.duration());
    std::string_view phase = compiled.serving_phase(s.name);
    if (phase == "decode") add_time(out.decode, s.duration());
    if (phase == "prefill") add_time(out.prefill, s.duration());
    if (phase == "mixed") add_time(out.mixed, s.duration());
  }
  return out;
}

// GPU work that started before the window's first step (launched before the profiler began, or by
// steps left out): left out of every window metric, and noted where it is 5% or more of the trace's
// GPU time (issue 53: 30% of an H100 Qwen slice's GPU time ran before its one step).
std::optional<Note> work_before_window_note(const Profile& profile, const Window& window) {
  if (window.steps.empty()) return std::nullopt;
  std::uint64_t count = 0;
  TimeNs before = 0, all = 0;
  for (const GpuActivity& a : profile.gpu_activities) {
    add_time(all, a.end - a.start);
    if (a.start >= window.start) continue;
    ++count;
    add_time(before, a.end - a.start);
  }
  if (count == 0 || all <= 0 || static_cast<double>(before) < 0.05 * static_cast<double>(all))
    return std::nullopt;
  return note<NoteId::steps_work_before_window>(
      arg<"count">(count), arg<"ms">(static_cast<double>(before) / 1e6),
      arg<"pct">(100.0 * static_cast<double>(before) / static_cast<double>(all)));
}

// Under a clock offset, what every time figure is over, said once: the GPUs' span of the window's
// steps in place of the host's window.
std::optional<Note> one_span_note(const WorkerAnalysis& w) {
  if (w.gpu_step_times.empty()) return std::nullopt;
  auto ms = [](TimeNs t) { return static_cast<double>(t) / 1e6; };
  return note<NoteId::gpu_clock_offset_one_span>(arg<"gpu_ms">(ms(w.gpu_steps_span)),
                                                 arg<"host_ms">(ms(w.window.length())));
}

// A Neuron device profile: its tables, metrics and warnings; the GPU analyses have nothing to read.
WorkerAnalysis analyse_neuron(const Profile& profile, const CompiledClassification& compiled) {
  WorkerAnalysis w;
  w.worker = profile.worker;
  w.source_path = profile.source_path;
  w.info = profile.info;
  w.warnings = profile.notes;
  w.tables.neuron = neuron_tables(profile);
  neuron_timeline(profile, kNeuronTimelineBuckets, w.tables.neuron);
  w.neuron = neuron_sums(profile, w.tables.neuron);
  w.program = neuron_program(profile);
  for (const NeuronNoteRow& row : w.tables.neuron.notes)
    w.warnings.push_back(note<NoteId::neuron_profile_warning>(
        arg<"category">(row.category), arg<"count">(row.count), arg<"message">(row.message)));
  w.capture = decide_capture(profile, compiled, w);
  set_worker_metrics(w);
  return w;
}

// Why the whole trace is one window, in the words of the format's own step markers.
Note no_steps_warning(const Profile& profile, const AnalysisOptions& options) {
  if (profile.info.step_marking == StepMarking::XSpaceAnnotations && options.step_pattern.empty())
    return note<NoteId::steps_none_xspace>();
  if (!options.step_pattern.empty() || profile.info.step_marking != StepMarking::ProfilerStepRanges)
    return note<NoteId::steps_none_matched>();
  if (profile.info.format == "rocprofv3-json") return note<NoteId::steps_none_rocprof>();
  return note<NoteId::steps_none_profiler>();
}

// What the inferred iterations are, labelled as inferred (docs/metrics.md, "Inferred iterations").
Note inferred_note(const InferredIterations& inferred, bool as_steps) {
  std::vector<double> ms;
  for (const InferredUnit& u : inferred.units) ms.push_back(static_cast<double>(u.end - u.start) / 1e6);
  double median = summarize(std::move(ms))->median;  // units.size() >= 3: never empty
  auto units = arg<"units">(inferred.units.size());
  auto kind = arg<"kind">(inferred_kind_name(inferred.kind));
  auto family = arg<"family">(inferred.family);
  auto median_ms = arg<"median_ms">(median);
  auto per_unit = arg<"per_unit">(inferred.work_per_unit);
  auto host_work = arg<"host_work">(inferred.host_work);
  auto set_aside = arg<"set_aside">(inferred.set_aside);
  if (as_steps)
    return note<NoteId::steps_inferred_iterations>(units, kind, family, median_ms, per_unit, host_work,
                                                   set_aside);
  return note<NoteId::steps_inferred_iterations_found>(units, kind, family, median_ms, per_unit, host_work,
                                                       set_aside, arg<"key_op">(inferred.key_op));
}

// A profile kept to be analysed again whole (WorkerDetail::Later) has at most this many events:
// holding it costs about what its tables would (a tiny rank's eight events), not a large rank's
// trace, which is analysed whole as it comes.
constexpr std::size_t kMostEventsAnalysedLater = 4096;

// The run a worker is analysed for and its place in it: whether it may be detailed (RunCombiner).
struct RunPlace {
  const RunCombiner& run;
  WorkerPosition position;
  WorkerDetail& detail;  // what the run answered
};

// How much of the worker to analyse for its place in the run (WorkerDetail::Whole without one).
WorkerDetail detail_for(const Profile& profile, const WorkerAnalysis& w, const RunPlace* place) {
  if (!place) return WorkerDetail::Whole;
  WorkerDetail detail = place->run.detail_of(place->position, worker_pace_us(w));
  std::size_t events =
      profile.host_events.size() + profile.runtime_calls.size() + profile.gpu_activities.size();
  bool small = events <= kMostEventsAnalysedLater && !profile.memory_snapshot && !profile.xla_hlo;
  if (detail == WorkerDetail::Later && !small) detail = WorkerDetail::Whole;
  return place->detail = detail;
}

// A GPU or CPU profile's analysis; one object returned, so that it is made in the caller's place
// (a second return of another object, the Neuron one, cost a 4.7 kB move a worker: issue 78).
WorkerAnalysis analyse_gpu_profile(const Profile& profile, const CompiledClassification& compiled,
                                   const AnalysisOptions& options, const RunPlace* place) {
  WorkerAnalysis w;
  w.worker = profile.worker;
  w.source_path = profile.source_path;
  w.info = profile.info;
  w.warnings = profile.notes;
  NameClasses classes(compiled, profile);
  Attribution attribution = worker_attribution(profile, compiled, classes, options.threads);
  w.steps = detect_steps(profile, attribution, compiled, options, w.warnings);
  w.window = select_window(w.steps, options.window);
  if (options.window.time_start || options.window.time_stop)
    w.warnings.push_back(time_range_note(w.window, options.window));
  set_capture_spans(profile, w.window);
  w.serving = serving_phases(w.steps, w.window, compiled);
  if (std::optional<Note> before = work_before_window_note(profile, w.window)) w.warnings.push_back(*before);
  // Every GPU activity starting long after its launch: the host's timeline does not line up with
  // the GPU's, and the GPU's use is measured over its own span (launch_delay.h).
  LaunchDelays delays = launch_delays(profile, attribution, classes);
  bool offset = delays.offset_workers > 0;
  if (std::optional<Note> clocks = clock_offset_note(delays); offset && clocks) w.warnings.push_back(*clocks);
  w.over_gpu_span = offset && compiled.clock_offset_over_gpu_span;
  std::vector<Interval> gpu_steps;
  if (w.over_gpu_span) gpu_steps = steps_on_gpu_clock(w.steps, w.window);
  for (Interval span : gpu_steps) w.gpu_step_times.push_back(span.end - span.start);
  if (!gpu_steps.empty()) w.gpu_steps_span = gpu_steps.back().end - gpu_steps.front().start;
  if (std::optional<Note> span = one_span_note(w); span) w.warnings.push_back(*span);
  // A worker the run will not detail (or will only if no faster one comes): the tables its run
  // would let go are not made (issue 78: most of a run folder's ranks).
  bool detailed = detail_for(profile, w, place) == WorkerDetail::Whole;
  run_stages(
      options.threads, [&] { w.gpus = gpu_metrics(profile, w.window, classes, offset); },
      [&] {
        w.tensor_cores = tensor_core_sums(profile, attribution, classes, w.window,
                                          compiled.tc_share_counts_unlaunched_kernels);
        w.tensor_cores.min_judged_pct = compiled.tc_min_judged_pct;
      });
  describe_architectures(profile, compiled, w.gpus, w.warnings);
  std::vector<DeviceHostLink> links;
  for (const GpuMetrics& g : w.gpus)
    if (const GpuPeak* peak = compiled.gpu_peak(g.name); peak && peak->host_link_gbps)
      links.push_back({g.device, *peak->host_link_gbps});
  // Four groups that read the profile and write disjoint parts of `w` (analyse_memory alone adds
  // warnings); NameClasses is safe to share.
  TemplateCalls templates;
  PrecisionOverrides overrides;
  // One-offs (warm-up, outlier calls, teardown, the profiler): what the steady-state shares leave out.
  // Teardown follows the capture's last GPU activity; without one, no call is teardown.
  IntervalList one_offs;
  TimeNs last_gpu_end =
      w.window.gpu_end > w.window.gpu_start ? w.window.gpu_end : std::numeric_limits<TimeNs>::max();
  Warmup warmup = warmup_in_window(profile, attribution, classes, window_spans(w.steps, w.window),
                                   w.window.host_start, last_gpu_end, one_offs);
  // The longest first (the critical paths, whose steps are split over the threads again), so that
  // the shorter ones fill in beside it.
  run_stages(
      options.threads,
      [&] {
        if (options.step_timeline)
          w.tables.timeline =
              step_timeline(profile, attribution, classes, w.steps, w.window, gpu_steps, detailed);
        w.critical_path = critical_paths(profile, attribution, classes, w.steps, w.window,
                                         static_cast<TimeNs>(compiled.critical_path_max_kernel_gap_us * 1000),
                                         w.tables.timeline, options.threads, detailed);
      },
      [&] { op_stage(profile, attribution, classes, compiled, w, templates, overrides, detailed); },
      [&] {
        interval_stage(profile, attribution, classes, w, gpu_steps, one_offs,
                       compiled.communication_host_time, links);
      },
      [&] {
        analyse_memory(profile, w.window, w);
        build_kernel_tables(profile, attribution, classes, compiled.fused_names, w.steps, w.window,
                            options.table_rows, w.tables, detailed);
        QueuedWork queued = queued_work(profile, attribution);
        w.idle = idle_breakdown(profile, attribution, queued, w.window);
        w.tables.gpu_gaps = gpu_gaps(profile, attribution, queued, classes, w.window, w.steps.marker_events,
                                     w.idle, offset, one_offs);
      });
  w.idle.delays = delays;
  if (w.memory.snapshot.devices > 0) w.memory.snapshot.device_memory = options.device_memory;
  if (w.host.longest_blocking_copy && w.host.longest_blocking_copy->host_wait >= kNotedBlockingCopyNs &&
      w.host.longest_blocking_copy->host_wait >= w.host.step_time / 20)  // 5% of the window
    w.warnings.push_back(blocking_copy_note(*w.host.longest_blocking_copy));
  w.host.warmup = std::move(warmup);
  if (std::optional<Note> setup = warmup_note(w.host.warmup, w.host.step_time)) w.warnings.push_back(*setup);
  for (Note& n : one_off_notes(w.host.warmup, w.host.step_time)) w.warnings.push_back(std::move(n));
  if (std::optional<Note> idle = nvtx_idle_note(w.idle)) w.warnings.push_back(*idle);
  if (std::optional<Note> precision = precision_source_note(overrides, w.compute.flops))
    w.warnings.push_back(*precision);
  if (std::optional<Note> untyped = untyped_precision_note(overrides, w.compute.flops))
    w.warnings.push_back(*untyped);
  if (templates.without_shapes > 0)
    w.warnings.push_back(note<NoteId::ops_triton_without_shapes>(
        arg<"count">(templates.without_shapes), arg<"first">(templates.first_without_shapes)));
  w.has_runtime_calls = !profile.runtime_calls.empty();
  w.has_devices = !profile.devices.empty();
  // A memory snapshot has no steps by nature: its window is its recorded trace.
  if (w.steps.source == StepSource::None && options.key_op.empty() &&
      options.step_pattern != kInferredStepPattern && !profile.memory_snapshot)
    w.warnings.push_back(no_steps_warning(profile, options));
  if (w.steps.inferred)
    w.warnings.push_back(inferred_note(*w.steps.inferred, w.steps.source == StepSource::Inferred));
  w.capture = decide_capture(profile, compiled, w);
  set_worker_metrics(w);
  return w;
}

WorkerAnalysis analyse_with(const Profile& profile, const CompiledClassification& compiled,
                            const AnalysisOptions& options, const RunPlace* place = nullptr) {
  if (profile.info.family == DeviceFamily::Neuron) return analyse_neuron(profile, compiled);
  return analyse_gpu_profile(profile, compiled, options, place);
}

}  // namespace

std::vector<std::int64_t> rank_ids(const RunAnalysis& run) {
  std::vector<std::int64_t> ranks;
  for (std::size_t i = 0; i < run.workers.size(); ++i) {
    look_after_worker(i);
    ranks.push_back(run.workers[i].info.rank.value_or(static_cast<std::int64_t>(i)));
  }
  return ranks;
}

const char* step_source_name(StepSource source) {
  switch (source) {
    case StepSource::ProfilerStep:
      return "profiler-step";
    case StepSource::StepPattern:
      return "step-pattern";
    case StepSource::KeyOp:
      return "key-op";
    case StepSource::Inferred:
      return "inferred";
    case StepSource::None:
      break;
  }
  return "none";
}

WorkerAnalysis analyse_profile(const Profile& profile, const Classification& classification,
                               const AnalysisOptions& options) {
  CompiledClassification compiled(classification);
  return analyse_with(profile, compiled, options);
}

WorkerAnalyser::WorkerAnalyser(const Classification& classification, const AnalysisOptions& options)
    : compiled_(std::make_unique<const CompiledClassification>(classification)), options_(options) {}

WorkerAnalyser::~WorkerAnalyser() = default;

WorkerAnalysis WorkerAnalyser::operator()(const Profile& profile) const {
  return analyse_with(profile, *compiled_, options_);
}

WorkerAnalysis WorkerAnalyser::operator()(const Profile& profile, const RunCombiner& run,
                                          WorkerPosition position, WorkerDetail& detail) const {
  detail = WorkerDetail::Whole;
  RunPlace place{run, position, detail};
  return analyse_with(profile, *compiled_, options_, &place);
}

RunAnalysis combine_workers(std::vector<WorkerAnalysis> workers) {
  RunCombiner combiner(0);  // every worker keeps its tables
  for (std::size_t i = 0; i < workers.size(); ++i) combiner.add({i, 0}, std::move(workers[i]));
  return combiner.finish();
}

}  // namespace perfgate
