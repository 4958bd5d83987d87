// Symbol names as profilers show them in a narrow place (Nsight Systems' "shortened" kernel names,
// Perfetto's and Chrome's slice titles): a C++ kernel's demangled signature folded to its name, its
// template arguments and inner namespaces marked as folded ("cudnn::…::dgrad_engine<…>"). The whole
// name stays in the tables and in a tooltip; a headline names the short one (issue 93).
#pragma once

#include <string>
#include <string_view>

namespace perfgate {

// A mangled name ("_Z...") demangled; any other name, or one that does not demangle, as it is.
std::string demangled(std::string_view name);

// The name folded for a headline:
//   "void cudnn::detail::dgrad_engine<float, 512>(int, float const*)" -> "cudnn::…::dgrad_engine<…>"
//   "ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long)" ->
//   "ncclKernel_AllReduce_RING_LL_Sum_float" "void
//   cutlass::Kernel<cutlass_80_tensorop_s1688gemm_64x64_nn>(Params)"
//                                        -> "cutlass::Kernel<cutlass_80_tensorop_s1688gemm_64x64_nn>"
// A generic wrapper keeps its one template argument where that is a generated kernel's name, as
// short_kernel_name does. Names that are not C++ signatures ("enumerate(DataLoader)#...__next__",
// "PjitFunction(train_step)", "Memcpy HtoD (Pageable -> Device)", "aten::mm") come back unchanged.
std::string short_symbol(std::string_view name);

// Each name in a label of several, separated by spaces outside brackets, folded as short_symbol
// folds one: "rank-0: void cudnn::detail::dgrad_engine<float, 512>(int) (GPU compute)" ->
// "rank-0: cudnn::…::dgrad_engine<…> (GPU compute)" (a signature's "void" goes with it).
std::string short_symbols(std::string_view label);

}  // namespace perfgate
