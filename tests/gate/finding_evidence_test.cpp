// Issue 29, items 1 and 4: findings follow the evidence. What a finding names as the cause is what
// its metric counted; its estimated gain is bounded by the time removing the cause could save.
#include <gtest/gtest.h>

#include <filesystem>

#include <fmt/format.h>

#include "gate/gate.h"
#include "render/format.h"
#include "render/render.h"
#include "support/helpers.h"

namespace perfgate::testing {
namespace {

// An A100 step [0,1000] us: aten::mm runs twice, once on a Tensor Core kernel (40 us) and once on
// an FP32 SIMT kernel (60 us). By name the op "uses Tensor Cores", but one of its calls did not:
// tensor_core.eligible_ops_not_using_tc counts it, so the finding must name it with that call's 60 us.
TEST(FindingEvidence, TheEligibleOpsFindingNamesTheOpsItCounts) {
  TraceBuilder t;
  t.device(0, "NVIDIA A100-SXM4-80GB", 8, 0, 80LL << 30, 108);
  t.step(1, 0, 1000);
  t.op("aten::mm", 10, 50, 1).launch("ampere_fp16_s16816gemm_fp16_128x128_ldg8_f2f_nn", 11, 100, 40, 1);
  t.op("aten::mm", 200, 50, 2).launch("sgemm_128x64_nn", 201, 300, 60, 2);
  ReportModel report = report_of_json(t.json(), default_book());
  apply_gate(report, default_rules(), nullptr, {});
  const ReportFinding* f = find_finding(report, "tensor-cores.eligible-ops");
  ASSERT_NE(f, nullptr);
  ASSERT_EQ(f->status, FindingStatus::Warn);
  EXPECT_EQ(*f->value, 1);
  ASSERT_EQ(f->offenders.size(), 1u) << f->problem;
  EXPECT_EQ(f->offenders[0].label, "aten::mm");
  EXPECT_DOUBLE_EQ(*f->offenders[0].value, 60);
  EXPECT_EQ(f->problem.find("none"), std::string::npos) << f->problem;
}

ReportModel gated(const std::string& json) {
  ReportModel report = report_of_json(json, default_book());
  apply_gate(report, default_rules(), nullptr, {});
  return report;
}

// One step [0, 1000] us. The host waits in cudaDeviceSynchronize [100, 700] while a kernel queued
// before it runs [50, 650]: the GPU idles [0, 50] and [650, 1000], of which [650, 700] (50 us)
// falls in the call. It costs 5.0% of the step, not the 60.0% it lasts.
std::string sync_on_a_busy_queue() {
  TraceBuilder t;
  t.step(1, 0, 1000);
  t.launch("gemm", 10, 50, 600, 1);
  t.runtime("cudaDeviceSynchronize", 100, 600, 2);
  return t.json();
}

// The same call after the kernel has finished [50, 100]: the GPU idles [100, 700] in it (60.0%).
std::string sync_on_an_empty_queue() {
  TraceBuilder t;
  t.step(1, 0, 1000);
  t.launch("gemm", 10, 50, 50, 1);
  t.runtime("cudaDeviceSynchronize", 100, 600, 2);
  return t.json();
}

TEST(FindingEvidence, ASynchronisingCallCostsTheIdleTimeItCausesNotItsDuration) {
  ReportModel busy = gated(sync_on_a_busy_queue());
  EXPECT_NEAR(*busy.metric(Metric::HostSyncPct), 60.0, 1e-9);
  EXPECT_NEAR(*busy.metric(Metric::HostSyncIdlePct), 5.0, 1e-9);
  const ReportFinding* quiet = find_finding(busy, "host.sync-calls");
  ASSERT_NE(quiet, nullptr);
  EXPECT_EQ(quiet->status, FindingStatus::Pass) << quiet->problem;

  ReportModel idle = gated(sync_on_an_empty_queue());
  EXPECT_NEAR(*idle.metric(Metric::HostSyncIdlePct), 60.0, 1e-9);
  const ReportFinding* f = find_finding(idle, "host.sync-calls");
  ASSERT_NE(f, nullptr);
  ASSERT_EQ(f->status, FindingStatus::Warn);
  ASSERT_TRUE(f->gain_pct);
  EXPECT_NEAR(*f->gain_pct, 60.0, 1e-9);
  EXPECT_NE(f->problem.find("sat idle 60.0% of the step time"), std::string::npos) << f->problem;
}

// Without steps a share is of the window, and every message says so.
TEST(FindingEvidence, ARunWithoutStepsSpeaksOfTheWindow) {
  TraceBuilder t;
  t.launch("gemm", 10, 50, 50, 1);
  t.runtime("cudaDeviceSynchronize", 100, 600, 2);
  t.launch("gemm", 990, 995, 5, 3);
  ReportModel report = gated(t.json());
  const ReportFinding* f = find_finding(report, "host.sync-calls");
  ASSERT_NE(f, nullptr);
  ASSERT_EQ(f->status, FindingStatus::Warn);
  EXPECT_NE(f->problem.find("of the window"), std::string::npos) << f->problem;
  EXPECT_EQ(f->problem.find("step time"), std::string::npos) << f->problem;
}

// gpu.low-utilization and gpu.idle both fire on the same idle time: the first screen gives it one
// place and names the other finding in it.
TEST(FindingEvidence, TheSameIdleTimeTakesOnePlaceInWhatToFixFirst) {
  ReportModel report = gated(sync_on_an_empty_queue());
  ASSERT_EQ(find_finding(report, "gpu.low-utilization")->status, FindingStatus::Warn);
  ASSERT_EQ(find_finding(report, "gpu.idle")->status, FindingStatus::Warn);
  std::string page = render_html(report).page;
  std::size_t start = page.find("What to fix first"), end = page.find("</div>", start);
  ASSERT_NE(start, std::string::npos);
  std::string diagnosis = page.substr(start, end - start);
  // gpu.low-utilization, gpu.idle, host.runtime-share and host.sync-calls all save GPU idle time:
  // the first takes the place, the others are named in it, none has a place of its own.
  EXPECT_NE(diagnosis.find("href=\"#finding-gpu.low-utilization\""), std::string::npos) << diagnosis;
  for (const char* id : {"gpu.idle", "host.sync-calls", "host.runtime-share"})
    EXPECT_EQ(diagnosis.find(fmt::format("href=\"#finding-{}\"", id)), std::string::npos) << id;
  EXPECT_NE(diagnosis.find("The same time: The GPU is idle for much of the window;"), std::string::npos)
      << diagnosis;
}

// Two ranks of a world of four: an even spread among them says nothing of the other two (n/a);
// an uneven one is a lower bound of the job's and fires.
std::string ranks_folder(const std::string& name, double rank1_step_us) {
  std::string dir = temp_dir() + "/" + name;
  std::filesystem::create_directories(dir);
  for (int rank = 0; rank < 2; ++rank) {
    TraceBuilder t;
    t.top_level("distributedInfo",
                fmt::format(R"({{"backend": "nccl", "rank": {}, "world_size": 4}})", rank));
    double step = rank == 0 ? 1000 : rank1_step_us;
    t.step(1, 0, step).step(2, step, step);
    t.launch("gemm", 10, 20, step / 2, 1);
    t.write(fmt::format("{}/rank-{}.json", dir, rank));
  }
  return dir;
}

TEST(FindingEvidence, RankBalanceCannotPassOnSomeOfTheRanks) {
  const RuleSet& rules = default_rules();
  ReportModel even = report_of_files({ranks_folder("ranks-even", 1010)}, default_book());
  apply_gate(even, rules, nullptr, {});
  const ReportFinding* f = find_finding(even, "ranks.imbalance");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->status, FindingStatus::NotApplicable);
  EXPECT_NE(f->reason.find("ranks.present >= ranks.expected"), std::string::npos) << f->reason;
  ReportModel uneven = report_of_files({ranks_folder("ranks-uneven", 1500)}, default_book());
  apply_gate(uneven, rules, nullptr, {});
  EXPECT_EQ(find_finding(uneven, "ranks.imbalance")->status, FindingStatus::Warn);
}

}  // namespace
}  // namespace perfgate::testing
