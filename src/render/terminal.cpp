// The terminal summary: a few labelled lines, the window first, "n/a" where a metric does not apply.
// Each metric on a line is named by its catalog label, as in every other output.
#include <algorithm>
#include <span>

#include <fmt/format.h>

#include "render/escape.h"
#include "render/format.h"
#include "render/render.h"
#include "render/terminal_findings.h"
#include "render/terminal_memory.h"
#include "render/terminal_neuron.h"

namespace perfgate {
namespace {

class Lines {
 public:
  explicit Lines(const TerminalOptions& o) : options_(o) {}
  // `text` may hold names from the trace: its control characters are shown escaped.
  // A label is padded to 13 columns; a longer one (a vocabulary's "dot-product engines") keeps a
  // space before its text.
  void add(std::string_view label, const std::string& text) {
    std::string_view gap = label.size() >= 13 ? " " : "";
    if (options_.color)
      out_ += fmt::format("\x1b[1m{:<13}\x1b[0m{}{}\n", label, gap, terminal_escape(text));
    else
      out_ += fmt::format("{:<13}{}{}\n", label, gap, terminal_escape(text));
  }
  // A line the reader must not miss: its text in bold yellow.
  void warn(std::string_view label, const std::string& text) {
    if (options_.color)
      out_ += fmt::format("\x1b[1m{:<13}\x1b[0m{}\x1b[1;33m{}\x1b[0m\n", label, label.size() >= 13 ? " " : "",
                          terminal_escape(text));
    else
      add(label, text);
  }
  std::string str() const { return out_; }

 private:
  const TerminalOptions& options_;
  std::string out_;
};

std::string join(const std::vector<std::string>& parts) {
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : " · ") + p;
  return out;
}

std::string inputs_line(const ReportModel& r) {
  if (r.inputs.size() == 1)
    return fmt::format("{} ({}, {})", shown_path(r.inputs[0].path), r.inputs[0].format,
                       format_bytes(r.inputs[0].bytes));
  std::uint64_t bytes = 0;
  for (const auto& i : r.inputs) bytes += i.bytes;
  return fmt::format("{} workers ({})", r.inputs.size(), format_bytes(bytes));
}

std::string window_line(const ReportModel& r) {
  const auto& m = r.metrics;
  if (r.workers.size() == 1 && r.workers[0].window.step_source == "none") {
    // Both spans, so that one long host wait reads as what it is (docs/metrics.md, "Capture and GPU
    // spans"): the share of each the GPUs were busy.
    std::string line =
        fmt::format("whole trace (no steps), {} wall", format_duration_us(m.get(Metric::WindowWallUs)));
    if (auto capture = m.get(Metric::WindowCaptureSpanUs))
      line += fmt::format(" · capture span {}", format_duration_us(capture));
    if (auto gpu = m.get(Metric::WindowGpuSpanUs))
      line += fmt::format(
          fmt::runtime(words(" · GPU span {} · GPU busy {} ({} of the capture span, {} of the GPU span)")),
          format_duration_us(gpu), format_duration_us(m.get(Metric::GpuCaptureBusyUs)),
          format_pct(m.get(Metric::GpuBusyOfCapturePct)), format_pct(m.get(Metric::GpuBusyOfGpuSpanPct)));
    return line;
  }
  std::string range;
  if (!r.steps.empty()) range = fmt::format(" ({} to {})", r.steps.front().name, r.steps.back().name);
  bool inferred = !r.workers.empty() && r.workers[0].window.step_source == "inferred";
  return fmt::format("{:.0f} {}steps{}, {} wall", m.get(Metric::WindowStepsInWindow).value_or(0),
                     inferred ? "inferred " : "", range, format_duration_us(m.get(Metric::WindowWallUs)));
}

// "GPU busy 71.8%": the metric's label, then its value by its unit.
std::string labelled(const MetricValues& m, Metric metric) {
  return metric_label(metric) + " " + value_text(m, metric);
}

std::string steps_line(const MetricValues& m) {
  return join({labelled(m, Metric::StepsMeanUs), labelled(m, Metric::StepsMedianUs),
               labelled(m, Metric::StepsP90Us), labelled(m, Metric::StepsMinUs),
               labelled(m, Metric::StepsMaxUs), labelled(m, Metric::StepsCvPct)});
}

std::string gpu_line(const ReportModel& r) {
  const MetricValues& m = r.metrics;
  double count = m.get(Metric::GpuCount).value_or(0);
  // A lane the trace declares a device's holds events perfgate does not read: device work exists.
  bool unread = std::any_of(r.capture.devices.begin(), r.capture.devices.end(), [](const CaptureDevices& d) {
    return d.kind == DeviceKind::Unknown && d.count == 0;
  });
  if (count == 0 && unread)
    return "no device activity read: a device lane holds events perfgate does not read (the notes name "
           "them), so the device metrics are not applicable";
  if (count == 0) return words("no GPU activity: GPU metrics are not applicable");
  std::vector<std::string> parts = {fmt::format("{:.0f} {}", count, words(count == 1 ? "GPU" : "GPUs")),
                                    labelled(m, Metric::GpuUtilizationPct), labelled(m, Metric::GpuBusyPct),
                                    labelled(m, Metric::GpuIdlePct)};
  // CUPTI's SM counters: NVIDIA's alone, so another vendor's devices have no line of them to be n/a in.
  for (Metric counter : {Metric::GpuSmEfficiencyPct, Metric::GpuAchievedOccupancyPct})
    if (counter_shown(r, counter)) parts.push_back(labelled(m, counter));
  return join(parts);
}

// A large run's GPUs in one line: the lowest, median and highest utilization.
std::string gpu_spread_line(const ReportModel& r) {
  const auto& m = r.metrics;
  return fmt::format(
      fmt::runtime(words(
          "{} GPUs: {}, median {}, highest {} (each GPU: the gpus table of the HTML and JSON reports)")),
      r.gpus.size(), labelled(m, Metric::GpuMinUtilizationPct),
      format_pct(m.get(Metric::GpuMedianUtilizationPct)), format_pct(m.get(Metric::GpuMaxUtilizationPct)));
}

// A large run's workers in one line: the slowest and the fastest by mean step (the first on a tie,
// as ranks.slowest and ranks.fastest), and the spread.
std::string workers_spread_line(const ReportModel& r) {
  std::string line = fmt::format("{}", r.workers.size());
  auto mean = [](const ReportWorker* w) { return format_duration_us(w->metric(Metric::StepsMeanUs)); };
  if (const ReportWorker* slow = slowest_worker(r))
    line += fmt::format(": slowest {} (mean step {})", slow->name, mean(slow));
  if (const ReportWorker* fast = fastest_worker(r))
    line += fmt::format(", fastest {} ({})", fast->name, mean(fast));
  if (auto spread = r.metric(Metric::RanksStepSpreadPct))
    line +=
        fmt::format("; spread {} of the median (each worker: the ranks table of the HTML and JSON reports)",
                    format_pct(spread));
  return line;
}

// A GPU's own utilization and busy share, under the labels of the run's.
std::string gpu_detail(const ReportGpu& g, bool name_worker) {
  std::string name = (g.name.empty() ? "unknown device" : g.name) + gpu_architecture_text(g);
  return fmt::format("{}{} {}: {} · {} {} · {} {} · {} kernels", name_worker ? g.worker + " " : "",
                     words("GPU"), g.device, name, metric_label(Metric::GpuUtilizationPct),
                     format_pct(g.utilization_pct), metric_label(Metric::GpuBusyPct), format_pct(g.busy_pct),
                     g.kernel_count);
}

// "Kernel 55.5% · Memcpy 1.1% · ..." for the parts of an exclusive split that apply.
std::string split_line(const MetricValues& m, std::span<const Metric> shares) {
  std::vector<std::string> shown;
  for (Metric share : shares)
    if (m.get(share)) shown.push_back(labelled(m, share));
  return shown.empty() ? "n/a" : join(shown);
}

// The summary's: the shares above 0.05%, largest first ("Kernel 69.9% · Data loader 27.0% · ...").
std::string largest_shares_line(const MetricValues& m, std::span<const Metric> shares) {
  std::vector<Metric> shown;
  for (Metric share : shares)
    if (m.get(share).value_or(0) >= 0.05) shown.push_back(share);
  std::stable_sort(shown.begin(), shown.end(), [&](Metric a, Metric b) { return *m.get(a) > *m.get(b); });
  std::vector<std::string> parts;
  for (Metric share : shown) parts.push_back(labelled(m, share));
  return parts.empty() ? "n/a" : join(parts);
}

std::string tensor_core_line(const MetricValues& m) {
  return join({labelled(m, Metric::TensorCoreKernelTimePct),
               labelled(m, Metric::TensorCoreEligibleKernelTimePct),
               labelled(m, Metric::TensorCoreEfficiencyPct)});
}

// Small runs reach a fraction of a TFLOP/s: three significant digits keep them readable.
std::string format_tflops(std::optional<double> tflops) {
  return tflops ? fmt::format("{:.3g} TFLOP/s", *tflops) : "n/a TFLOP/s";
}

std::string compute_line(const ReportModel& r) {
  const MetricValues& m = r.metrics;
  auto flops = m.get(Metric::ComputeFlops);
  if (!flops) {
    bool xspace = !r.inputs.empty() && std::all_of(r.inputs.begin(), r.inputs.end(),
                                                   [](const auto& i) { return i.format == "xplane"; });
    return xspace
               ? "no FLOPs: the profile carries no HLO module for its kernels, or no dot or convolution ran"
               : "no FLOPs: the trace records no input shapes (record_shapes=True) or no GEMM/conv ops";
  }
  // A withheld number says why where it would be (the Data quality lines say what broke).
  std::string tflops = withheld_text(r, Metric::ComputeTflopsAchieved);
  std::string mfu = withheld_text(r, Metric::ComputeMfuPct);
  std::vector<std::string> parts = {
      fmt::format("{:.3g} FLOP", *flops),
      tflops.empty() ? format_tflops(m.get(Metric::ComputeTflopsAchieved)) : "TFLOP/s " + tflops,
      metric_label(Metric::ComputeMfuPct) + " " + (mfu.empty() ? mfu_text(m) : mfu),
      labelled(m, Metric::ComputeFlopsCoveragePct)};
  if (!r.largest_unmodelled_op.empty()) parts.push_back("largest unmodelled: " + r.largest_unmodelled_op);
  return join(parts);
}

// With graph replays: the share of kernel time they ran and, with a capture, how much of it was
// placed on captured ops.
std::string host_line(const MetricValues& m) {
  std::vector<std::string> parts = {
      labelled(m, Metric::HostRuntimePct),
      fmt::format("{:.0f} sync calls ({})", m.get(Metric::HostSyncCalls).value_or(0),
                  format_duration_us(m.get(Metric::HostSyncUs))),
      labelled(m, Metric::KernelsShortPct), labelled(m, Metric::GpuIdleHostWaitPct) + " of idle"};
  if (m.get(Metric::KernelsCompiledPct).value_or(0) > 0)
    parts.push_back(labelled(m, Metric::KernelsCompiledPct));
  if (m.get(Metric::KernelsGraphReplayPct).value_or(0) > 0) {
    parts.push_back(labelled(m, Metric::KernelsGraphReplayPct));
    if (m.get(Metric::KernelsGraphCaptureCoveragePct))
      parts.push_back(labelled(m, Metric::KernelsGraphCaptureCoveragePct));
  }
  return join(parts);
}

// The first worker's top GPU ops: the few a reader should look at first.
std::string top_ops_line(const ReportModel& r) {
  if (r.workers.empty()) return "";
  const ReportTable* top = find_table(r.workers.front().tables, Table::TopGpuOps);
  if (!top || top->rows.empty()) return "";
  std::vector<std::string> shown;
  for (std::size_t i = 0; i < top->rows.size() && i < 3; ++i) {
    const auto* name = find_cell(*top, i, table_column(Table::TopGpuOps, "name"));
    const auto* share = find_cell(*top, i, table_column(Table::TopGpuOps, "device_share_pct"));
    const auto* name_text = name ? std::get_if<std::string>(name) : nullptr;
    const auto* share_value = share ? std::get_if<double>(share) : nullptr;
    if (name_text) shown.push_back(*name_text + (share_value ? " " + format_pct(*share_value) : ""));
  }
  return join(shown);
}

// A list of segments (torch.cuda.memory_snapshot()): its reader's note says so.
bool snapshot_list_form(const ReportModel& r) {
  for (const ReportWorker& w : r.workers)
    for (const Note& n : w.warnings)
      if (n.id == NoteId::snapshot_list_form) return true;
  return false;
}

}  // namespace

// "6 matched on 4 ranks, Collective waiting 69.2%, Collective bus bandwidth 38.3 GB/s; rank 3 last in
// 100.0%, 300 us after the next", or why there is no split; empty without collectives.
std::string collectives_line(const MetricValues& m) {
  if (m.get(Metric::CommunicationCollectives).value_or(0) == 0) return "";
  double ranks = m.get(Metric::CollectivesRanksTimed).value_or(0);
  if (ranks == 0) return "none timed: no collective kernel is linked to the collectives";
  if (ranks < 2)
    return "timed on one rank: waiting for other ranks cannot be told from transfer without their traces";
  std::string line = fmt::format(
      "{:.0f} matched on {:.0f} ranks, {}", m.get(Metric::CollectivesMatched).value_or(0), ranks,
      join({labelled(m, Metric::CollectivesWaitPct), labelled(m, Metric::CollectivesBusBandwidthGbps)}));
  if (auto rank = m.get(Metric::CollectivesStragglerRank))
    line += fmt::format("; rank {:.0f} last in {}, {} after the next", *rank,
                        format_pct(m.get(Metric::CollectivesStragglerLastPct)),
                        format_duration_us(m.get(Metric::CollectivesStragglerDelayUs)));
  return line;
}

// What bounds the steps: the critical path's length, how much of the step it covers (below rules'
// critical_path.min_coverage_pct it bounds no gain) and its largest shares.
std::string critical_path_line(const MetricValues& m) {
  std::optional<double> length = m.get(Metric::CriticalPathLengthUs);
  if (!length) return "";
  std::vector<std::pair<double, Metric>> shares;
  for (Metric b :
       {Metric::CriticalPathCpuBoundPct, Metric::CriticalPathDataLoadingPct,
        Metric::CriticalPathGpuKernelLaunchOverheadPct, Metric::CriticalPathGpuKernelKernelOverheadPct,
        Metric::CriticalPathGpuComputeBoundPct, Metric::CriticalPathGpuCommunicationBoundPct})
    if (std::optional<double> v = m.get(b); v && *v >= 1) shares.emplace_back(*v, b);
  std::stable_sort(shares.begin(), shares.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  std::string line =
      fmt::format("critical path {} per step, covering {} of the step", format_duration_us(length),
                  format_pct(m.get(Metric::CriticalPathCoveragePct)));
  for (const auto& [share, metric] : shares) line += fmt::format(" · {}", labelled(m, metric));
  return line;
}

namespace {

// The Window line: the steps analysed, or what a snapshot or a Neuron profile holds.
std::string window_text(const ReportModel& r, bool snapshot) {
  if (snapshot && !r.metric(Metric::WindowWallUs))
    return snapshot_list_form(r)
               ? "a PyTorch memory snapshot: the state at the dump (no trace)"
               : "a PyTorch memory snapshot: its recorded trace by allocation order (no timestamps)";
  if (snapshot)
    return fmt::format("a PyTorch memory snapshot: its recorded trace, {}",
                       format_duration_us(r.metric(Metric::WindowWallUs)));
  return shows(r, FamilySection::NeuronWindow) ? neuron_window_text(r) : window_line(r);
}

// The one-screen summary (TerminalOptions::verbose false; issue 93: the bundled example's was 40
// lines, the longest 1,320 characters): what ran, the verdict and the first findings, the headline
// numbers, each line cut to kSummaryColumns, at most kSummaryLines lines.
std::string render_summary(const ReportModel& r, const TerminalOptions& options) {
  auto line = [](std::string_view label, const std::string& text) {
    return cut_to_columns(
               fmt::format("{:<13}{}{}", label, label.size() >= 13 ? " " : "", terminal_escape(text)),
               kSummaryColumns) +
           "\n";
  };
  std::vector<std::string> head, numbers;
  bool snapshot = snapshot_alone(r);
  head.push_back(line("perfgate", fmt::format("{} · {}", r.tool_version, inputs_line(r))));
  if (!r.capture_line.empty()) head.push_back(line("Capture", r.capture_line));
  for (std::size_t i = 0; i < r.run_warnings.size() && i < 2; ++i)
    head.push_back(line("Warning", note_words(r.run_warnings[i])));
  if (r.run_warnings.size() > 2)
    head.push_back(line("Warning", fmt::format("and {} more (--verbose)", r.run_warnings.size() - 2)));
  numbers.push_back(line("Window", window_text(r, snapshot)));
  if (r.metric(Metric::StepsMeanUs)) numbers.push_back(line("Steps", steps_line(r.metrics)));
  std::vector<TerminalLine> family = neuron_terminal_lines(r);
  for (const TerminalLine& l : memory_snapshot_lines(r)) family.push_back(l);
  for (std::size_t i = 0; i < family.size() && i < 4; ++i)
    numbers.push_back(line(family[i].label, family[i].text));
  if (shows(r, FamilySection::GpuSummary) && !snapshot) {
    numbers.push_back(line(words("GPU"), gpu_line(r)));
    numbers.push_back(line("Breakdown", largest_shares_line(r.metrics, kBreakdownShares)));
  }
  if (r.metric(Metric::GpuCount).value_or(0) > 0) {
    numbers.push_back(line("Compute", compute_line(r)));
    if (std::string top = top_ops_line(r); !top.empty()) numbers.push_back(line(words("Top GPU ops"), top));
  }
  if (std::string path = critical_path_line(r.metrics); !path.empty()) numbers.push_back(line("Path", path));
  if (std::string c = collectives_line(r.metrics); !c.empty()) numbers.push_back(line("Collectives", c));
  std::size_t notes = grouped_notes(r).size() + data_quality_lines(r).size();
  std::string more =
      line("More", fmt::format("{}--verbose for every section; the HTML, Markdown and XLSX reports for "
                               "the tables",
                               notes ? fmt::format("{} note{} · ", notes, notes == 1 ? "" : "s") : ""));
  std::string findings = terminal_findings_summary(r, options.color, 3, kSummaryColumns);
  std::size_t finding_lines = static_cast<std::size_t>(std::count(findings.begin(), findings.end(), '\n'));
  // Past the screen the last numbers go first: what ran, the verdict and the findings stay.
  while (!numbers.empty() && head.size() + finding_lines + numbers.size() + 1 > kSummaryLines)
    numbers.pop_back();
  std::string out;
  for (const std::string& l : head) out += l;
  out += findings;
  for (const std::string& l : numbers) out += l;
  return neutralise_workflow_commands(out + more);
}

}  // namespace

std::string render_terminal(const ReportModel& r, const TerminalOptions& options) {
  RenderedReportScope rendered(r);  // labels in the capture's words, withheld numbers said
  if (!options.verbose) return render_summary(r, options);
  Lines out(options);
  bool snapshot = snapshot_alone(r);
  out.add("perfgate", fmt::format("{} · {}", r.tool_version, inputs_line(r)));
  if (!r.capture_line.empty()) out.add("Capture", r.capture_line);
  for (const Note& w : r.run_warnings) out.warn("Warning", note_words(w));
  out.add("Window", window_text(r, snapshot));
  if (r.metric(Metric::StepsMeanUs)) out.add("Steps", steps_line(r.metrics));
  for (const TerminalLine& line : neuron_terminal_lines(r)) out.add(line.label, line.text);
  if (shows(r, FamilySection::GpuSummary) && !snapshot) {
    out.add(words("GPU"), gpu_line(r));
    if (r.gpus.size() <= kListedGpus)
      for (const auto& g : r.gpus) out.add("", gpu_detail(g, r.workers.size() > 1));
    else
      out.add("", gpu_spread_line(r));
    out.add("Breakdown", split_line(r.metrics, kBreakdownShares));
    // A TPU has matrix units, not Tensor Cores: their share takes the line.
    if (!r.metrics.get(Metric::TensorCoreKernelTimePct) && r.metrics.get(Metric::MatrixUnitOpTimePct))
      out.add("Matrix units", labelled(r.metrics, Metric::MatrixUnitOpTimePct));
    else
      out.add(words("Tensor Cores"), tensor_core_line(r.metrics));
    out.add("Resources", split_line(r.metrics, kResourceShares));
  }
  for (const TerminalLine& line : memory_snapshot_lines(r)) out.add(line.label, line.text);
  if (r.metric(Metric::GpuCount).value_or(0) > 0) {
    out.add("Compute", compute_line(r));
    out.add("Host", host_line(r.metrics));
    if (std::string top = top_ops_line(r); !top.empty()) out.add(words("Top GPU ops"), top);
  }
  if (std::string path = critical_path_line(r.metrics); !path.empty()) out.add("Path", path);
  if (std::string line = collectives_line(r.metrics); !line.empty()) out.add("Collectives", line);
  // A Neuron run's workers are on its own lines.
  if (r.workers.size() > 1 && r.workers.size() <= kListedWorkers && shows(r, FamilySection::WorkerLines)) {
    for (const auto& w : r.workers)
      if (!w.metric(Metric::NeuronTotalTimeUs))  // a mixed run's Neuron profiles: on the Neuron lines
        out.add("Worker", fmt::format("{}: {} steps, {}", w.name, w.window.steps_in_window,
                                      labelled(w.metrics, Metric::StepsMeanUs)));
  } else if (r.workers.size() > kListedWorkers && shows(r, FamilySection::WorkerLines)) {
    out.add("Workers", workers_spread_line(r));
  }
  for (const auto& w : r.workers)
    for (const auto& d : w.dropped_steps)
      out.add("Dropped", fmt::format("{}{}: {}", r.workers.size() > 1 ? w.name + " " : "", d.name, d.reason));
  for (const auto& w : grouped_notes(r)) out.add("Note", w);
  // The report's own checks follow the advice, never precede it.
  Lines checks(options);
  for (const std::string& line : data_quality_lines(r)) checks.add("Data quality", line);
  return neutralise_workflow_commands(out.str() + terminal_findings(r, options.color) + checks.str());
}

}  // namespace perfgate
