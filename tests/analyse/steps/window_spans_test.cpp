// Issue 42, item 4: a trace without steps states its capture span and its GPU span, with the GPUs'
// busy time over each, so that one long host wait (a serving trace's synchronising call) reads as
// what it is. The spans and shares are worked out by hand in the comments.
#include <gtest/gtest.h>

#include "render/render.h"
#include "support/helpers.h"

namespace perfgate::testing {
namespace {

double metric(const WorkerAnalysis& w, Metric id) {
  return w.metrics.get(id).value_or(-1);
}

// No ProfilerStep#: a Python frame "serve" [0, 2000] us holds everything. aten::mm [100, 120] launches
// gemm [200, 250]; a cudaStreamSynchronize [130, 1130] waits on the host; aten::add [1200, 1210]
// launches add_kernel [1300, 1400]; a DtoD copy [1450, 1470] ran with no launch in the trace.
//   capture span: the Python frame, 0 to 2000 us = 2000 us
//   GPU span: gemm's start to the copy's end, 200 to 1470 us = 1270 us
//   GPU busy over the capture: 50 + 100 + 20 = 170 us: 8.5% of the capture span,
//     170 / 1270 = 13.385826...% of the GPU span
//   the window (the plugin's): the ops' span [100, 1210] extended to the GPU work they launched,
//     [100, 1400] = 1300 us, busy 150 us in it (the copy is after it): 11.538...%
std::string serving_like_trace() {
  TraceBuilder t;
  t.python_function("serve", 0, 2000);
  t.op("aten::mm", 100, 20, 1);
  t.launch("gemm", 105, 200, 50, 1);
  t.runtime("cudaStreamSynchronize", 130, 1000, 77);
  t.op("aten::add", 1200, 10, 2);
  t.launch("add_kernel", 1202, 1300, 100, 2);
  t.memcpy("Memcpy DtoD (Device -> Device)", 1450, 20, 0);
  return t.json();
}

TEST(WindowSpans, AStepLessTraceStatesItsCaptureAndGpuSpansWithBusyTimeOverBoth) {
  WorkerAnalysis w = analyse_json(serving_like_trace());
  ASSERT_EQ(w.steps.source, StepSource::None);
  EXPECT_DOUBLE_EQ(metric(w, Metric::WindowWallUs), 1300);
  EXPECT_DOUBLE_EQ(metric(w, Metric::WindowCaptureSpanUs), 2000);
  EXPECT_DOUBLE_EQ(metric(w, Metric::WindowGpuSpanUs), 1270);
  EXPECT_DOUBLE_EQ(metric(w, Metric::GpuCaptureBusyUs), 170);
  EXPECT_DOUBLE_EQ(metric(w, Metric::GpuBusyOfCapturePct), 8.5);
  EXPECT_NEAR(metric(w, Metric::GpuBusyOfGpuSpanPct), 100.0 * 170 / 1270, 1e-9);
  EXPECT_NEAR(metric(w, Metric::GpuBusyPct), 100.0 * 150 / 1300, 1e-9);
}

TEST(WindowSpans, TheTerminalAndHtmlSummariesStateBothSpans) {
  ReportModel report = report_of_json(serving_like_trace(), default_book());
  std::string terminal = render_terminal(report);
  EXPECT_NE(terminal.find("whole trace (no steps), 1.30 ms wall · capture span 2.00 ms · GPU span 1.27 ms · "
                          "GPU busy 170.0 us (8.5% of the capture span, 13.4% of the GPU span)"),
            std::string::npos)
      << terminal;
  std::string page = render_html(report).page;
  EXPECT_NE(page.find("Capture span"), std::string::npos);
  EXPECT_NE(page.find("GPU busy of the GPU span"), std::string::npos);
}

// With steps the spans are metrics too (the whole capture, whatever the window), but the window
// line stays the steps'.
TEST(WindowSpans, StepsKeepTheirWindowLineAndTheSpansStayMetrics) {
  TraceBuilder t;
  t.python_function("train", 0, 500);
  t.step(1, 10, 100);
  t.op("aten::mm", 20, 10, 1);
  t.launch("gemm", 22, 40, 30, 1);
  t.memcpy("Memcpy HtoD (Pageable -> Device)", 300, 10, 0);
  WorkerAnalysis w = analyse_json(t.json());
  EXPECT_DOUBLE_EQ(metric(w, Metric::WindowCaptureSpanUs), 500);  // the Python frame
  EXPECT_DOUBLE_EQ(metric(w, Metric::WindowGpuSpanUs), 270);      // 40 to 310
  EXPECT_DOUBLE_EQ(metric(w, Metric::GpuCaptureBusyUs), 40);      // 30 + 10, the copy after the step too
  ReportModel report = report_of_json(t.json(), default_book());
  EXPECT_EQ(render_terminal(report).find("capture span"), std::string::npos);
}

}  // namespace
}  // namespace perfgate::testing
