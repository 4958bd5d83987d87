// Each analysis's sums type adds itself (its operator+=, beside the analysis): a run's sums are its
// workers' added up. Two values with every field set to a distinct non-zero value are added, and
// the sum is checked field by field against values worked out by hand.
//
// fields() below lists each type's fields through a structured binding, which must name every
// field: a field added to a type stops this file compiling ("N names provided" / "only M
// provided") until it is listed here and its sum checked, so a new field cannot silently sum to
// 0 in a run (as IdleSums::by_cause once did, with a field-by-field add() in run_metrics.cpp).
#include <gtest/gtest.h>

#include <limits>
#include <tuple>

#include "analyse/analysis.h"

namespace perfgate {
namespace {

auto fields(const HostActivitySums::Copies& s) {
  const auto& [count, bytes, copy_time, linked_time, link_ps] = s;
  return std::tuple(count, bytes, copy_time, linked_time, link_ps);
}

auto fields(const OneOff& s) {
  const auto& [time, count, name, longest, start] = s;
  return std::tuple(time, count, name, longest, start);
}

auto fields(const HostActivitySums& s) {
  const auto& [sync_calls, sync_time, runtime_time, step_time, kernels, short_kernels, without_launch,
               kernel_time, graph_launches, graph_kernel_time, graph_placed, graph_workers, compiled_time,
               median_launch_gap, h2d, d2h, d2d, all_copies, pageable, host_link_gbps, sync_copies,
               sync_memsets, blocking_copy, warmup, one_off_runtime_time] = s;
  // The longest blocking copy, by its host wait (-1: none).
  TimeNs blocking_wait = blocking_copy ? blocking_copy->host_wait : -1;
  return std::tuple(sync_calls, sync_time, runtime_time, step_time, kernels, short_kernels, without_launch,
                    kernel_time, graph_launches, graph_kernel_time, graph_placed, graph_workers,
                    compiled_time, median_launch_gap, fields(h2d), fields(d2h), fields(d2d),
                    fields(all_copies), fields(pageable), host_link_gbps, sync_copies, sync_memsets,
                    blocking_wait, warmup.time, warmup.setup_time, warmup.name, warmup.longest, warmup.start,
                    warmup.is_range, warmup.setup_union, fields(warmup.outliers), fields(warmup.teardown),
                    fields(warmup.profiler), one_off_runtime_time);
}

auto fields(const ParallelismSums& s) {
  const auto& [data_parallel, ddp, nccl] = s;
  return std::tuple(data_parallel, ddp, nccl);
}

auto fields(const TensorCoreSums& s) {
  const auto& [kernel, tc, op, unowned, unowned_tc, by_precision, narrow, tensorrt, units_stated, matrix_unit,
               min_judged, self, total, eligible_tc, layout, fp32, half, unknown, without_fp32, without_half,
               without_unknown, ops_without_tc, names_without_tc, misaligned] = s;
  return std::tuple(kernel, tc, op, unowned, unowned_tc, by_precision, narrow, tensorrt, units_stated,
                    matrix_unit, min_judged, self, total, eligible_tc, layout, fp32, half, unknown,
                    without_fp32, without_half, without_unknown, ops_without_tc, names_without_tc,
                    misaligned);
}

auto fields(const ComputeSums& s) {
  const auto& [flops, at_known_peak, ideal_seconds, by_precision, eligible, counted, unmodelled,
               unmodelled_ns, peak_name, gpus, min_coverage, source, measured, has_memory] = s;
  return std::tuple(flops, at_known_peak, ideal_seconds, by_precision, eligible, counted, unmodelled,
                    unmodelled_ns, peak_name, gpus, min_coverage, source, measured, has_memory);
}

auto fields(const RooflineSums& s) {
  const auto& [modelled, unmodelled, matrix, matrix_modelled, peaked, roofline, saving, flop, bytes, memory] =
      s;
  return std::tuple(modelled, unmodelled, matrix, matrix_modelled, peaked, roofline, saving, flop, bytes,
                    memory);
}

auto fields(const LaunchDelays& s) {
  const auto& [launched, min, median, skew, offset_workers] = s;
  return std::tuple(launched, min, median, skew, offset_workers);
}

auto fields(const IdleSums& s) {
  const auto& [host_wait, kernel_wait, other, by_cause, longest_gap, long_gaps, nvtx_range, nvtx_outermost,
               nvtx_range_idle, delays] = s;
  return std::tuple(host_wait, kernel_wait, other, by_cause, longest_gap, long_gaps, nvtx_range,
                    nvtx_outermost, nvtx_range_idle, fields(delays));
}

auto fields(const CommunicationSums& s) {
  const auto& [kernel_time, overlapped, window, collectives, bytes, bytes_known] = s;
  return std::tuple(kernel_time, overlapped, window, collectives, bytes, bytes_known);
}

auto fields(const SnapshotSums& s) {
  const auto& [devices, peak, peak_device, reserved, allocated, split_inactive, largest_inactive, ooms,
               largest_oom, capacity, expandable, device_memory, untimed, below] = s;
  auto below_fields = below ? std::tuple(below->device, below->peak, below->allocated)
                            : std::tuple(std::int32_t{-1}, std::int64_t{-1}, std::uint64_t{0});
  return std::tuple(devices, peak, peak_device, reserved, allocated, split_inactive, largest_inactive, ooms,
                    largest_oom, capacity, expandable, device_memory, untimed, below_fields);
}

auto fields(const MemorySums& s) {
  const auto& [allocated, pct, reserved, device, peak_time, op, from_changes, snapshot] = s;
  return std::tuple(allocated, pct, reserved, device, peak_time, op, from_changes, fields(snapshot));
}

using Copies = HostActivitySums::Copies;

BlockingCopy blocking_copy(TimeNs host_wait) {
  BlockingCopy c;
  c.host_wait = host_wait;
  return c;
}

TEST(SumsTest, HostActivityAddsCountsTimesAndCopiesAndKeepsItsMedian) {
  HostActivitySums a{1,
                     2,
                     3,
                     4,
                     5,
                     6,
                     7,
                     8,
                     25,
                     26,
                     27,
                     28,
                     29,
                     9,
                     {10, 11, 12, 40, 41},
                     {13, 14, 15, 42, 43},
                     {16, 17, 18, 44, 45},
                     {19, 20, 21, 46, 47},
                     {22, 48, 49, 50, 51},
                     31.5,
                     23,
                     24,
                     blocking_copy(30),
                     Warmup{31, 32, "a", 5, 1, false, 37, OneOff{33, 1, "oa", 6, 2},
                            OneOff{34, 2, "ta", 7, 3}, OneOff{35, 3, "pa", 8, 4}},
                     36};
  HostActivitySums b{101,
                     102,
                     103,
                     104,
                     105,
                     106,
                     107,
                     108,
                     125,
                     126,
                     127,
                     128,
                     129,
                     109,
                     {110, 111, 112, 140, 141},
                     {113, 114, 115, 142, 143},
                     {116, 117, 118, 144, 145},
                     {119, 120, 121, 146, 147},
                     {122, 148, 149, 150, 151},
                     15.75,
                     123,
                     124,
                     blocking_copy(130),
                     Warmup{131, 132, "b", 9, 2, true, 137, OneOff{133, 4, "ob", 3, 5},
                            OneOff{134, 5, "tb", 9, 6}, OneOff{135, 6, "pb", 8, 7}},
                     136};
  a += b;
  // Every field is a + b, but the median launch gap: medians do not add (the run sets its own).
  EXPECT_EQ(fields(a),
            fields(HostActivitySums{102, 104, 106, 108, 110, 112, 114, 116, 150, 152, 154, 156, 158, 9,
                                    Copies{120, 122, 124, 180, 182}, Copies{126, 128, 130, 184, 186},
                                    Copies{132, 134, 136, 188, 190}, Copies{138, 140, 142, 192, 194},
                                    Copies{144, 196, 198, 200, 202},
                                    15.75,  // the slower link
                                    146, 148,
                                    blocking_copy(130),  // the longer
                                    // warm-up times and counts add; the longest one is b's;
                                    // of each kind of one-off, the longer one's (a's where
                                    // equal)
                                    Warmup{162, 164, "b", 9, 2, true, 174, OneOff{166, 5, "oa", 6, 2},
                                           OneOff{168, 7, "tb", 9, 6}, OneOff{170, 9, "pa", 8, 4}},
                                    172}));
}

TEST(SumsTest, TimesSaturateInsteadOfOverflowing) {
  constexpr TimeNs kMax = std::numeric_limits<TimeNs>::max();
  HostActivitySums a;
  a.sync_time = kMax - 1;
  a.h2d.time = kMax;
  HostActivitySums b;
  b.sync_time = 5;
  b.h2d.time = 1;
  a += b;
  EXPECT_EQ(a.sync_time, kMax);
  EXPECT_EQ(a.h2d.time, kMax);
}

TEST(SumsTest, ParallelismAddsCalls) {
  ParallelismSums a{1, 2, 3};
  a += ParallelismSums{10, 20, 30};
  EXPECT_EQ(fields(a), fields(ParallelismSums{11, 22, 33}));
}

TEST(SumsTest, OpCallsAdd) {
  OpCallSums a{10, 4, 2, 1};
  a += OpCallSums{5, 1, 1, 0};
  EXPECT_EQ(a.calls, 15u);
  EXPECT_EQ(a.backward_calls, 5u);
  EXPECT_EQ(a.fused_attention_calls, 3u);
  EXPECT_EQ(a.grad_scaler_calls, 1u);
}

TEST(SumsTest, TensorCoresAddTimesAndCallsAndKeepTheLargerDistinctCounts) {
  TensorCoreSums a{1,  2,  3,  4,  5, {{"bf16", 6}}, 20, 21, 18, 19, 50, 7, 8, 9, 10, 11, 12, 13, 14,
                   15, 16, 17, 50, 3};
  TensorCoreSums b{100,  200,  300,  400,  500,  {{"bf16", 600}, {"fp8", 700}},
                   2000, 2100, 1800, 1900, 40,   700,
                   800,  900,  1000, 1100, 1200, 1300,
                   1400, 1500, 1600, 1700, 40,   9};
  a += b;
  // Distinct op names and shapes cannot be summed across workers: the larger count (50, 9); the
  // precision times add by precision; the strictest judged threshold (50) is kept.
  EXPECT_EQ(fields(a), fields(TensorCoreSums{101,  202,  303,  404,  505,  {{"bf16", 606}, {"fp8", 700}},
                                             2020, 2121, 1818, 1919, 50,   707,
                                             808,  909,  1010, 1111, 1212, 1313,
                                             1414, 1515, 1616, 1717, 50,   9}));
}

TEST(SumsTest, ComputeAddsFlopsTimesAndGpusAndKeepsTheFirstPeakAndStrictestCoverage) {
  ComputeSums a{1e12, 5e11, 0.25, {{"bf16", 0.25}}, 1000, 600, "aten::mm", 10, "", 2, 50, "", false, false};
  ComputeSums b{3e12,
                2e12,
                0.5,
                {{"bf16", 0.125}, {"fp8", 0.375}},
                3000,
                2000,
                "vllm::moe_forward",
                20,
                "A100",
                4,
                40,
                "datasheet",
                true,
                true};
  a += b;
  // The first known peak comes with its source and flags; the ideal time adds by precision; the
  // largest unmodelled op is the worker's with the most time.
  EXPECT_EQ(fields(a), fields(ComputeSums{4e12,
                                          2.5e12,
                                          0.75,
                                          {{"bf16", 0.375}, {"fp8", 0.375}},
                                          4000,
                                          2600,
                                          "vllm::moe_forward",
                                          20,
                                          "A100",
                                          6,
                                          50,
                                          "datasheet",
                                          true,
                                          true}));
  ComputeSums c{0, 0, 0, {}, 0, 0, "", 0, "H100", 1, 30, "mine", false, false};
  c += b;
  EXPECT_EQ(fields(c), fields(ComputeSums{3e12,
                                          2e12,
                                          0.5,
                                          {{"bf16", 0.125}, {"fp8", 0.375}},
                                          3000,
                                          2000,
                                          "vllm::moe_forward",
                                          20,
                                          "H100",
                                          5,
                                          40,
                                          "mine",
                                          false,
                                          false}));
}

TEST(SumsTest, RooflineAddsTimesFlopsAndBytes) {
  RooflineSums a{1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  a += RooflineSums{10, 20, 30, 40, 50, 60, 70, 80, 90, 100};
  EXPECT_EQ(fields(a), fields(RooflineSums{11, 22, 33, 44, 55, 66, 77, 88, 99, 110}));
}

TEST(SumsTest, IdleAddsTimesByCauseAndGapsAndKeepsTheLongestGap) {
  // Launch delays: counts and offset workers add, the least delay and skew are the least, the
  // median the largest worker's.
  // The NVTX range named is the one with more idle time of its own (a's 50 over b's 40).
  IdleSums a{1, 2, 3, {4, 5, 6, 7, 8, 9, 10, 11, 12}, 900, 10, "ra", "oa", 50, {11, 12, 13, 14, 1}};
  IdleSums b{100,  200,
             300,  {400, 500, 600, 700, 800, 900, 1000, 1100, 1200},
             700,  20,
             "rb", "ob",
             40,   {110, 120, 130, -140, 0}};
  a += b;
  EXPECT_EQ(fields(a), fields(IdleSums{101,
                                       202,
                                       303,
                                       {404, 505, 606, 707, 808, 909, 1010, 1111, 1212},
                                       900,
                                       30,
                                       "ra",
                                       "oa",
                                       50,
                                       {121, 12, 130, -140, 1}}));
  IdleSums none{1, 1, 1, {}, std::nullopt, 0, "", "", 0, {}};
  none += b;
  EXPECT_EQ(none.longest_gap, 700);  // a side without gaps takes the other's longest
}

TEST(SumsTest, CommunicationAddsTimesCallsAndBytes) {
  CommunicationSums a{1, 2, 3, 4, 5, false};
  a += CommunicationSums{10, 20, 30, 40, 50, true};
  EXPECT_EQ(fields(a), fields(CommunicationSums{11, 22, 33, 44, 55, true}));
}

TEST(SumsTest, MemoryKeepsTheHigherAllocatedPeakAndTheHigherReservedPeak) {
  // Memory snapshots: a's device 0 peaks at 100 with one oom, b's device 1 at 200 with expandable
  // segments. Together: 2 devices, the peak 200 on device 1, bytes at the end summed (10 + 20 reserved,
  // 5 + 6 allocated, 3 + 1 split inactive, 1 + 0 ooms, 0 + 2 expandable), the largest block, request
  // and capacity the larger (9, 7, 20); whichever side's allocator peak is higher.
  // The first device whose peak is below its allocated total is kept: b's device 1.
  SnapshotSums snap_a{1, 100, 0, 10, 5, 3, 4, 1, 7, 20, 0, 0, false, std::nullopt};
  SnapshotSums snap_b{1, 200, 1, 20, 6, 1, 9, 0, 0, 0, 2, 80, false, SnapshotSums::PeakBelow{1, 200, 256}};
  SnapshotSums snap_sum{
      2, 200, 1,  30, 11, 4,     9,
      1, 7,   20, 2,  80, false, SnapshotSums::PeakBelow{1, 200, 256}};  // device memory: the larger
  MemorySums a{1000, 10.0, 5000, 0, 7, "aten::mm", false, snap_a};
  MemorySums b{2000, 20.0, 3000, 1, 9, "aten::conv2d", true, snap_b};
  MemorySums sum = a;
  sum += b;
  // b's peak is higher: its whole peak (GPU, time, op, how its totals were counted), with a's reserved.
  EXPECT_EQ(fields(sum), fields(MemorySums{2000, 20.0, 5000, 1, 9, "aten::conv2d", true, snap_sum}));
  sum = b;
  sum += a;
  EXPECT_EQ(fields(sum), fields(MemorySums{2000, 20.0, 5000, 1, 9, "aten::conv2d", true, snap_sum}));
}

// A worker with FLOPs known for 10% of its eligible device time: below the rules' 50%, so MFU is n/a
// for it, and for a run of two such workers (their coverage is still 10%). The run once summed
// every ComputeSums field but the bound, and showed an MFU of 100 * 2 * 0.1 s / (1 s * 2 GPUs) = 10%.
WorkerAnalysis worker_with_little_flops_coverage() {
  WorkerAnalysis w;
  w.window.start = 0;
  w.window.end = 1'000'000'000;  // 1 s
  w.gpus.resize(1);
  w.compute = ComputeSums{1e12, 1e12, 0.1, {{"fp16", 0.1}}, 1000, 100, "aten::conv2d", 900, "V100",
                          1,    50,   "",  false,           false};
  return w;
}

TEST(SumsTest, RunOfWorkersKeepsTheMfuCoverageBound) {
  RunAnalysis run =
      combine_workers({worker_with_little_flops_coverage(), worker_with_little_flops_coverage()});
  EXPECT_EQ(run.metrics.get(Metric::ComputeFlopsCoveragePct), 10.0);
  EXPECT_EQ(run.metrics.get(Metric::ComputeMfuPct), std::nullopt);
  EXPECT_EQ(run.metrics.get(Metric::ComputeTflopsAchieved), std::nullopt);
}

}  // namespace
}  // namespace perfgate
