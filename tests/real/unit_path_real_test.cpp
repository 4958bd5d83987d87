// What grew on the critical path per matched inferred unit on the FSDP pair (issue 74, item 6;
// h100x2_fsdp_training_{before,after}: no steps, both repeat FSDP::post_forward (blocks.k...), blocks
// 2-17 before and 8-21 after, 10 matched). Checked against plain SQL on the exports (read-only):
// unit_path_reference.sql prints, per worker and block, (1) the SendRecv kernels' time launched in each
// unit and (2) the cudaMemsetAsync calls in each matched unit.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <string>

#include "baseline/baseline.h"
#include "gate/gate.h"
#include "support/helpers.h"

namespace perfgate::testing {
namespace {

// The SendRecv kernels' ns per unit, blocks 8-17, worker 0 and 1 (pids 144/145 before, 148/149
// after), as unit_path_reference.sql (1) reads them.
constexpr std::array<std::array<double, 10>, 2> kSendRecvBeforeNs = {{
    {3677247, 381984, 421280, 709792, 576735, 516256, 812704, 747104, 384063, 3704017},
    {349919, 1035165, 390175, 386784, 380640, 388958, 381728, 382654, 1925755, 368607},
}};
constexpr std::array<std::array<double, 10>, 2> kSendRecvAfterNs = {{
    {375807, 383869, 1169467, 760925, 393311, 384222, 379966, 384669, 398622, 385119},
    {1673530, 406270, 356095, 378686, 425919, 613085, 774717, 1011676, 386207, 7390894},
}};

std::string block_unit(int k) {
  return "FSDP::post_forward (blocks." + std::to_string(k) + "._checkpoint_wrapped_module)";
}

// A worker's time on the path of `unit` of ops whose name holds `part`, with `bound` ("" any).
double path_time(const ReportWorker& w, const std::string& unit, std::string_view part,
                 std::string_view bound) {
  const ReportTable* t = find_table(w.tables, Table::CriticalPathUnitOps);
  double sum = 0;
  for (std::size_t r = 0; t && r < t->rows.size(); ++r) {
    const auto& u = std::get<std::string>(*find_cell(*t, r, "unit"));
    const auto& name = std::get<std::string>(*find_cell(*t, r, "name"));
    const auto& by = std::get<std::string>(*find_cell(*t, r, "bound_by"));
    if (u == unit && name.find(part) != std::string::npos && (bound.empty() || by == bound))
      sum += cell_number(*find_cell(*t, r, "time_us")).value_or(0);
  }
  return sum;
}

// Each unit's SendRecv time on its path is the kernels' time (HTA's path rounds each kernel's start
// up and end down to whole us: at most 2 us a kernel, 2 kernels a unit), on every worker and block.
void expect_sendrecv_on_path(const ReportModel& r, const std::array<std::array<double, 10>, 2>& sql) {
  ASSERT_EQ(r.workers.size(), 2u);
  for (std::size_t w = 0; w < 2; ++w)
    for (int k = 8; k <= 17; ++k) {
      double on_path = path_time(r.workers[w], block_unit(k), "SendRecv", "gpu_communication_bound");
      double kernels = sql[w][static_cast<std::size_t>(k - 8)] / 1000;
      EXPECT_LE(on_path, kernels + 1e-6) << "worker " << w << " block " << k;
      EXPECT_GE(on_path, kernels - 4) << "worker " << w << " block " << k;
    }
}

TEST(UnitPathRealTraces, FsdpPairNamesWhatGrewOnTheMatchedUnitsPaths) {
  std::string before_path = shared_trace("nsys/h100x2_fsdp_training_before.sqlite");
  std::string after_path = shared_trace("nsys/h100x2_fsdp_training_after.sqlite");
  if (before_path.empty() || after_path.empty()) GTEST_SKIP() << "../shared/traces is absent";
  ReportModel before = report_of_files({before_path}, default_book());
  ReportModel after = report_of_files({after_path}, default_book());
  expect_sendrecv_on_path(before, kSendRecvBeforeNs);
  expect_sendrecv_on_path(after, kSendRecvAfterNs);
  // Block 16 after, worker 0 (pid 148): one cudaMemsetAsync call of 5,748.027 us (unit_path_reference.sql
  // (2); its 8 calls in the unit sum to 5,803.940 us), on the unit's path as host time.
  double memset = path_time(after.workers[0], block_unit(16), "cudaMemsetAsync", "cpu_bound");
  EXPECT_GE(memset, 5748.027 - 2);
  EXPECT_LE(memset, 5803.940);

  Baseline base = baseline_from_report(before, before_path, "profile");
  ASSERT_EQ(base.unit_paths.size(), 16u);
  apply_gate(after, default_rules(), &base, {});
  const ReportFinding* f = find_finding(after, "regression.step-time");
  ASSERT_TRUE(f);
  ASSERT_EQ(f->status, FindingStatus::Fail) << f->reason;
  const std::string& p = f->problem;
  // Summed over blocks 8-17 only, each unit the path of the worker whose path of it is longest: the
  // 5.75 ms memset of block 16 is the largest part (592.0 us a matched unit, 6.6 us before). SendRecv,
  // +580 us a unit with --step-pattern inferred (the mean over all 16 and 14 units), is about even on
  // the matched blocks (13,664 -> 13,397 us of kernels on the chosen workers by SQL): that growth came
  // from the blocks only one window holds (after, blocks 18-21: 2.0-3.8 ms on one worker or the other;
  // before, blocks 2-7: 0.3-1.0 ms), and it is not named.
  EXPECT_NE(p.find("Over the 10 matched units with a critical path in both runs"), std::string::npos) << p;
  EXPECT_NE(p.find("longest): on the critical path per matched unit, 19.51 ms → 20.68 ms (+1.18 ms)"),
            std::string::npos)
      << p;
  EXPECT_NE(p.find("moved onto the path cudaMemsetAsync (host) +585.4 us (6.6 us → 592.0 us)"),
            std::string::npos)
      << p;
  EXPECT_NE(p.find("grew FSDP::pre_forward (blocks.#._checkpoint_wrapped_module) (host)"), std::string::npos)
      << p;
  EXPECT_EQ(p.find("SendRecv"), std::string::npos) << p;
}

}  // namespace
}  // namespace perfgate::testing
