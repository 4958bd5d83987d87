// An MTIA's Kineto trace (issue 91, item 3): its mtia_ccp_events are the device's work, the device
// is an MTIA, and a device lane of a category perfgate does not read is named with its count. The
// shape of the events is that of HTA's MTIA test trace (tests/data/mtia_trace_single_rank): a
// device pid labelled "MTIA 9" (process_labels), kernels with args.correlation and args.stream on
// "Stream 1 FW", dma_request events with args.direction and args.size, and the host's
// mtia_runtime launches ("runFunction - job_prep_and_submit_for_execution").
#include <gtest/gtest.h>

#include <string>

#include "gate/gate.h"
#include "load/kineto/categories.h"
#include "render/render.h"
#include "support/helpers.h"

namespace perfgate::testing {
namespace {

std::string mtia_event(const std::string& name, double ts, double dur, int tid, const std::string& args) {
  return R"({"ph": "X", "cat": "mtia_ccp_events", "name": ")" + name + R"(", "pid": 9, "tid": )" +
         std::to_string(tid) + R"(, "ts": )" + std::to_string(ts) + R"(, "dur": )" + std::to_string(dur) +
         R"(, "args": {)" + args + "}}";
}

std::string launch(double ts, double dur, int correlation) {
  return R"({"ph": "X", "cat": "mtia_runtime", "name": "runFunction - job_prep_and_submit_for_execution", )"
         R"("pid": 100, "tid": 1, "ts": )" +
         std::to_string(ts) + R"(, "dur": )" + std::to_string(dur) + R"(, "args": {"correlation": )" +
         std::to_string(correlation) + "}}";
}

// One step, 100..1100 µs. The MTIA runs fc 200..500 and add 550..700 (kernels, stream 1) and a
// DMA 750..800 (device to host, 1 MiB, on the DMA_REQUEST lane): busy 300 + 150 + 50 = 500 µs,
// kernels 450 µs, idle 1000 - 500 = 500 µs. Three launches: 150..250 (the device runs from 200:
// 50 µs of it with no device work), 400..600 (500..550 idle: 50 µs), 900..1000 (100 µs): 400 µs
// of runtime calls, 200 µs of them with no device work running.
TraceBuilder mtia_step() {
  TraceBuilder t;
  t.top_level("distributedInfo", R"({"backend": "mtia:hccl,cpu:gloo", "rank": 0, "world_size": 1})")
      .raw_event(
          R"({"name": "process_name", "ph": "M", "ts": 0, "pid": 9, "tid": 0, "args": {"name": "MTIA 9"}})")
      .raw_event(
          R"({"name": "process_labels", "ph": "M", "ts": 0, "pid": 9, "tid": 0, "args": {"labels": "MTIA 9"}})")
      .raw_event(
          R"({"name": "process_labels", "ph": "M", "ts": 0, "pid": 100, "tid": 0, "args": {"labels": "CPU"}})")
      .raw_event(
          R"({"name": "thread_name", "ph": "M", "ts": 0, "pid": 9, "tid": 4, "args": {"name": "Stream 1 FW"}})")
      .step(1, 100, 1000)
      .op("aten::addmm", 140, 120, 11)
      .raw_event(launch(150, 100, 1))
      .op("aten::add", 390, 220, 12)
      .raw_event(launch(400, 200, 2))
      .op("aten::add", 890, 120, 13)
      .raw_event(launch(900, 100, 3))
      .raw_event(mtia_event("fc-dtype_Float", 200, 300, 4,
                            R"("correlation": 1, "stream": 1, "column": "0", "row": "0", "packet_ptr": 235)"))
      .raw_event(mtia_event("add-dtype_Float", 550, 150, 4,
                            R"("correlation": 2, "stream": 1, "column": "0", "row": "0", "packet_ptr": 236)"))
      .raw_event(mtia_event(
          "dma_request", 750, 50, 801,
          R"("direction": "DEVICE_TO_HOST", "size": 1048576, "k_work_ptr": 3221765736, "sqid": 0)"));
  return t;
}

TEST(MtiaTrace, CcpEventsAreTheDevicesKernelsAndCopies) {
  EXPECT_EQ(kineto::classify_category("mtia_ccp_events"), kineto::EventClass::MtiaDevice);
  Profile p = load_json(mtia_step().json());
  ASSERT_EQ(p.gpu_activities.size(), 3u);
  ASSERT_NE(p.device(9), nullptr);  // no deviceProperties: the reader names the device an MTIA
  EXPECT_EQ(p.device(9)->name, "MTIA");
  EXPECT_EQ(p.info.family, DeviceFamily::Gpu);
  int kernels = 0;
  for (const GpuActivity& a : p.gpu_activities) {
    EXPECT_EQ(a.device, 9);  // the pid: the device's lane
    if (a.kind == GpuActivityKind::Kernel) {
      ++kernels;
      EXPECT_EQ(a.stream, 1u);
    } else {
      EXPECT_EQ(a.kind, GpuActivityKind::Memcpy);
      EXPECT_EQ(a.copy_kind, CopyKind::DeviceToHost);
      EXPECT_EQ(a.bytes, 1048576u);
      EXPECT_EQ(a.stream, 801u);  // no args.stream: its tid
    }
  }
  EXPECT_EQ(kernels, 2);
  for (const Note& n : p.notes) EXPECT_NE(n.id, NoteId::kineto_category_unused) << note_text(n);
}

TEST(MtiaTrace, TheMtiaIsBusyIdleAndNamedAsOne) {
  WorkerAnalysis w = analyse_json(mtia_step().json());
  ASSERT_EQ(w.gpus.size(), 1u);
  EXPECT_EQ(w.gpus[0].busy_ns, 500'000);    // 300 + 150 + 50 µs
  EXPECT_EQ(w.gpus[0].kernel_ns, 450'000);  // fc and add
  ASSERT_TRUE(w.metrics.get(Metric::GpuBusyPct));
  EXPECT_NEAR(*w.metrics.get(Metric::GpuBusyPct), 50.0, 1e-9);  // 500 of the 1,000 µs step
  ASSERT_TRUE(w.metrics.get(Metric::GpuIdlePct));
  EXPECT_NEAR(*w.metrics.get(Metric::GpuIdlePct), 50.0, 1e-9);
  // Runtime calls with no device work running: 50 + 50 + 100 = 200 of 1,000 µs (main: 400, all of
  // the launches, with the device's work unread).
  ASSERT_TRUE(w.metrics.get(Metric::BreakdownRuntimePct));
  EXPECT_NEAR(*w.metrics.get(Metric::BreakdownRuntimePct), 20.0, 1e-9);
  ASSERT_TRUE(w.metrics.get(Metric::BreakdownKernelPct));
  EXPECT_NEAR(*w.metrics.get(Metric::BreakdownKernelPct), 45.0, 1e-9);
  // No Tensor Cores on an MTIA (dot-product engines): n/a, never 0%.
  EXPECT_FALSE(w.metrics.get(Metric::TensorCoreKernelTimePct));

  ASSERT_EQ(w.capture.devices.size(), 1u);
  EXPECT_EQ(w.capture.devices[0].kind, DeviceKind::Mtia);
  EXPECT_EQ(w.capture.devices[0].vendor, DeviceVendor::Mtia);
  EXPECT_EQ(w.capture.devices[0].count, 1u);
}

TEST(MtiaTrace, TheReportSaysMtiaAndGivesNoCudaAdvice) {
  ReportModel report = report_of_json(mtia_step().json(), default_book());
  apply_gate(report, default_rules(), nullptr, {});
  EXPECT_NE(capture_line(report.capture).find("MTIA ×1"), std::string::npos) << capture_line(report.capture);
  const ReportFinding* runtime = find_finding(report, "host.runtime-share");
  ASSERT_NE(runtime, nullptr);
  // 20% is over the rule's 10%: it fires, in the MTIA's words.
  EXPECT_NE(runtime->problem.find("no MTIA work running"), std::string::npos) << runtime->problem;
  for (const ReportFinding& f : report.findings) {
    for (const std::string& text : {f.problem, f.recommendation}) {
      EXPECT_EQ(text.find("GPU"), std::string::npos) << f.id << ": " << text;
      EXPECT_EQ(text.find("CUDA"), std::string::npos) << f.id << ": " << text;
      EXPECT_EQ(text.find("cuda"), std::string::npos) << f.id << ": " << text;
    }
  }
}

// A lane the trace declares a device's ("ACME 3"), of a category perfgate does not read: named with
// its count as device work left out, never "CPU only".
TEST(MtiaTrace, AnUnreadDeviceLaneIsNamedWithItsCount) {
  TraceBuilder t;
  t.raw_event(
       R"({"name": "process_labels", "ph": "M", "ts": 0, "pid": 3, "tid": 0, "args": {"labels": "ACME 3"}})")
      .raw_event(
          R"({"name": "process_labels", "ph": "M", "ts": 0, "pid": 100, "tid": 0, "args": {"labels": "CPU"}})")
      .step(1, 100, 1000)
      .op("aten::mm", 150, 100, 1)
      .raw_event(
          R"({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 100, "tid": 1, "ts": 160, "dur": 30, "args": {"correlation": 5}})")
      .raw_event(
          R"({"ph": "X", "cat": "acme_device_events", "name": "mm", "pid": 3, "tid": 1, "ts": 200, "dur": 300})")
      .raw_event(
          R"({"ph": "X", "cat": "acme_device_events", "name": "add", "pid": 3, "tid": 1, "ts": 600, "dur": 50})")
      .raw_event(
          R"({"ph": "X", "cat": "acme_host_events", "name": "x", "pid": 100, "tid": 1, "ts": 600, "dur": 5})");
  Profile p = load_json(t.json());
  EXPECT_TRUE(has_line(p.notes,
                       "skipped 2 complete events of category 'acme_device_events' on the device lane "
                       "'ACME 3': device work perfgate does not read"));
  EXPECT_TRUE(has_line(p.notes, "1 complete events of category 'acme_host_events' are not used"));

  ReportModel report = report_of_json(t.json(), default_book());
  apply_gate(report, default_rules(), nullptr, {});
  TerminalOptions plain;
  std::string text = render_terminal(report, plain);
  EXPECT_EQ(text.find("no GPU activity"), std::string::npos) << text;
  EXPECT_EQ(text.find("Capture      CPU only"), std::string::npos) << text;

  WorkerAnalysis w = analyse_json(t.json());
  ASSERT_EQ(w.capture.devices.size(), 1u);
  EXPECT_NE(w.capture.devices[0].kind, DeviceKind::CpuOnly);
  EXPECT_NE(w.capture.devices[0].evidence.find("2 events on lanes the trace declares a device's"),
            std::string::npos)
      << w.capture.devices[0].evidence;
}

}  // namespace
}  // namespace perfgate::testing
