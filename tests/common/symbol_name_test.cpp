// Symbol names folded for a headline (issue 93): real kernel names from the shared traces (the
// ResNet-50 V100 pair, the A100 NCCL and Triton traces, the H100 FSDP nsys exports, the MI300X and
// H100 TraceLens traces), each expected value written by hand from the rule: "void" and the
// parameter list dropped, template arguments folded to "<…>" (a wrapper keeps a generated kernel's
// name), namespaces between the outermost and the name folded to "…".
#include <gtest/gtest.h>

#include "common/symbol_name.h"
#include "common/utf8.h"

namespace perfgate {
namespace {

TEST(ShortSymbol, CudnnSignaturesFoldToTheirName) {
  EXPECT_EQ(
      short_symbol("void cudnn::detail::dgrad_engine<float, 512, 6, 5, 3, 3, 3, false>(int, int, int, float "
                   "const*, int, float const*, int, float*, kernel_grad_params, unsigned long long, int, "
                   "unsigned long long, int, float, int, int, int)"),
      "cudnn::…::dgrad_engine<…>");
  EXPECT_EQ(short_symbol(
                "void cudnn::bn_bw_1C11_kernel_new<float, float, float2, 512, true, 1>(float, float, float, "
                "float, cudnnTensorStruct, float const*, cudnnTensorStruct, float const*, "
                "cudnnTensorStruct, float*, float const*, float*, float*, float const*, float const*, "
                "float)"),
            "cudnn::bn_bw_1C11_kernel_new<…>");
  // A cast in the template arguments, a template in the parameters.
  EXPECT_EQ(
      short_symbol("void cudnn::engines_precompiled::nchwToNhwcKernel<__nv_bfloat16, __nv_bfloat16, float, "
                   "false, true, (cudnnKernelDataType_t)0>(cudnn::engines_precompiled::nchw2nhwc_params_t<"
                   "float>, __nv_bfloat16 const*, __nv_bfloat16*)"),
      "cudnn::…::nchwToNhwcKernel<…>");
  // A name without namespaces or parameters stays.
  EXPECT_EQ(short_symbol("volta_scudnn_128x64_relu_xregs_large_nn_v1"),
            "volta_scudnn_128x64_relu_xregs_large_nn_v1");
}

TEST(ShortSymbol, CutlassWrappersKeepTheGeneratedKernelsName) {
  EXPECT_EQ(
      short_symbol("void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_64x64_32x6_nt_align4>(cutlass_80_"
                   "tensorop_s1688gemm_64x64_32x6_nt_align4::Params)"),
      "cutlass::Kernel<cutlass_80_tensorop_s1688gemm_64x64_32x6_nt_align4>");
  EXPECT_EQ(short_symbol("cutlass::Kernel2<cutlass_80_simt_sgemm_128x32_8x5_nn_align1>"),
            "cutlass::Kernel2<cutlass_80_simt_sgemm_128x32_8x5_nn_align1>");
  EXPECT_EQ(
      short_symbol("void cutlass_cudnn_infer::Kernel<cutlass_tensorop_s1688dgrad_optimized_tf32_256x64_16x4_"
                   "nhwc_unity_stride_align4>(cutlass_tensorop_s1688dgrad_optimized_tf32_256x64_16x4_nhwc_"
                   "unity_stride_align4::Params)"),
      "cutlass_cudnn_infer::Kernel<cutlass_tensorop_s1688dgrad_optimized_tf32_256x64_16x4_nhwc_unity_stride_"
      "align4>");
  // FlashAttention's kernel (CUTLASS types in its traits): the first argument is a type, folded.
  EXPECT_EQ(short_symbol(
                "void flash::flash_fwd_kernel<Flash_fwd_kernel_traits<(int)128, (int)128, (int)64, (int)4, "
                "(bool)0, (bool)0, cutlass::bfloat16_t, Flash_kernel_traits<(int)128, (int)128, (int)64, "
                "(int)4, cutlass::bfloat16_t>>, (bool)0, (bool)0, (bool)0, (bool)0, (bool)0, (bool)1, "
                "(bool)0, (bool)0>(flash::Flash_fwd_params)"),
            "flash::flash_fwd_kernel<…>");
}

TEST(ShortSymbol, NcclKernelsLoseTheirParameters) {
  EXPECT_EQ(short_symbol("ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)"),
            "ncclKernel_AllReduce_RING_LL_Sum_float");
  EXPECT_EQ(short_symbol("ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<(unsigned long)4096>)"),
            "ncclDevKernel_SendRecv");
  EXPECT_EQ(short_symbol("ncclDevKernel_Generic(ncclDevKernelArgsStorage<4096ul>)"), "ncclDevKernel_Generic");
  EXPECT_EQ(short_symbol("ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t"),
            "ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t");
}

TEST(ShortSymbol, TritonKernelsStayAsTheyAre) {
  EXPECT_EQ(short_symbol("triton_poi_fused_constant_pad_nd_moe_forward_0"),
            "triton_poi_fused_constant_pad_nd_moe_forward_0");
  EXPECT_EQ(short_symbol("triton__0d1d2d3d4d5d6d7d8d9d10d11d12d13d14"),
            "triton__0d1d2d3d4d5d6d7d8d9d10d11d12d13d14");
}

TEST(ShortSymbol, PyTorchKernelsFoldNamespacesLambdasAndUnnamedOnes) {
  // EDG's "<unnamed>" namespace inside the template arguments, and std::array's.
  EXPECT_EQ(
      short_symbol("void at::native::vectorized_elementwise_kernel<(int)4, at::native::AUnaryFunctor<long, "
                   "long, bool, at::native::<unnamed>::CompareEqFunctor<long>>, std::array<char *, (unsigned "
                   "long)2>>(int, T2, T3)"),
      "at::…::vectorized_elementwise_kernel<…>");
  // A lambda in the template arguments.
  EXPECT_EQ(short_symbol(
                "void at::native::elementwise_kernel<(int)128, (int)4, void at::native::gpu_kernel_impl<at::"
                "native::CUDAFunctor_add<float>>(at::TensorIteratorBase &, const T1 &)::[lambda(int) "
                "(instance 1)]>(int, T3)"),
            "at::…::elementwise_kernel<…>");
  EXPECT_EQ(
      short_symbol("void at::native::(anonymous namespace)::max_pool_backward_nchw<float, float>(int, float "
                   "const*, long const*, int, int, float*)"),
      "at::…::max_pool_backward_nchw<…>");
  EXPECT_EQ(short_symbol("at::native::vectorized_elementwise_kernel"),
            "at::…::vectorized_elementwise_kernel");
}

TEST(ShortSymbol, MangledNamesAreDemangledFirst) {
  // c++filt: void cudnn::detail::dgrad_engine<float, 512>(int, float const*)
  EXPECT_EQ(demangled("_ZN5cudnn6detail12dgrad_engineIfLi512EEEviPKf"),
            "void cudnn::detail::dgrad_engine<float, 512>(int, float const*)");
  EXPECT_EQ(short_symbol("_ZN5cudnn6detail12dgrad_engineIfLi512EEEviPKf"), "cudnn::…::dgrad_engine<…>");
  EXPECT_EQ(demangled("_Znot a name"), "_Znot a name");
}

TEST(ShortSymbol, NamesThatAreNotSignaturesStay) {
  for (const char* name :
       {"enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", "PjitFunction(train_step)",
        "Memcpy HtoD (Pageable -> Device)", "aten::cudnn_convolution_backward_weight",
        "FSDP::post_forward (blocks.#._checkpoint_wrapped_module)", "<built-in method to of Tensor object>",
        "aten::mm [[15360,4096],[4096,24576]]", "ProfilerStep#5", "nn.Module: Linear(in_features=64)",
        "unbalanced<(name", ""})
    EXPECT_EQ(short_symbol(name), name);
}

TEST(ShortSymbols, EachNameOfALabelFolds) {
  EXPECT_EQ(
      short_symbols("rank-0: void cudnn::detail::dgrad_engine<float, 512>(int, float const*) (GPU compute)"),
      "rank-0: cudnn::…::dgrad_engine<…> (GPU compute)");
  EXPECT_EQ(short_symbols("enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__ (host)"),
            "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__ (host)");
  EXPECT_EQ(short_symbols("aten::convolution_backward [[64,64,32,32],[64,32,32,32]] precision"),
            "aten::convolution_backward [[64,64,32,32],[64,32,32,32]] precision");
}

TEST(CodePoints, CountAndCutCharactersNotBytes) {
  EXPECT_EQ(code_points("cudnn::…::x"), 11u);  // "…" is three bytes, one character
  EXPECT_EQ(cut_to_code_points("abcdef", 6), "abcdef");
  EXPECT_EQ(cut_to_code_points("abcdefg", 6), "abcde…");
  EXPECT_EQ(cut_to_code_points("ééééééé", 4), "ééé…");
}

}  // namespace
}  // namespace perfgate
