// The real Nsight Systems exports in ../shared/traces/nsys: every number pinned here is computed
// by the sqlite3 queries written below, independently of perfgate's reader.
#include <gtest/gtest.h>

#include <boost/json.hpp>

#include <algorithm>
#include <filesystem>

#include <fmt/format.h>

#include "support/helpers.h"
#include "support/nsys_builder.h"

namespace perfgate::testing {
namespace {

std::vector<std::string> nsys_exports() {
  std::vector<std::string> files;
  std::string dir = shared_traces_dir();
  if (dir.empty() || !std::filesystem::is_directory(dir + "/nsys")) return files;
  for (const auto& e : std::filesystem::directory_iterator(dir + "/nsys"))
    if (e.path().extension() == ".sqlite") files.push_back(e.path().string());
  std::sort(files.begin(), files.end());
  return files;
}

std::string export_path(const std::string& name) {
  std::string dir = shared_traces_dir();
  return dir.empty() ? std::string() : dir + "/nsys/" + name;
}

bool has_table(const std::string& path, const std::string& table) {
  return query_number(path, fmt::format("SELECT count(*) FROM sqlite_master WHERE name = '{}'", table)) > 0;
}

// Sum of the lengths of the union of the intervals a query yields (columns start, "end"):
// gaps and islands with window functions.
double union_ns(const std::string& path, const std::string& intervals) {
  return query_number(path, fmt::format(R"(
      WITH i AS ({}),
      k AS (SELECT start, "end", MAX("end") OVER (ORDER BY start, "end" ROWS BETWEEN UNBOUNDED PRECEDING
                                                   AND 1 PRECEDING) AS reach FROM i),
      g AS (SELECT start, "end", SUM(CASE WHEN reach IS NULL OR start > reach THEN 1 ELSE 0 END)
                                  OVER (ORDER BY start, "end" ROWS UNBOUNDED PRECEDING) AS island FROM k)
      SELECT COALESCE(SUM(e - s), 0) FROM (SELECT MIN(start) AS s, MAX("end") AS e FROM g GROUP BY island))",
                                        intervals));
}

struct Expected {
  double kernels, kernel_ns, without_launch, copies, copy_bytes, pageable, sync_calls, sync_ns;
};

// Per process: the numbers perfgate must report for the whole capture.
Expected expected_for(const std::string& path, std::int64_t global_pid) {
  Expected x{};
  std::string k = fmt::format("FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE globalPid = {}", global_pid);
  x.kernels = query_number(path, "SELECT count(*) " + k);
  x.kernel_ns = query_number(path, "SELECT COALESCE(SUM(\"end\" - start), 0) " + k);
  if (has_table(path, "CUPTI_ACTIVITY_KIND_RUNTIME"))
    x.without_launch = query_number(
        path, "SELECT count(*) " + k +
                  " AND correlationId NOT IN (SELECT correlationId FROM CUPTI_ACTIVITY_KIND_RUNTIME "
                  "WHERE (globalTid & -16777216) = " +
                  std::to_string(global_pid) + ")");
  else
    x.without_launch = x.kernels;
  if (has_table(path, "CUPTI_ACTIVITY_KIND_MEMCPY")) {
    std::string m = fmt::format("FROM CUPTI_ACTIVITY_KIND_MEMCPY WHERE globalPid = {}", global_pid);
    x.copies = query_number(path, "SELECT count(*) " + m);
    x.copy_bytes = query_number(path, "SELECT COALESCE(SUM(bytes), 0) " + m);
    x.pageable = query_number(path, "SELECT count(*) " + m + " AND (srcKind = 0 OR dstKind = 0)");
  }
  // Blocking calls as nsys analyze defines them: synchronize, and memcpy/memset without Async.
  std::string sync = fmt::format(
      "FROM CUPTI_ACTIVITY_KIND_RUNTIME r JOIN StringIds s ON s.id = r.nameId "
      "WHERE (r.globalTid & -16777216) = {} AND ("
      "s.value GLOB 'cuda[DSET]*Synchronize_v*' OR s.value GLOB 'cuda[DSET]*Synchronize' OR "
      "s.value GLOB 'cuCtxSynchronize*' OR s.value GLOB 'cuStreamSynchronize*' OR s.value GLOB "
      "'cuEventSynchronize*' OR "
      "((s.value GLOB 'cudaMemcpy*' OR s.value GLOB 'cudaMemset*' OR s.value GLOB 'cuMemcpy*' OR "
      "s.value GLOB 'cuMemset*') AND s.value NOT GLOB '*Async*' AND s.value NOT GLOB '*Batch*'))",
      global_pid);
  x.sync_calls = query_number(path, "SELECT count(*) " + sync);
  x.sync_ns = query_number(path, "SELECT COALESCE(SUM(r.\"end\" - r.start), 0) " + sync);
  return x;
}

std::vector<std::int64_t> gpu_processes(const std::string& path) {
  std::vector<std::int64_t> pids;
  for (std::int64_t i = 0;; ++i) {
    double pid = query_number(
        path, fmt::format("SELECT globalPid FROM (SELECT DISTINCT globalPid FROM CUPTI_ACTIVITY_KIND_KERNEL "
                          "ORDER BY globalPid) LIMIT 1 OFFSET {}",
                          i));
    if (pid == 0) break;
    pids.push_back(static_cast<std::int64_t>(pid));
  }
  return pids;
}

TEST(NsysRealExports, PerProcessNumbersMatchSqlQueries) {
  auto files = nsys_exports();
  if (files.empty()) GTEST_SKIP() << "../shared/traces/nsys not found";
  for (const std::string& path : files) {
    SCOPED_TRACE(path);
    LoadedRun run = load_run({path});
    std::vector<std::int64_t> pids = gpu_processes(path);
    ASSERT_EQ(run.workers.size(), pids.size());
    for (std::size_t i = 0; i < pids.size(); ++i) {
      SCOPED_TRACE(run.workers[i].worker);
      Expected x = expected_for(path, pids[i]);
      WorkerAnalysis w = analyse_profile(run.workers[i], default_classification(), {});
      auto m = [&](Metric id) { return w.metrics.get(id).value_or(-1); };
      EXPECT_EQ(m(Metric::KernelsCount), x.kernels);
      EXPECT_NEAR(m(Metric::KernelsTotalUs), x.kernel_ns / 1000, 1e-6);
      EXPECT_EQ(m(Metric::KernelsWithoutLaunch), x.without_launch);
      EXPECT_EQ(m(Metric::MemcpyCount), x.copies);
      EXPECT_EQ(m(Metric::MemcpyBytes), x.copy_bytes);
      EXPECT_EQ(m(Metric::MemcpyPageableCount), x.pageable);
      EXPECT_EQ(m(Metric::HostSyncCalls), x.sync_calls);
      EXPECT_NEAR(m(Metric::HostSyncUs), x.sync_ns / 1000, 1e-6);
      // Per GPU: union of kernel intervals, and of kernel, memcpy and memset intervals.
      for (const GpuMetrics& g : w.gpus) {
        SCOPED_TRACE(g.device);
        std::string where = fmt::format("WHERE globalPid = {} AND deviceId = {}", pids[i], g.device);
        std::string kernels = "SELECT start, \"end\" FROM CUPTI_ACTIVITY_KIND_KERNEL " + where;
        std::string all = kernels;
        for (const char* t : {"CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_MEMSET"})
          if (has_table(path, t)) all += fmt::format(" UNION ALL SELECT start, \"end\" FROM {} {}", t, where);
        EXPECT_EQ(g.kernel_ns, union_ns(path, kernels));
        EXPECT_EQ(g.busy_ns, union_ns(path, all));
      }
    }
  }
}

TEST(NsysRealExports, TinyFileWithoutNvtxIsOneWindow) {
  std::string path = export_path("rtx3080_tiny_no_nvtx.sqlite");
  if (path.empty() || !std::filesystem::exists(path)) GTEST_SKIP() << "../shared/traces/nsys not found";
  LoadedRun run = load_run({path});
  ASSERT_EQ(run.workers.size(), 1u);
  WorkerAnalysis w = analyse_profile(run.workers[0], default_classification(), {});
  EXPECT_EQ(w.steps.source, StepSource::None);
  ASSERT_EQ(w.gpus.size(), 1u);
  EXPECT_EQ(w.gpus[0].name, "NVIDIA GeForce RTX 3080");
  EXPECT_EQ(w.gpus[0].kernel_count, 2u);
}

TEST(NsysRealExports, InferenceSliceReportsKernelsLaunchedBeforeTheWindow) {
  std::string path = export_path("h100x2_inference_1s_slice.sqlite");
  if (path.empty() || !std::filesystem::exists(path)) GTEST_SKIP() << "../shared/traces/nsys not found";
  LoadedRun run = load_run({path});
  double without = 0;
  for (const Profile& p : run.workers)
    without += analyse_profile(p, default_classification(), {})
                   .metrics.get(Metric::KernelsWithoutLaunch)
                   .value_or(0);
  // The traces' README: 1,810 kernels were launched before the window.
  EXPECT_EQ(without, 1810);
}

TEST(NsysRealExports, DriverApiLaunchesAreAttributed) {
  std::string path = export_path("h100_nvfuser_matmul_nsys2024.sqlite");
  if (path.empty() || !std::filesystem::exists(path)) GTEST_SKIP() << "../shared/traces/nsys not found";
  LoadedRun run = load_run({path});
  ASSERT_EQ(run.workers.size(), 1u);
  // Every kernel here was launched with cuLaunchKernelEx (eventClass 1).
  double launched_by_driver =
      query_number(path,
                   "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN CUPTI_ACTIVITY_KIND_RUNTIME r ON "
                   "r.correlationId = k.correlationId AND (r.globalTid & -16777216) = k.globalPid JOIN "
                   "StringIds s ON s.id = "
                   "r.nameId WHERE s.value GLOB 'cuLaunchKernel*'");
  EXPECT_GT(launched_by_driver, 0);
  WorkerAnalysis w = analyse_profile(run.workers[0], default_classification(), {});
  EXPECT_EQ(
      w.metrics.get(Metric::KernelsWithoutLaunch).value_or(-1),
      query_number(path, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL") - launched_by_driver -
          query_number(path,
                       "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN CUPTI_ACTIVITY_KIND_RUNTIME r "
                       "ON r.correlationId = k.correlationId JOIN StringIds s ON s.id = r.nameId WHERE "
                       "s.value GLOB 'cudaLaunch*'"));
}

// Both are 0.3 s cuts without step markers holding different work (kernels 4010 -> 3587), so the
// step time compares per inferred iteration; the GPU utilization (81.7% after, 89.2% before) is a
// share of where each capture was cut, and abstains either way (issue 74, item 7: it warned one
// way and passed the other).
TEST(NsysRealExports, FsdpBeforeAndAfterWorkAsBaselinesForEachOther) {
  std::string before = export_path("h100x2_fsdp_training_before.sqlite");
  std::string after = export_path("h100x2_fsdp_training_after.sqlite");
  if (before.empty() || !std::filesystem::exists(before)) GTEST_SKIP() << "../shared/traces/nsys not found";
  for (auto [current, baseline] : {std::pair{after, before}, std::pair{before, after}}) {
    std::string out = temp_dir() + "/fsdp_gate.json";
    CommandResult r =
        run_perfgate(fmt::format("analyze '{}' --baseline '{}' --json '{}' -q", current, baseline, out));
    // Both repeat the same FSDP blocks (issue 56: inferred iterations), matched by block (issue 74):
    // blocks 8-17 are +8.8% longer after, which the paired test on the blocks' log ratios confirms
    // (p = 0.038: a failure, exit 1; as two samples the 14% spread between blocks hid it); the other
    // way round they are faster: exit 0.
    EXPECT_EQ(r.exit_code, current == after ? 1 : 0) << r.out;
    boost::json::value report = boost::json::parse(read_text(out));
    bool found = false;
    for (const auto& f : report.at("findings").as_array()) {
      if (f.at("id").as_string() != "regression.gpu-utilization") continue;
      found = true;
      EXPECT_EQ(f.at("status").as_string(), "inconclusive");
      std::string reason(f.at("reason").as_string());
      EXPECT_NE(reason.find("a share of the window depends on where each capture was cut"), std::string::npos)
          << reason;
    }
    EXPECT_TRUE(found);
  }
}

}  // namespace
}  // namespace perfgate::testing
