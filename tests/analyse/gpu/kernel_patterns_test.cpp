// Issue 72, item 9: kernel patterns that match real names. TensorRT's xmma pooling kernel is no
// Tensor Core work; an FP8 GEMM whose format is in a C++ namespace is; expert-parallel dispatch and
// combine kernels in a private namespace are communication.
#include <gtest/gtest.h>

#include "support/helpers.h"

namespace perfgate::testing {
namespace {

const char* kPooling = "sm50_xmma_pooling_fw_4d_FP16FP32NHWC_Max_generic";
const char* kFp8Moe =
    "void cutlass::device_kernel<sgl_kernel::fp8_blockwise_moe::GemmKernel>(sgl_kernel::fp8_blockwise_moe::"
    "GemmKernel::Params)";
const char* kDispatch =
    "void hybrid_ep::ep::internode::dispatch<true, 8, 7168>(void*, float*, int*, int, int)";
const char* kCombine = "void hybrid_ep::ep::internode::combine<8, 7168>(void*, float*, int*, int, int)";
const char* kNotify = "void hybrid_ep::ep::internode::notify_dispatch<8>(int const*, int*, int)";

// P9 of the plan: an H800, one 10 ms step; five ops each launching one kernel: the pooling kernel
// 1,000 us, the FP8 grouped GEMM 2,000 us, dispatch 2,000, combine 2,000, notify_dispatch 500.
// Communication: 4,500 us of the 10 ms window = 45%.
TEST(KernelPatterns, RealNamesByRole) {
  TraceBuilder t;
  t.device(0, "NVIDIA H800", 9, 0, 85899345920, 132);
  t.step(1, 0, 10000);
  struct Launch {
    const char* kernel;
    double start, dur;
  };
  const Launch launches[] = {{kPooling, 200, 1000},
                             {kFp8Moe, 1300, 2000},
                             {kDispatch, 3400, 2000},
                             {kCombine, 5500, 2000},
                             {kNotify, 7600, 500}};
  int i = 0;
  for (const Launch& l : launches) {
    t.op("my::op", 100 + 20 * i, 10, i + 1);
    t.launch(l.kernel, 102 + 20 * i, l.start, l.dur, i + 1);
    ++i;
  }
  WorkerAnalysis w = analyse_json(t.json());
  const KernelRow* pooling = find_kernel(w.tables.kernels, kPooling);
  const KernelRow* fp8 = find_kernel(w.tables.kernels, kFp8Moe);
  ASSERT_TRUE(pooling && fp8);
  EXPECT_FALSE(pooling->uses_tc) << pooling->tc_rule;
  EXPECT_EQ(pooling->precision, "");  // its FP16FP32 is the pooling's I/O, not an MMA's
  EXPECT_TRUE(fp8->uses_tc);
  EXPECT_EQ(fp8->precision, "fp8");
  ASSERT_TRUE(w.metrics.get(Metric::CommunicationPct));
  EXPECT_NEAR(*w.metrics.get(Metric::CommunicationPct), 45.0, 1e-6);
}

}  // namespace
}  // namespace perfgate::testing
