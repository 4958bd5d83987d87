// The nsys reader on hand-built exports with the real table shapes: every expected number is
// in the SQL of the test.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <limits>

#include <fmt/format.h>

#include "common/errors.h"
#include "engine/analyse_profiles.h"
#include "support/helpers.h"
#include "support/nsys_builder.h"

namespace perfgate::testing {
namespace {

std::string schema() {
  return std::string(kNsysStringIds) + kNsysKernelTable + kNsysRuntimeTable + kNsysNvtxTable + kNsysMetaData +
         "INSERT INTO META_DATA_EXPORT VALUES ('EXPORT_SCHEMA_VERSION', '3.25.0'), "
         "('EXPORT_PRODUCT_VERSION', '2026.2.1.210');"
         "INSERT INTO StringIds VALUES (1, 'cudaLaunchKernel_v7000'), (2, 'gemm_kernel'), "
         "(3, 'elementwise_kernel'), (4, 'cudaDeviceSynchronize_v3020'), (5, 'ncclSend'), (6, 'NCCL');";
}

// A kernel row: start, end, device, stream, correlation, process.
std::string kernel(std::int64_t start, std::int64_t end, std::int64_t correlation, std::int64_t pid,
                   int name_id = 2, int device = 0) {
  return fmt::format(
      "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL (start, end, deviceId, streamId, correlationId, globalPid, "
      "demangledName, shortName, gridX, gridY, gridZ, blockX, blockY, blockZ, registersPerThread) "
      "VALUES ({}, {}, {}, 7, {}, {}, {}, {}, 128, 1, 1, 256, 1, 1, 32);",
      start, end, device, correlation, global_tid(pid, 0), name_id, name_id);
}
std::string launch(std::int64_t start, std::int64_t end, std::int64_t correlation, std::int64_t pid,
                   std::int64_t tid, int name_id = 1) {
  return fmt::format(
      "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME (start, end, eventClass, globalTid, correlationId, nameId) "
      "VALUES ({}, {}, 0, {}, {}, {});",
      start, end, global_tid(pid, tid), correlation, name_id);
}
std::string range(std::int64_t start, std::int64_t end, const std::string& text, std::int64_t pid,
                  std::int64_t tid, int type = 59, std::int64_t end_tid = -1) {
  std::string quoted;
  for (char c : text) quoted += c == '\'' ? std::string("''") : std::string(1, c);
  return fmt::format(
      "INSERT INTO NVTX_EVENTS (start, end, eventType, text, globalTid, endGlobalTid, domainId) VALUES "
      "({}, {}, {}, '{}', {}, {}, 0);",
      start, end, type, quoted, global_tid(pid, tid),
      end_tid < 0 ? "NULL" : std::to_string(global_tid(pid, end_tid)));
}

std::string file(const std::string& name, const std::string& sql) {
  return make_sqlite(temp_dir() + "/" + name, sql);
}

const HostEvent* find_event(const Profile& p, std::string_view name) {
  for (const HostEvent& e : p.host_events)
    if (p.str(e.name) == name) return &e;
  return nullptr;
}

std::string load_error(const std::string& path) {
  try {
    load_run({path});
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

double metric(const WorkerAnalysis& w, Metric id) {
  auto v = w.metrics.get(id);
  EXPECT_TRUE(v.has_value()) << metric_name(id);
  return v.value_or(-1);
}

TEST(NsysReader, KernelsMemcpyRuntimeAndEmitNvtxOps) {
  std::string path =
      file("emit.sqlite",
           schema() + kNsysMemcpyTable + kNsysGpuTable +
               "INSERT INTO TARGET_INFO_GPU VALUES (0, 'NVIDIA H100', 85000000000, "
               "132, 0, 9, 0);" +
               range(1000, 9000, "aten::mm, seq = 3, op_id = 7, sizes = [[64, 32], [32, 16]]", 10, 10) +
               launch(2000, 2500, 1, 10, 10) + kernel(3000, 5000, 1, 10) + launch(6000, 6100, 2, 10, 10) +
               kernel(6200, 6300, 2, 10, 3) +
               "INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (7000, 8000, 0, 1, 7, "
               "0, " +
               std::to_string(global_tid(10, 0)) + ", 4096, 1, 0, 2);");
  LoadedRun run = load_run({path});
  ASSERT_EQ(run.workers.size(), 1u);
  const Profile& p = run.workers[0];
  EXPECT_EQ(p.info.format, "nsys-sqlite");
  EXPECT_EQ(p.info.schema_version, "3.25.0");
  ASSERT_EQ(p.gpu_activities.size(), 3u);
  EXPECT_EQ(p.str(p.gpu_activities[0].name), "gemm_kernel");
  EXPECT_EQ(p.kernel_info[p.gpu_activities[0].kernel_info].grid[0], 128);
  EXPECT_EQ(p.gpu_activities[2].copy_kind, CopyKind::HostToDevice);
  EXPECT_TRUE(p.gpu_activities[2].pageable);  // srcKind 0
  EXPECT_EQ(p.gpu_activities[2].bytes, 4096u);
  ASSERT_EQ(p.runtime_calls.size(), 2u);
  EXPECT_EQ(p.str(p.runtime_calls[0].name), "cudaLaunchKernel");  // _v7000 stripped
  const HostEvent* mm = find_event(p, "aten::mm");
  ASSERT_NE(mm, nullptr);
  EXPECT_EQ(mm->kind, HostKind::Op);
  EXPECT_EQ(p.details(*mm).sequence_number, 3);
  EXPECT_EQ(p.str(p.details(*mm).input_dims), "[[64,32],[32,16]]");
  ASSERT_EQ(p.devices.size(), 1u);
  EXPECT_EQ(p.devices[0].name, "NVIDIA H100");

  WorkerAnalysis w = analyse_profile(p, default_classification(), {});
  EXPECT_EQ(metric(w, Metric::KernelsCount), 2);
  EXPECT_DOUBLE_EQ(metric(w, Metric::KernelsTotalUs), 2.1);  // 2000 + 100 ns
  EXPECT_EQ(metric(w, Metric::KernelsWithoutLaunch), 0);
  EXPECT_EQ(metric(w, Metric::MemcpyCount), 1);
  EXPECT_EQ(metric(w, Metric::MemcpyBytes), 4096);
  EXPECT_EQ(metric(w, Metric::MemcpyPageableCount), 1);
  ASSERT_EQ(w.gpus.size(), 1u);
  EXPECT_EQ(w.gpus[0].kernel_ns, 2100);
  EXPECT_EQ(w.gpus[0].busy_ns, 3100);
  // Both kernels were launched inside aten::mm: the op owns their time.
  bool found = false;
  for (const OpRow& r : w.tables.ops)
    if (r.name == "aten::mm") {
      found = true;
      EXPECT_EQ(r.device_total, 2100);
    }
  EXPECT_TRUE(found);
}

TEST(NsysReader, PyProfMarkersBecomeOpsWithShapesTypesAndStack) {
  std::string op =
      "{'mod': 'torch.nn.functional', 'op': 'linear', 'args': [{'name': 'input', 'type': 'tensor', "
      "'shape': (30, 64), 'dtype': 'float16'}, {'name': 'weight', 'type': 'tensor', 'shape': (100, 64), "
      "'dtype': 'float16'}]}";
  std::string path =
      file("pyprof.sqlite", schema() + range(1000, 9000, "{'traceMarker': ['train.py:42']}", 10, 10) +
                                range(1100, 8000, op, 10, 10) + launch(2000, 2500, 1, 10, 10) +
                                kernel(3000, 5000, 1, 10));
  Profile p = std::move(load_run({path}).workers.at(0));
  const HostEvent* linear = find_event(p, "aten::linear");
  ASSERT_NE(linear, nullptr);
  EXPECT_EQ(p.str(p.details(*linear).input_dims), "[[30,64],[100,64]]");
  EXPECT_EQ(p.str(p.details(*linear).input_types), R"(["c10::Half","c10::Half"])");
  EXPECT_EQ(p.str(p.details(*linear).call_stack), "train.py:42");
  for (const HostEvent& e : p.host_events) EXPECT_EQ(p.str(e.name).find('{'), std::string::npos);
  // PyProf's multiples-of-8 check sees the shapes: FP16 linear, N = 100 and M = 30 not multiples of 8.
  WorkerAnalysis w = analyse_profile(p, default_classification(), {});
  EXPECT_GE(metric(w, Metric::TensorCoreMisalignedShapes), 1);
}

TEST(NsysReader, StartEndRangesAcrossThreadsAreAttributedWithinTheProcess) {
  // Starts on thread 11, ends on thread 12; thread 12 launches the kernel inside its span.
  std::string path = file("startend.sqlite", schema() + range(1000, 9000, "executor run", 10, 11, 60, 12) +
                                                 launch(2000, 2500, 1, 10, 12) + kernel(3000, 5000, 1, 10));
  Profile p = std::move(load_run({path}).workers.at(0));
  const HostEvent* region = find_event(p, "executor run");
  ASSERT_NE(region, nullptr);
  EXPECT_EQ(p.threads[region->thread].tid, 12);
  EXPECT_TRUE(has_line(p.notes, "ended on another thread"));
  WorkerAnalysis w = analyse_profile(p, default_classification(), {});
  ASSERT_FALSE(w.tables.regions.empty());
  EXPECT_EQ(w.tables.regions[0].name, "executor run");
  EXPECT_EQ(w.tables.regions[0].gpu, 2000);
}

TEST(NsysReader, TwoProcessesAreTwoWorkersAndRepeatedCorrelationIdsStayApart) {
  // Both processes use correlation id 1; each kernel must join its own process's launch.
  std::string path = file("two.sqlite", schema() + range(1000, 9000, "aten::mm, op_id = 1", 10, 10) +
                                            range(1000, 9000, "aten::add, op_id = 1", 20, 20) +
                                            launch(2000, 2500, 1, 10, 10) + kernel(3000, 5000, 1, 10, 2, 0) +
                                            launch(2000, 2600, 1, 20, 20) + kernel(3000, 3500, 1, 20, 3, 1) +
                                            range(100, 200, "launcher only", 30, 30));
  LoadedRun run = load_run({path});
  ASSERT_EQ(run.workers.size(), 2u);  // process 30 has no GPU work
  EXPECT_EQ(run.workers[0].worker, "two-pid10");
  EXPECT_EQ(run.workers[1].worker, "two-pid20");
  for (std::size_t i = 0; i < 2; ++i) {
    // Each process is read with its own rows only.
    EXPECT_EQ(run.workers[i].host_events.size(), 1u);
    EXPECT_EQ(run.workers[i].runtime_calls.size(), 1u);
    EXPECT_EQ(run.workers[i].gpu_activities.size(), 1u);
    WorkerAnalysis w = analyse_profile(run.workers[i], default_classification(), {});
    ASSERT_EQ(w.tables.ops.size(), 1u);
    EXPECT_EQ(w.tables.ops[0].name, i == 0 ? "aten::mm" : "aten::add");
    EXPECT_EQ(w.tables.ops[0].device_total, i == 0 ? 2000 : 500);
  }
  // Read and analysed one process at a time (what `perfgate analyze` does): the same workers.
  RunAnalysis streamed = load_and_analyse({path}, {}, default_classification(), {}).analysis;
  ASSERT_EQ(streamed.workers.size(), 2u);
  EXPECT_EQ(streamed.workers[0].worker, "two-pid10");
  EXPECT_EQ(streamed.workers[1].tables.ops.at(0).name, "aten::add");
  EXPECT_EQ(streamed.workers[1].tables.ops.at(0).device_total, 500);
}

TEST(NsysReader, NoNvtxOnlyKernelsAndAnEmptyCapture) {
  // No runtime, NVTX, memcpy or memset tables: the kernels load without launch calls.
  std::string kernels_only =
      file("kernels_only.sqlite", std::string(kNsysStringIds) + kNsysKernelTable +
                                      "INSERT INTO StringIds VALUES (2, 'gemm_kernel');" +
                                      kernel(0, 1000, 5, 10) + kernel(2000, 2500, 6, 10));
  Profile p = std::move(load_run({kernels_only}).workers.at(0));
  WorkerAnalysis w = analyse_profile(p, default_classification(), {});
  EXPECT_EQ(w.steps.source, StepSource::None);
  EXPECT_EQ(metric(w, Metric::KernelsCount), 2);
  EXPECT_EQ(metric(w, Metric::KernelsWithoutLaunch), 2);
  EXPECT_NEAR(metric(w, Metric::GpuUtilizationPct), 100.0 * 1500 / 2500, 1e-9);

  // Issue 29, item 5: GPUs listed, nothing ran (or no CUDA table at all): the export holds no
  // profiled activity, an input error (it passed the gate as an empty run).
  std::string empty =
      file("empty_capture.sqlite", std::string(kNsysGpuTable) + kNsysStringIds +
                                       "INSERT INTO TARGET_INFO_GPU VALUES (0, 'NVIDIA A100', 1, "
                                       "108, 0, 8, 0);");
  std::string no_cuda_tables =
      file("no_cuda.sqlite", std::string(kNsysStringIds) + kNsysMetaData +
                                 "INSERT INTO META_DATA_EXPORT VALUES ('EXPORT_SCHEMA_VERSION', '3.25.0');");
  for (const std::string& path : {empty, no_cuda_tables}) {
    std::string error = load_error(path);
    EXPECT_NE(error.find(path + ": holds no profiled activity"), std::string::npos) << error;
  }
}

TEST(NsysReader, OldSchemaColumnOrderExtraColumnsAndOldMetadataTable) {
  // Columns in another order, an extra TEXT kernel_name (ignored: names come from StringIds),
  // EXPORT_META_DATA as nsys <= 2023.1 wrote it, no enum tables.
  std::string path = file(
      "old.sqlite",
      "CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT);"
      "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (globalPid INTEGER, correlationId INTEGER, shortName INTEGER, "
      "kernel_name TEXT, end INTEGER, start INTEGER, deviceId INTEGER, streamId INTEGER, futureColumn BLOB);"
      "CREATE TABLE EXPORT_META_DATA (name TEXT, value TEXT);"
      "INSERT INTO EXPORT_META_DATA VALUES ('EXPORT_SCHEMA_VERSION', '2.7.1');"
      "INSERT INTO StringIds VALUES (9, 'real_name');" +
          fmt::format(
              "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES ({}, 1, 9, 'decoy', 700, 200, 0, 1, NULL);",
              global_tid(10, 0)));
  Profile p = std::move(load_run({path}).workers.at(0));
  EXPECT_EQ(p.info.schema_version, "2.7.1");
  ASSERT_EQ(p.gpu_activities.size(), 1u);
  EXPECT_EQ(p.str(p.gpu_activities[0].name), "real_name");
  EXPECT_EQ(p.gpu_activities[0].start, 200);
  EXPECT_EQ(p.gpu_activities[0].end, 700);
}

TEST(NsysReader, StepPatternWholeWordsOnly) {
  std::string path =
      file("steps.sqlite",
           schema() + range(0, 4000, "train_step 1", 10, 10) + range(5000, 9000, "train_step 2", 10, 10) +
               range(100, 200, "validateIterDomainUse", 10, 10) + launch(1000, 1100, 1, 10, 10) +
               kernel(1200, 3000, 1, 10) + launch(6000, 6100, 2, 10, 10) + kernel(6200, 8000, 2, 10));
  Profile p = std::move(load_run({path}).workers.at(0));
  WorkerAnalysis w = analyse_profile(p, default_classification(), {});
  EXPECT_EQ(w.steps.source, StepSource::StepPattern);
  ASSERT_EQ(w.steps.steps.size(), 2u);
  EXPECT_EQ(w.steps.steps[0].number, 1);
  EXPECT_EQ(w.steps.steps[1].number, 2);

  AnalysisOptions only_iterations;
  only_iterations.step_pattern = R"(iteration (\d+))";
  WorkerAnalysis none = analyse_profile(p, default_classification(), only_iterations);
  EXPECT_EQ(none.steps.source, StepSource::None);
}

// Issue 30, item 7: which NVTX ranges are steps is the rules' nvtx_step_ranges, which a user rule
// file replaces; the Kineto list (profiler_step_ranges) does not apply to an nsys export, and
// --step-pattern overrides the rules for one run.
TEST(NsysReader, NvtxStepRangesComeFromTheRules) {
  // Steps "train_step 1" [0, 4000] and "train_step 2" [5000, 9000], each holding a "fwd_bwd N"
  // range and one kernel launch.
  std::string path =
      file("rule_steps.sqlite",
           schema() + range(0, 4000, "train_step 1", 10, 10) + range(500, 3500, "fwd_bwd 10", 10, 10) +
               range(5000, 9000, "train_step 2", 10, 10) + range(5500, 8500, "fwd_bwd 11", 10, 10) +
               launch(1000, 1100, 1, 10, 10) + kernel(1200, 3000, 1, 10) + launch(6000, 6100, 2, 10, 10) +
               kernel(6200, 8000, 2, 10));
  Profile p = std::move(load_run({path}).workers.at(0));
  EXPECT_EQ(p.info.step_marking, StepMarking::NvtxRanges);
  auto numbers = [](const WorkerAnalysis& w) {
    std::vector<std::int64_t> out;
    for (const Step& s : w.steps.steps) out.push_back(s.number.value_or(-1));
    return out;
  };
  EXPECT_EQ(numbers(analyse_profile(p, default_classification(), {})), (std::vector<std::int64_t>{1, 2}));

  std::string dir = temp_dir();
  Classification fwd_bwd =
      load_rule_book({write_text(dir + "/nvtx_fwd_bwd.yaml",
                                 "classification:\n  nvtx_step_ranges:\n    patterns: ['fwd_bwd (\\d+)']\n")})
          .knowledge;
  WorkerAnalysis w = analyse_profile(p, fwd_bwd, {});
  EXPECT_EQ(w.steps.source, StepSource::StepPattern);
  EXPECT_EQ(numbers(w), (std::vector<std::int64_t>{10, 11}));
  ASSERT_EQ(w.steps.steps.size(), 2u);
  EXPECT_EQ(w.steps.steps[0].host_start, 500);
  EXPECT_EQ(w.steps.steps[1].host_end, 8500);

  RuleBook kineto_only = load_rule_book(
      {write_text(dir + "/kineto_fwd_bwd.yaml",
                  "classification:\n  profiler_step_ranges:\n    patterns: ['fwd_bwd (\\d+)']\n")});
  EXPECT_EQ(numbers(analyse_profile(p, kineto_only.knowledge, {})), (std::vector<std::int64_t>{1, 2}));

  AnalysisOptions train_steps;
  train_steps.step_pattern = R"(train_step (\d+))";
  EXPECT_EQ(numbers(analyse_profile(p, fwd_bwd, train_steps)), (std::vector<std::int64_t>{1, 2}));
}

// The shipped nvtx_step_ranges, as the code had them before they moved to the rules: ProfilerStep#N
// and a step or iteration word in any case, with a number after a separator.
TEST(NsysReader, DefaultNvtxStepRangeNames) {
  std::string path =
      file("default_step_names.sqlite",
           schema() + range(0, 1000, "Iteration 12", 10, 10) + range(2000, 3000, "iter#13", 10, 10) +
               range(4000, 5000, "ProfilerStep#14", 10, 10) +
               range(4100, 4200, "Optimizer.step#SGD.step", 10, 10) + range(6000, 7000, "STEP_15", 10, 10) +
               range(8000, 8100, "stepper 16", 10, 10));
  Profile p = std::move(load_run({path}).workers.at(0));
  WorkerAnalysis w = analyse_profile(p, default_classification(), {});
  std::vector<std::string> names;
  std::vector<std::int64_t> numbers;
  for (const Step& s : w.steps.steps) {
    names.push_back(s.name);
    numbers.push_back(s.number.value_or(-1));
  }
  EXPECT_EQ(names, (std::vector<std::string>{"Iteration 12", "iter#13", "ProfilerStep#14", "STEP_15"}));
  EXPECT_EQ(numbers, (std::vector<std::int64_t>{12, 13, 14, 15}));
}

TEST(NsysReader, BadInputsNameTheFileAndTheReason) {
  std::string not_nsys =
      file("other.sqlite", "CREATE TABLE recipes (name TEXT); INSERT INTO recipes VALUES ('x');");
  EXPECT_NE(load_error(not_nsys).find(not_nsys + ": an SQLite database but not an Nsight Systems export"),
            std::string::npos);

  // A real export cut short: the header is fine, the pages are not.
  std::string whole = file("whole.sqlite", schema() + kernel(0, 10, 1, 10) + launch(0, 5, 1, 10, 10));
  std::string cut = temp_dir() + "/cut.sqlite";
  std::filesystem::copy_file(whole, cut, std::filesystem::copy_options::overwrite_existing);
  std::filesystem::resize_file(cut, 2048);
  std::string error = load_error(cut);
  EXPECT_NE(error.find(cut + ": "), std::string::npos) << error;
  EXPECT_NE(error.find("malformed"), std::string::npos) << error;

  std::string zero = write_text(temp_dir() + "/zero.sqlite", "");
  EXPECT_NE(load_error(zero).find("empty file"), std::string::npos);

  // On the command line: exit code 3, the reason, and no report left behind.
  for (const std::string& bad : {not_nsys, cut, zero}) {
    std::string out = temp_dir() + "/bad_nsys_report.json";
    std::filesystem::remove(out);
    CommandResult r = run_perfgate(fmt::format("analyze '{}' --json '{}'", bad, out));
    EXPECT_EQ(r.exit_code, 3) << r.out;
    EXPECT_NE(r.out.find(bad), std::string::npos) << r.out;
    EXPECT_FALSE(std::filesystem::exists(out));
  }
}

// Issue 13: timestamps near 2^63 overflowed the analyses, reversed kernels vanished silently, and
// text in integer columns read as 0. Such rows are skipped and counted in the notes.
TEST(NsysReader, OutOfRangeRowsAreSkippedAndCounted) {
  std::int64_t near_max = std::numeric_limits<std::int64_t>::max() - 10;
  std::string path = file(
      "ranges.sqlite",
      schema() + launch(2000, 2500, 1, 10, 10) + kernel(3000, 5000, 1, 10) +  // a good pair
          kernel(near_max - 100, near_max, 2, 10) +                           // absurd timestamps
          kernel(9000, 8000, 3, 10) +                                         // ends before it starts
          kernel(-50, 100, 4, 10) +
          "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL (start, end, deviceId, streamId, correlationId, globalPid, "
          "demangledName) VALUES ('soon', 7000, 0, 7, 5, " +
          std::to_string(global_tid(10, 0)) + ", 2);" + launch(6000, 5000, 6, 10, 10) +
          range(1000, 9000, "work", 10, 10) + range(near_max - 5, near_max, "late", 10, 10));
  LoadedRun run = load_run({path});
  ASSERT_EQ(run.workers.size(), 1u);
  const Profile& p = run.workers[0];
  ASSERT_EQ(p.gpu_activities.size(), 1u);
  EXPECT_EQ(p.gpu_activities[0].start, 3000);
  EXPECT_EQ(p.runtime_calls.size(), 1u);
  EXPECT_NE(find_event(p, "work"), nullptr);
  EXPECT_EQ(find_event(p, "late"), nullptr);
  auto noted = [&](const std::string& text) { return has_line(p.notes, text); };
  EXPECT_TRUE(noted("2 rows of CUPTI_ACTIVITY_KIND_KERNEL skipped: a negative or absurd timestamp"));
  EXPECT_TRUE(noted("1 rows of CUPTI_ACTIVITY_KIND_KERNEL skipped: the end is before the start"));
  EXPECT_TRUE(noted("1 rows of CUPTI_ACTIVITY_KIND_KERNEL skipped: text, a blob or a real number"));
  EXPECT_TRUE(noted("1 rows of CUPTI_ACTIVITY_KIND_RUNTIME skipped: the end is before the start"));
  EXPECT_TRUE(noted("1 rows of NVTX_EVENTS skipped: a negative or absurd timestamp"));
  WorkerAnalysis w = analyse_profile(p, default_classification(), {});
  EXPECT_DOUBLE_EQ(metric(w, Metric::KernelsTotalUs), 2.0);
}

// Issue 28, item 8: many kernels of up to 30 days each overflowed sums of their durations. The rows
// of a process whose durations reach 2^62 ns = 4.611686e18 ns are skipped: 1779 kernels of 30 days
// (2.592e15 ns) are 4.611168e18 ns, the 1780th would reach 4.613760e18 ns.
TEST(NsysReader, RowsPastAProcesssTotalOf2To62NanosecondsAreSkipped) {
  const std::int64_t month = 2592000000000000;
  std::string rows;
  for (int i = 0; i < 1781; ++i) rows += kernel(0, month, i + 1, 10);
  LoadedRun run = load_run({file("months.sqlite", schema() + rows)});
  ASSERT_EQ(run.workers.size(), 1u);
  const Profile& p = run.workers[0];
  EXPECT_EQ(p.gpu_activities.size(), 1779u);
  EXPECT_TRUE(
      has_line(p.notes,
               "2 rows of CUPTI_ACTIVITY_KIND_KERNEL skipped: the durations of the process's rows added "
               "up to 2^62 ns"));
}

// Issue 13: names that are not valid UTF-8 are repaired (U+FFFD) and counted in the notes.
TEST(NsysReader, InvalidUtf8NamesAreRepairedAndCounted) {
  std::string path =
      file("utf8.sqlite", schema() + "INSERT INTO StringIds VALUES (9, CAST(X'6b5fff5f6b' AS TEXT));" +
                              launch(2000, 2500, 1, 10, 10) + kernel(3000, 5000, 1, 10, 9) +
                              "INSERT INTO NVTX_EVENTS (start, end, eventType, text, globalTid, "
                              "domainId) VALUES (1000, 9000, 59, CAST(X'72c0af' AS TEXT), " +
                              std::to_string(global_tid(10, 10)) + ", 0);");
  LoadedRun run = load_run({path});
  ASSERT_EQ(run.workers.size(), 1u);
  const Profile& p = run.workers[0];
  ASSERT_EQ(p.gpu_activities.size(), 1u);
  EXPECT_EQ(p.str(p.gpu_activities[0].name), "k_\xEF\xBF\xBD_k");
  EXPECT_NE(find_event(p, "r\xEF\xBF\xBD\xEF\xBF\xBD"), nullptr);
  EXPECT_TRUE(has_line(p.notes, "2 strings in the export were not valid UTF-8"));
}

TEST(NsysReader, OpensReadOnlyAndWritesNothingBesideTheFile) {
  std::string dir = temp_dir() + "/readonly_export";
  std::filesystem::create_directories(dir);
  std::string path =
      make_sqlite(dir + "/run.sqlite", schema() + launch(0, 5, 1, 10, 10) + kernel(6, 10, 1, 10));
  ::chmod(path.c_str(), 0444);
  auto before =
      std::distance(std::filesystem::directory_iterator(dir), std::filesystem::directory_iterator());
  EXPECT_EQ(load_run({path}).workers.size(), 1u);
  auto after = std::distance(std::filesystem::directory_iterator(dir), std::filesystem::directory_iterator());
  EXPECT_EQ(before, after);
  ::chmod(path.c_str(), 0644);
}

}  // namespace
}  // namespace perfgate::testing
