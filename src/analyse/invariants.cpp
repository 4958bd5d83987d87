// The report invariants' checks (common/invariant_catalog.def): each compares numbers the
// analysis computed, withholds the one that cannot be, and says why in the case's own values.
#include "analyse/invariants.h"

#include <algorithm>
#include <cmath>
#include <span>

#include <fmt/format.h>

#include "analyse/worker_analysis.h"

namespace perfgate {
namespace {

// A share printed with one decimal reads 100.0% up to here.
constexpr double kMostPct = 100.05;
// Shares that split a whole may miss it by rounding of the parts' times.
constexpr double kPartitionSlackPct = 0.5;
// Two figures over the same span agree to rounding; windows of a run's workers differ slightly.
constexpr double kSameSpanRelative = 0.01;
// Coverage figures of the same work agree to this many points.
constexpr double kCoverageSlackPct = 1.0;

std::string pct(double v) {
  return fmt::format("{:.1f}%", v);
}

// The precisions MFU's peaks were taken at, by their share of the time at the peak.
std::string precision_mix(const ComputeSums& c) {
  std::vector<std::pair<double, std::string>> order;
  double total = 0;
  for (const auto& [name, seconds] : c.ideal_seconds_by_precision) {
    order.emplace_back(seconds, name.empty() ? "unknown" : name);
    total += seconds;
  }
  if (total <= 0) return "";
  std::sort(order.begin(), order.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  std::string out;
  for (const auto& [seconds, name] : order)
    out += fmt::format("{}{} {:.1f}%", out.empty() ? "" : ", ", name, 100 * seconds / total);
  return out;
}

std::string peaks_of(const ComputeSums& c) {
  return c.peak_name.empty() ? std::string("the GPU's peaks") : fmt::format("the peaks of {}", c.peak_name);
}

// The assumption a share over 100% breaks, in the case's own values: written only for a share that
// is over (issue 78: written for every worker, it was a rank's largest part of the checks).
std::string peak_assumption(Metric metric, const ComputeSums& c) {
  switch (metric) {
    case Metric::ComputeMfuPct: {
      std::string mix = precision_mix(c);
      return fmt::format(
          "{} at the precision each kernel ran in{}: a kernel's precision taken from its name "
          "rather than from what its op ran in, or another GPU than the one named",
          peaks_of(c), mix.empty() ? "" : fmt::format(" (time at the peak: {})", mix));
    }
    case Metric::ComputeMbuPct:
      return fmt::format(
          "{}' memory bandwidth, and the performance model's bytes crossing that memory once "
          "(operands that fit in the L2 cache are read faster)",
          peaks_of(c));
    case Metric::RooflinePct:
      return fmt::format("{} at each op's precision, and the performance model's bytes crossing memory once",
                         peaks_of(c));
    case Metric::NeuronMfuPct:
      return "the Tensor engine's peak the Neuron profile states";
    case Metric::NeuronMbuPct:
      return "the device memory bandwidth the Neuron profile states";
    default:  // every share check_peak_shares checks has its case above
      return "";
  }
}

// Shares of a peak (MFU, MBU, the roofline's): at most 100%.
void check_peak_shares(const MetricInputs& in, MetricValues& m, std::vector<InvariantViolation>& out) {
  struct Share {
    Metric metric;
    std::span<const Metric> with;  // withheld with it
  };
  static constexpr Metric kWithRoofline[] = {Metric::RooflineSavingPct, Metric::RooflineStepSavingPct};
  static constexpr Share kShares[] = {
      {Metric::ComputeMfuPct, {}}, {Metric::ComputeMbuPct, {}}, {Metric::RooflinePct, kWithRoofline},
      {Metric::NeuronMfuPct, {}},  {Metric::NeuronMbuPct, {}},
  };
  for (const Share& s : kShares) {
    std::optional<double> v = m.get(s.metric);
    if (!v || *v <= kMostPct) continue;
    InvariantViolation violation{ReportInvariant::UtilizationAtMostPeak,
                                 fmt::format("{} {} > 100%", metric_name(s.metric), pct(*v)),
                                 {std::string(metric_name(s.metric))},
                                 peak_assumption(s.metric, in.compute)};
    m.set(s.metric, std::nullopt);
    for (Metric with : s.with) {
      if (!m.get(with)) continue;
      violation.withheld.emplace_back(metric_name(with));
      m.set(with, std::nullopt);
    }
    out.push_back(std::move(violation));
  }
}

// TFLOP/s = FLOPs / window; MFU = ideal seconds / GPU seconds. Over one span, TFLOP/s / MFU is the
// GPUs times the FLOPs per ideal second.
void check_throughput(const MetricInputs& in, MetricValues& m, std::vector<InvariantViolation>& out) {
  std::optional<double> tflops = m.get(Metric::ComputeTflopsAchieved);
  std::optional<double> mfu = m.get(Metric::ComputeMfuPct);
  const ComputeSums& c = in.compute;
  if (!tflops || !mfu || *mfu <= 0 || in.gpus.empty() || c.ideal_seconds <= 0) return;
  double gpus = static_cast<double>(in.gpus.size());
  double expected = *mfu / 100.0 * gpus * c.flops / c.ideal_seconds / 1e12;
  if (std::fabs(*tflops - expected) <= kSameSpanRelative * expected) return;
  double window_ms = static_cast<double>(in.window) / 1e6;
  out.push_back(
      {ReportInvariant::ThroughputMatchesMfu,
       fmt::format("{:.3g} TFLOP/s over the window, where MFU {} of {:g} GPU{} gives {:.3g} TFLOP/s", *tflops,
                   pct(*mfu), gpus, gpus == 1 ? "" : "s", expected),
       {std::string(metric_name(Metric::ComputeTflopsAchieved))},
       fmt::format(
           "the window's wall time ({:.3f} ms) is the GPUs' time ({:.3f} ms per GPU, MFU's span): the "
           "host's and the GPUs' clocks agree and every worker's window is the same",
           window_ms, in.gpu_seconds * 1e3 / gpus)});
  m.set(Metric::ComputeTflopsAchieved, std::nullopt);
}

template <std::size_t N>
void check_partition(MetricValues& m, const char* name, const std::array<Metric, N>& parts,
                     std::vector<InvariantViolation>& out) {
  double sum = 0;
  bool any = false;
  for (Metric p : parts)
    if (std::optional<double> v = m.get(p)) {
      sum += *v;
      any = true;
    }
  if (!any || std::fabs(sum - 100.0) <= kPartitionSlackPct) return;
  InvariantViolation v{ReportInvariant::PartitionsAddUp,
                       fmt::format("the {} adds up to {}", name, pct(sum)),
                       {},
                       fmt::format("the parts of the {} exclude each other and cover its whole", name)};
  for (Metric p : parts) {
    if (!m.get(p)) continue;
    v.withheld.emplace_back(metric_name(p));
    m.set(p, std::nullopt);
  }
  out.push_back(std::move(v));
}

template <std::size_t N, typename Part>
std::array<Metric, N> pcts(const std::array<Part, N>& parts) {
  std::array<Metric, N> out{};
  for (std::size_t i = 0; i < N; ++i) out[i] = parts[i].pct;
  return out;
}

void check_partitions(MetricValues& m, std::vector<InvariantViolation>& out) {
  check_partition(m, "breakdown", pcts(kBreakdownMetrics), out);
  check_partition(m, "resources split", pcts(kResourceMetrics), out);
  check_partition(m, "GPU idle time by cause", kIdleCauseMetrics, out);
  std::array<Metric, kPathBounds> bounds{};
  for (std::size_t b = 0; b < kPathBounds; ++b) bounds[b] = kPathBoundMetrics[b].of_path;
  check_partition(m, "critical path by bound", bounds, out);
}

// The roofline's coverage of the kernel time is of the time ops own: where kernels no op owns take
// most of it (graph replays without their capture trace), the coverage and the MBU it gates are
// of a sliver.
void check_coverage(MetricValues& m, std::vector<InvariantViolation>& out) {
  std::optional<double> coverage = m.get(Metric::RooflineCoveragePct);
  std::optional<double> owned = m.get(Metric::TensorCoreJudgedKernelTimePct);
  if (!coverage || !owned || *coverage <= *owned + kCoverageSlackPct) return;
  InvariantViolation v{ReportInvariant::CoverageAgreesWithCount,
                       fmt::format("roofline.coverage_pct {} of the kernel time, where ops own {} of it",
                                   pct(*coverage), pct(*owned)),
                       {std::string(metric_name(Metric::RooflineCoveragePct))},
                       "ops own their kernels' time: kernels no op owns (graph replays without their capture "
                       "trace) are work the performance model never saw"};
  m.set(Metric::RooflineCoveragePct, std::nullopt);
  if (m.get(Metric::ComputeMbuPct)) {
    v.withheld.emplace_back(metric_name(Metric::ComputeMbuPct));
    m.set(Metric::ComputeMbuPct, std::nullopt);
  }
  out.push_back(std::move(v));
}

// A memory snapshot's peak is the highest of the states the replay goes through, the dump's among
// them: a peak below the allocated total at the dump is a replay that does not end where the
// snapshot does (issue 91: a peak in requested bytes below a dump in block bytes).
void check_snapshot_peak(const MetricInputs& in, MetricValues& m, std::vector<InvariantViolation>& out) {
  const std::optional<SnapshotSums::PeakBelow>& below = in.memory.snapshot.peak_below_allocated;
  if (!below || !m.get(Metric::MemorySnapshotPeakBytes)) return;
  InvariantViolation v{
      ReportInvariant::SnapshotPeakAtLeastAllocated,
      fmt::format("device {}'s snapshot peak {} bytes is below the {} bytes allocated at the dump",
                  below->device, below->peak, below->allocated),
      {std::string(metric_name(Metric::MemorySnapshotPeakBytes))},
      "the trace's allocations and frees are the blocks the segments hold at the dump, in "
      "the same unit (block bytes)"};
  m.set(Metric::MemorySnapshotPeakBytes, std::nullopt);
  if (m.get(Metric::MemorySnapshotPeakPct)) {
    v.withheld.emplace_back(metric_name(Metric::MemorySnapshotPeakPct));
    m.set(Metric::MemorySnapshotPeakPct, std::nullopt);
  }
  out.push_back(std::move(v));
}

// What a share of the host link over 100% puts in doubt; `link` names it ("PCIe 4.0 x16, 31.5 GB/s").
std::string link_assumption(const std::string& link) {
  return fmt::format(
      "the host link of rules: gpu_peaks ({} each way) is the one the GPU sits on, and the "
      "copies' times are recorded finer than they are short",
      link);
}

// Host-device copies at most at their host link's bandwidth (rules: gpu_peaks host_link).
void check_link_shares(const MetricInputs& in, MetricValues& m, std::vector<InvariantViolation>& out) {
  for (Metric metric : {Metric::MemcpyH2dLinkPct, Metric::MemcpyD2hLinkPct}) {
    std::optional<double> v = m.get(metric);
    if (!v || *v <= kMostPct) continue;
    out.push_back({ReportInvariant::HostLinkAtMostPeak,
                   fmt::format("{} {} > 100%", metric_name(metric), pct(*v)),
                   {std::string(metric_name(metric))},
                   link_assumption(fmt::format("{:g} GB/s", in.host.host_link_gbps.value_or(0)))});
    m.set(metric, std::nullopt);
  }
}

}  // namespace

std::vector<InvariantViolation> check_metric_invariants(const MetricInputs& in, MetricValues& m) {
  std::vector<InvariantViolation> out;
  check_peak_shares(in, m, out);
  check_throughput(in, m, out);
  check_partitions(m, out);
  check_coverage(m, out);
  check_snapshot_peak(in, m, out);
  check_link_shares(in, m, out);
  return out;
}

std::optional<InvariantViolation> check_roofline_rows(std::vector<RooflineRow>& rows) {
  const RooflineRow* worst = nullptr;
  std::size_t count = 0;
  for (RooflineRow& r : rows) {
    r.withheld = r.has_roofline && !r.family.empty() && r.kernel_ns > 0 && r.roofline_pct() > kMostPct;
    if (!r.withheld) continue;
    ++count;
    if (!worst || r.roofline_pct() > worst->roofline_pct()) worst = &r;
  }
  if (!worst) return std::nullopt;
  bool memory = worst->memory_ps > worst->compute_ps;
  return InvariantViolation{
      ReportInvariant::RooflineRowAtMostPeak,
      fmt::format("{} roofline row{} above 100% of the roofline, the furthest {} {} at {} ({}-bound)", count,
                  count == 1 ? "" : "s", worst->name, worst->input_dims, pct(worst->roofline_pct()),
                  memory ? "memory" : "compute"),
      {fmt::format("the roofline_us, roofline_pct and saving_us of {} row{}", count, count == 1 ? "" : "s")},
      memory ? "the bytes model: the op's bytes cross the GPU's memory once (operands that fit in the L2 "
               "cache are read faster than HBM allows), the model counts only the bytes the op moves, and "
               "the kernel times are finer than 1 µs timestamps"
             : fmt::format("the compute ceiling of the row's precision ({}): the precision it ran in, or a "
                           "model that counts more FLOPs than the kernels do",
                           worst->precision.empty() ? "unknown" : worst->precision)};
}

// A transfer row's copies at most at its host link's bandwidth.
std::optional<InvariantViolation> check_link_rows(std::vector<RooflineRow>& rows) {
  const RooflineRow* worst = nullptr;
  std::size_t count = 0;
  for (RooflineRow& r : rows) {
    r.link_withheld = r.link_ps > 0 && r.copy_ns > 0 && r.host_link_share_pct() > kMostPct;
    if (!r.link_withheld) continue;
    ++count;
    if (!worst || r.host_link_share_pct() > worst->host_link_share_pct()) worst = &r;
  }
  if (!worst) return std::nullopt;
  return InvariantViolation{
      ReportInvariant::HostLinkAtMostPeak,
      fmt::format("{} roofline row{} above 100% of the host link, the furthest {} {} at {} of {} ({:g} GB/s)",
                  count, count == 1 ? "" : "s", worst->name, worst->input_dims,
                  pct(worst->host_link_share_pct()), worst->link, worst->link_gbps),
      {fmt::format("the host_link_share_pct of {} row{}", count, count == 1 ? "" : "s")},
      link_assumption(fmt::format("{}, {:g} GB/s", worst->link, worst->link_gbps))};
}

void set_worker_metrics(WorkerAnalysis& w) {
  MetricInputs in = worker_inputs(w);
  w.metrics = metrics_of(in);
  w.invariants = check_metric_invariants(in, w.metrics);
  if (std::optional<InvariantViolation> rows = check_roofline_rows(w.tables.roofline))
    w.invariants.push_back(std::move(*rows));
  if (std::optional<InvariantViolation> rows = check_link_rows(w.tables.roofline))
    w.invariants.push_back(std::move(*rows));
}

void set_run_metrics(RunAnalysis& run, const std::vector<std::int64_t>& rank_ids,
                     const std::vector<std::int64_t>& missing_ranks) {
  MetricInputs in = run_inputs(run.workers, rank_ids, missing_ranks);
  run.metrics = metrics_of(in);
  run.invariants = check_metric_invariants(in, run.metrics);
  if (std::optional<InvariantViolation> rows = check_roofline_rows(run.tables.roofline))
    run.invariants.push_back(std::move(*rows));
  if (std::optional<InvariantViolation> rows = check_link_rows(run.tables.roofline))
    run.invariants.push_back(std::move(*rows));
}

}  // namespace perfgate
