// Issue 89, build item 2: every label, title and caption in the capture's words. The gate turns the
// rules' vocabulary into the capture's words for the outputs' fixed terms; the rule titles, the
// tables' titles and every renderer's labels read them. Names from the trace keep their words.
#include <gtest/gtest.h>

#include <regex>

#include "gate/gate.h"
#include "render/render.h"
#include "support/helpers.h"

namespace perfgate::testing {
namespace {

bool says(const std::string& text, std::string_view what) {
  return text.find(what) != std::string::npos;
}

TEST(CaptureTerms, WholeWordsAreReplacedLongestFirst) {
  CaptureTerms tpu = {{"Tensor Cores", "MXUs"},
                      {"Tensor Core", "MXU"},
                      {"Tensor-Core", "MXU"},
                      {"GPUs", "TPUs"},
                      {"GPU", "TPU"}};
  EXPECT_EQ(in_capture_terms("GPU utilization of 4 GPUs", tpu), "TPU utilization of 4 TPUs");
  EXPECT_EQ(in_capture_terms("Tensor-Core-eligible ops do not use Tensor Cores", tpu),
            "MXU-eligible ops do not use MXUs");
  EXPECT_EQ(in_capture_terms("Tensor Core efficiency, multi-GPU", tpu), "MXU efficiency, multi-TPU");
  // Not whole words: left as they are.
  EXPECT_EQ(in_capture_terms("GPUx nvGPU gpu_us GPU_id", tpu), "GPUx nvGPU gpu_us GPU_id");
  EXPECT_EQ(in_capture_terms("GPU busy", {}), "GPU busy");
}

// Issue 91: "a GPU" in an MTIA capture is "an MTIA", and "an" before a word that takes "a" is "a";
// the articles the rules' "a {device}" put before a word change the same way, and only those.
TEST(CaptureTerms, TheArticleFollowsTheWord) {
  CaptureTerms mtia = {{"GPUs", "MTIA devices"}, {"GPU", "MTIA"}, {"Tensor Core", "dot-product engine"}};
  EXPECT_EQ(in_capture_terms("A GPU idles; a GPU kernel; on a Tensor Core", mtia),
            "An MTIA idles; an MTIA kernel; on a dot-product engine");
  CaptureTerms tpu = {{"GPU", "TPU"}, {"Tensor Core", "MXU"}};
  EXPECT_EQ(in_capture_terms("a GPU, a Tensor Core, data GPU", tpu), "a TPU, an MXU, data TPU");
  std::vector<std::pair<std::string, std::string>> words = {
      {"device", "MTIA"}, {"runtime", "HIP runtime"}, {"kernel", "XLA op"}, {"step", "iteration"}};
  EXPECT_EQ(
      with_articles("A MTIA had no work; a HIP runtime; a XLA op; a iteration; a MTIAx; data MTIA", words),
      "An MTIA had no work; a HIP runtime; an XLA op; an iteration; a MTIAx; data MTIA");
}

// The page's own words: without its script and style, the rules' sources (a citation keeps its
// source's words: "TensorBoard plugin recommendations (GPU utilization < 50%)") and tooltips (the
// classification's patterns and sources).
std::string page_prose(const std::string& page) {
  std::string out;
  for (std::size_t at = 0; at < page.size();) {  // without <script> and <style> (std::regex recurses)
    std::size_t open = std::min(page.find("<script", at), page.find("<style", at));
    out += page.substr(at, open == std::string::npos ? std::string::npos : open - at);
    if (open == std::string::npos) break;
    std::string_view close = page.compare(open, 7, "<script") == 0 ? "</script>" : "</style>";
    std::size_t end = page.find(close, open);
    at = end == std::string::npos ? page.size() : end + close.size();
  }
  out = std::regex_replace(out, std::regex("Source: [^<]*"), " ");
  return std::regex_replace(out, std::regex(R"( title="[^"]*")"), " ");
}

// One step of one kernel whose device the test names by the capture profile.
ReportModel gated(const CaptureProfile& capture) {
  TraceBuilder t;
  t.step(1, 0, 1000).op("aten::mm", 10, 30, 1, 1).launch("gemm_kernel", 12, 50, 100, 1);
  ReportModel report = report_of_json(t.json(), default_book());
  report.capture = capture;
  apply_gate(report, default_rules(), nullptr, {});
  return report;
}

CaptureProfile on(DeviceKind kind, DeviceVendor vendor) {
  CaptureProfile p;
  p.devices.push_back({kind, vendor, "", 4, "set by the test"});
  p.frameworks.push_back({"jax", "set by the test"});
  return p;
}

TEST(CaptureTerms, ATpuPageSaysTpuAndMxu) {
  ReportModel r = gated(on(DeviceKind::Tpu, DeviceVendor::Tpu));
  const ReportFinding* low = find_finding(r, "gpu.low-utilization");
  ASSERT_NE(low, nullptr);
  EXPECT_EQ(low->title, "TPU utilization is low");
  if (const ReportFinding* tc = find_finding(r, "tensor-cores.low-efficiency")) {
    EXPECT_EQ(tc->title, "MXU efficiency is low");
  }
  std::string terminal = render_terminal(r);
  EXPECT_TRUE(says(terminal, "TPU utilization")) << terminal;
  EXPECT_FALSE(says(terminal, "GPU")) << terminal;
  EXPECT_FALSE(says(terminal, "Tensor Core")) << terminal;
  std::string page = page_prose(render_html(r).page);
  EXPECT_TRUE(says(page, "Top TPU ops") || says(page, "TPU utilization")) << "no TPU label on the page";
  EXPECT_FALSE(says(page, "GPU utilization"));
  EXPECT_FALSE(says(page, "Tensor Core"));
  // The trace's own names keep their words: the kernel is still gemm_kernel.
  EXPECT_TRUE(says(page, "gemm_kernel"));
}

TEST(CaptureTerms, AnAmdPageSaysMatrixCoresAndGpu) {
  ReportModel r = gated(on(DeviceKind::Gpu, DeviceVendor::Amd));
  const ReportFinding* amp = find_finding(r, "tensor-cores.amp");
  ASSERT_NE(amp, nullptr);
  EXPECT_EQ(amp->title.find("Matrix Cores are not used"), 0u) << amp->title;
  std::string terminal = render_terminal(r);
  EXPECT_TRUE(says(terminal, "GPU utilization")) << terminal;
  EXPECT_FALSE(says(terminal, "Tensor Core")) << terminal;
  std::string md = render_markdown(r);
  EXPECT_FALSE(says(md, "Tensor Core")) << md;
  // CUPTI's SM counters are NVIDIA's: no n/a card of them on another vendor's page (the GPUs
  // table keeps its declared columns, empty).
  EXPECT_FALSE(says(page_prose(render_html(r).page), "<dt>SM efficiency, of the window</dt>"));
  EXPECT_FALSE(says(terminal, "SM efficiency")) << terminal;
}

TEST(CaptureTerms, AnNvidiaOrUnknownPageKeepsTheFixedTerms) {
  for (const CaptureProfile& capture : {on(DeviceKind::Gpu, DeviceVendor::Nvidia), CaptureProfile{}}) {
    ReportModel r = gated(capture);
    EXPECT_TRUE(r.terms.empty());
    std::string terminal = render_terminal(r);
    EXPECT_TRUE(says(terminal, "GPU utilization")) << terminal;
    EXPECT_TRUE(says(terminal, "Tensor Core")) << terminal;
    EXPECT_TRUE(says(page_prose(render_html(r).page), "<dt>SM efficiency, of the window</dt>"));
  }
}

// A rule about one framework's modules is not listed for a capture of another framework.
TEST(CaptureTerms, APyTorchRuleIsNotListedForAJaxCapture) {
  ReportModel jax = gated(on(DeviceKind::Gpu, DeviceVendor::Nvidia));
  EXPECT_EQ(find_finding(jax, "distributed.ddp-without-nccl"), nullptr);
  CaptureProfile pytorch = on(DeviceKind::Gpu, DeviceVendor::Nvidia);
  pytorch.frameworks = {{"pytorch", "set by the test"}};
  EXPECT_NE(find_finding(gated(pytorch), "distributed.ddp-without-nccl"), nullptr);
  EXPECT_NE(find_finding(gated(CaptureProfile{}), "distributed.ddp-without-nccl"), nullptr);
}

}  // namespace
}  // namespace perfgate::testing
