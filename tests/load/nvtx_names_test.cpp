// What an NVTX range text means: emit_nvtx suffixes, PyProf dict literals, plain regions.
#include <gtest/gtest.h>

#include "load/nsys/nvtx_names.h"

namespace perfgate::nsys {
namespace {

TEST(NvtxNames, EmitNvtxSuffixesAreStrippedAndKept) {
  NvtxText t = read_nvtx_text("aten::mm, seq = 3, op_id = 7, sizes = [[2, 3], [3, 4]]");
  EXPECT_EQ(t.meaning, NvtxMeaning::Op);
  EXPECT_EQ(t.name, "aten::mm");
  EXPECT_EQ(t.sequence, 3);
  EXPECT_EQ(t.input_dims, "[[2,3],[3,4]]");
}

TEST(NvtxNames, OpIdWithoutSeqAndStashedSeq) {
  NvtxText a = read_nvtx_text("detach_, op_id = 990725");
  EXPECT_EQ(a.meaning, NvtxMeaning::Op);
  EXPECT_EQ(a.name, "detach_");
  EXPECT_EQ(a.sequence, -1);
  NvtxText b = read_nvtx_text("MmBackward0, stashed seq = 12, op_id = 5");
  EXPECT_EQ(b.name, "MmBackward0");
  EXPECT_EQ(b.sequence, 12);
}

TEST(NvtxNames, AtenNameWithoutSuffixIsAnOpOtherNamespacesAreRegions) {
  EXPECT_EQ(read_nvtx_text("aten::view").meaning, NvtxMeaning::Op);
  EXPECT_EQ(read_nvtx_text("TransformReplay::replayCasP").meaning, NvtxMeaning::Region);
  EXPECT_EQ(read_nvtx_text("fusion_executor::allocations::allocateTensor").meaning, NvtxMeaning::Region);
  NvtxText r = read_nvtx_text("forward pass");
  EXPECT_EQ(r.meaning, NvtxMeaning::Region);
  EXPECT_EQ(r.name, "forward pass");
}

TEST(NvtxNames, PyProfOpDictGivesShapesTypesAndAtenName) {
  NvtxText t = read_nvtx_text(
      "{'mod': 'torch.nn.functional', 'op': 'linear', 'args': [{'name': 'input', 'type': 'tensor', "
      "'shape': (32, 64), 'dtype': 'float16'}, {'name': 'weight', 'type': 'tensor', 'shape': (128, 64), "
      "'dtype': 'torch.float16'}, {'name': 'bias', 'type': 'NoneType', 'value': None}]}");
  EXPECT_EQ(t.meaning, NvtxMeaning::Op);
  EXPECT_EQ(t.name, "aten::linear");
  EXPECT_EQ(t.input_dims, "[[32,64],[128,64],[]]");
  EXPECT_EQ(t.input_types, R"(["c10::Half","c10::Half",""])");
}

TEST(NvtxNames, PyProfDunderMethodsAndScalars) {
  NvtxText t = read_nvtx_text(
      "{'mod': 'Tensor', 'op': '__matmul__', 'args': [{'name': '', 'type': 'tensor', 'shape': (8,), "
      "'dtype': 'float32'}, {'name': '', 'type': 'int', 'value': 3}]}");
  EXPECT_EQ(t.name, "aten::matmul");
  EXPECT_EQ(t.input_dims, "[[8],[]]");
  EXPECT_EQ(t.input_types, R"(["float","Scalar"])");
}

TEST(NvtxNames, PyProfTraceMarkerIsACallStack) {
  NvtxText t = read_nvtx_text("{'traceMarker': ['train.py:10', \"model.py:20\"]}");
  EXPECT_EQ(t.meaning, NvtxMeaning::CallStack);
  EXPECT_EQ(t.call_stack, "train.py:10;model.py:20");
}

TEST(NvtxNames, PyProfModuleMarkerIsARegionNamedAfterTheModule) {
  NvtxText t = read_nvtx_text("{'mod': 'Linear', 'strRepr': 'Linear(in_features=64)'}");
  EXPECT_EQ(t.meaning, NvtxMeaning::Region);
  EXPECT_EQ(t.name, "Linear");
}

TEST(NvtxNames, BrokenOrTooDeepDictsAreNeverShownRaw) {
  std::string deep = "{'op': " + std::string(100, '[') + std::string(100, ']') + "}";
  for (const std::string& text : {deep, std::string("{'op': 'mm', 'args': [}"), std::string("{'op': 'mm'")}) {
    NvtxText t = read_nvtx_text(text);
    EXPECT_EQ(t.name.find("{'op'"), std::string::npos) << t.name;
    EXPECT_EQ(t.meaning, NvtxMeaning::Region);
  }
  EXPECT_EQ(read_nvtx_text("{curly user range}").name, "{curly user range}");
}

}  // namespace
}  // namespace perfgate::nsys
