// Issue 53, item 3: collectives that are not NCCL kernels are communication (rules:
// communication_kernels, communication_ops), and NCCL kernels launched inside an op's nccl:* range
// belong to that op.
#include <gtest/gtest.h>

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

}  // namespace
}  // namespace perfgate::testing
