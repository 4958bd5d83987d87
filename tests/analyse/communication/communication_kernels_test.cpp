// Issue 53, item 3: collectives that are not NCCL kernels are communication (rules:
// communication_kernels, communication_ops), and NCCL kernels launched inside an op's nccl:* range
// belong to that op.
#include <gtest/gtest.h>

#include "gate/gate.h"
#include "support/helpers.h"

namespace perfgate::testing {
namespace {

// One step [0, 1000] us; each kernel below runs 100 us, one after the other from 100 us, launched
// by a 1-us call under an op. Communication kernels: all but the GEMM, 6 x 100 us of the 700 us of
// kernel time, 60% of the 1000-us window (communication.pct: communication kernel time / window).
TEST(CommunicationKernels, CollectivesBeyondNcclAreCommunication) {
  const char* collectives[] = {
      "multimem_all_reduce_kernel<bf16, 8>",                                       // PyTorch symmetric memory
      "void rcclGenericKernel<1, false>(ncclDevComm*, unsigned long, ncclWork*)",  // RCCL, demangled
      "void vllm::cross_device_reduce_1stage<__nv_bfloat16, 8>(...)",              // vLLM custom all-reduce
      "two_shot_all_reduce_kernel",                                                // symmetric memory
      "void quickreduce::allreduce_prototype_twoshot<...>(...)",                   // QuickReduce
      "nvshmemi_transfer_rma_kernel",                                              // NVSHMEM
  };
  TraceBuilder t;
  t.step(1, 0, 1000);
  double at = 100;
  t.op("symm_mem::multimem_all_reduce_", 10, 20, 1);
  t.launch(collectives[0], 15, at, 100, 1);
  at += 100;
  for (int i = 1; i < 6; ++i, at += 100) t.launch(collectives[i], 30 + i, at, 100);
  t.launch("sm90_xmma_gemm_bf16bf16_bf16f32", 40, at, 100);
  WorkerAnalysis w = analyse_json(t.json());
  EXPECT_NEAR(*w.metrics.get(Metric::CommunicationPct), 100.0 * 600 / 1000, 1e-9);
}

// DDP's all-reduce as PyTorch records it: c10d::allreduce_ [10, 100] > record_param_comms [20, 90]
// > the annotation nccl:all_reduce [30, 80] > cudaLaunchKernel [40, 45], whose External id names no
// op. Its NCCL kernel [50, 350] (300 us) is record_param_comms's (self) and c10d::allreduce_'s
// (total), and nothing is "(no op)".
TEST(CommunicationKernels, NcclKernelsUnderAnNcclRangeBelongToTheEnclosingOp) {
  TraceBuilder t;
  t.step(1, 0, 1000);
  t.op("c10d::allreduce_", 10, 90, 1);
  t.op("record_param_comms", 20, 70, 2);
  t.annotation("nccl:all_reduce", 30, 50);
  t.runtime("cudaLaunchKernel", 40, 5, 77, 999)
      .kernel("ncclDevKernel_AllReduce_Sum_f32_RING_LL", 50, 300, 77);
  WorkerAnalysis w = analyse_json(t.json());
  EXPECT_EQ(find_op(w.tables.ops, "(no op)"), nullptr);
  const OpRow* comms = find_op(w.tables.ops, "record_param_comms");
  ASSERT_NE(comms, nullptr);
  EXPECT_EQ(comms->device_self, 300'000);
  const OpRow* allreduce = find_op(w.tables.ops, "c10d::allreduce_");
  ASSERT_NE(allreduce, nullptr);
  EXPECT_EQ(allreduce->device_total, 300'000);
}

// Issue 72, item 6: a collective's host wrapper is host time. One step [0, 10000] us on a B200:
// eight aten::mm [100 + 500 k, +20] each launching (call at +5, 1 us) a 400-us GEMM at 200 + 500 k
// (the last ends at 4,100); then vllm::all_reduce [4200, 6200], Python choosing an all-reduce, whose
// child symm_mem::multimem_all_reduce_ [6000, 6150] launches (call at 6,010) the 100-us kernel
// [6100, 6200]. Communication is the kernel's 100 us: 1.0% of the step, as communication.pct
// (before: the wrapper's 2,000 us, 20.0%, and communication.high "that no computation hides").
// The wrapper's own time is CPU exec: the eight ops' 8 x 19 us beside their calls, and the wrapper's
// 2,000 us less the kernel's 100 and the call's 1: 152 + 1,899 = 2,051 us, 20.51%.
TraceBuilder host_wrapped_all_reduce(const std::string& wrapper = "vllm::all_reduce") {
  TraceBuilder t;
  t.device(0, "NVIDIA B200", 10, 0, 193273528320, 148);
  t.step(1, 0, 10000);
  for (int k = 0; k < 8; ++k) {
    t.op("aten::mm", 100 + 500.0 * k, 20, k + 1);
    t.launch("nvjet_sm100_tst_128x256_64x4_2x1_v_bz_coopA_TNT", 105 + 500.0 * k, 200 + 500.0 * k, 400, k + 1);
  }
  t.op(wrapper, 4200, 2000, 20);
  t.op("symm_mem::multimem_all_reduce_", 6000, 150, 21);
  t.launch(
      "void c10d::symmetric_memory::multimem_all_reduce_kernel<c10::BFloat16, 16, 4>(c10::BFloat16*, "
      "c10::BFloat16*, unsigned long, unsigned long, unsigned long)",
      6010, 6100, 100, 21);
  return t;
}

TEST(CommunicationKernels, HostTimeInACollectiveWrapperIsHostTime) {
  ReportModel report = report_of_json(host_wrapped_all_reduce().json(), default_book());
  apply_gate(report, default_rules(), nullptr, {});
  EXPECT_NEAR(*report.metric(Metric::BreakdownCommunicationPct), 1.0, 1e-9);
  EXPECT_NEAR(*report.metric(Metric::CommunicationPct), 1.0, 1e-9);
  EXPECT_NEAR(*report.metric(Metric::BreakdownCpuExecPct), 20.51, 1e-9);
  EXPECT_NEAR(*report.metric(Metric::BreakdownKernelPct), 32.0, 1e-9);
  const ReportFinding* high = find_finding(report, "communication.high");
  ASSERT_NE(high, nullptr);
  EXPECT_EQ(high->status, FindingStatus::Pass);
}

// The TensorBoard plugin's rules (attribution.communication_host_time) count a wrapper it knows (its
// communication ops are nccl:/gloo: ranges) as communication: [4200, 6200] less the kernel [6100,
// 6200], which the plugin's rules do not know as communication (a kernel outranks it): 1,900 us.
TEST(CommunicationKernels, ThePluginsRulesCountTheWrapper) {
  WorkerAnalysis plugin = analyse_json(host_wrapped_all_reduce("nccl:all_reduce").json(), {}, {"tb-plugin"});
  EXPECT_EQ(plugin.steps.steps[0].breakdown[static_cast<std::size_t>(BreakdownPart::Communication)],
            1'900'000);
}

// A trace without GPU work: the collective ran on the CPU (gloo), and its host range is the
// communication. One step [0, 1000] us, gloo:all_reduce [100, 400]: 30%.
TEST(CommunicationKernels, CpuCollectivesAreTheirHostRanges) {
  TraceBuilder t;
  t.step(1, 0, 1000);
  t.op("aten::add", 20, 50, 1);
  t.op("gloo:all_reduce", 100, 300, 2);
  WorkerAnalysis w = analyse_json(t.json());
  EXPECT_EQ(w.steps.steps[0].breakdown[static_cast<std::size_t>(BreakdownPart::Communication)], 300'000);
}

}  // namespace
}  // namespace perfgate::testing
