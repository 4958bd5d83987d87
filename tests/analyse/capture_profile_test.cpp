// Issue 89: the capture profile, decided once by the analysis from hand-built traces whose answers
// are worked out here: the devices from what the readers recorded, the frameworks and the workload
// from the names the rules mark (classification: capture_frameworks, capture_workloads), backward
// ops and serving steps; the run's profile from its workers'; a rule file's `capture:` and
// --workload over it; its one line and its JSON.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <string>

#include "analyse/analysis.h"
#include "gate/run_context.h"
#include "load/xplane/xplane_reader.h"
#include "neuron/neuron_fixture.h"
#include "render/render.h"
#include "support/helpers.h"
#include "support/xspace_builder.h"

namespace perfgate::testing {
namespace {

constexpr std::int64_t kGiB = 1LL << 30;

std::vector<std::string> names_of(const CaptureProfile& c) {
  std::vector<std::string> out;
  for (const CaptureFramework& f : c.frameworks) out.push_back(f.name);
  return out;
}

bool has(const std::vector<std::string>& names, std::string_view name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

// One 1 ms step on an H100: aten::mm launching a GEMM; `backward` adds MmBackward0 and the aten::mm
// it runs (the autograd node: the evidence of training).
TraceBuilder h100_step(bool backward) {
  TraceBuilder t;
  t.device(0, "NVIDIA H100 80GB HBM3", 9, 0, 80 * kGiB, 132);
  t.step(1, 0, 1000);
  t.op("aten::mm", 10, 30, 1);
  t.launch("nvjet_sm90_tst_128x64_64x8_1x1_v_bz_NNT", 12, 50, 100, 1);
  if (backward) {
    t.op("MmBackward0", 300, 40, 2);
    t.op("aten::mm", 305, 30, 3);
    t.launch("nvjet_sm90_tst_128x64_64x8_1x1_v_bz_NNT", 310, 350, 100, 3);
  }
  return t;
}

TEST(CaptureProfile, BackwardOpsMakeATrainingRunOnItsGpu) {
  WorkerAnalysis w = analyse_json(h100_step(true).json());
  const CaptureProfile& c = w.capture;
  ASSERT_EQ(c.devices.size(), 1u);
  EXPECT_EQ(c.devices[0].kind, DeviceKind::Gpu);
  EXPECT_EQ(c.devices[0].vendor, DeviceVendor::Nvidia);
  EXPECT_EQ(c.devices[0].model, "NVIDIA H100 SXM");  // the peak table's name of "H100 80GB HBM3"
  EXPECT_EQ(c.devices[0].count, 1u);
  EXPECT_EQ(c.workload, CaptureWorkload::Training);
  // Three op calls in the window (aten::mm, MmBackward0, its aten::mm); two in the backward pass.
  EXPECT_EQ(c.workload_evidence, "2 of the window's 3 op calls ran in the backward pass");
  EXPECT_TRUE(has(names_of(c), "pytorch"));
  EXPECT_TRUE(has(names_of(c), "cuda"));  // cudaLaunchKernel

  // The same step without MmBackward0: PyTorch ops, none in the backward pass, no server.
  WorkerAnalysis inference = analyse_json(h100_step(false).json());
  EXPECT_EQ(inference.capture.workload, CaptureWorkload::OfflineInference);
}

TEST(CaptureProfile, AVllmModelRunnerWithoutBackwardIsServing) {
  TraceBuilder t;
  t.device(0, "AMD Instinct MI300X", 9, 4, 192 * kGiB, 304);
  t.python_function("vllm/v1/worker/gpu_model_runner.py(3380): execute_model", 0, 900);
  t.op("vllm::unified_attention", 10, 30, 1);
  t.runtime("hipLaunchKernel", 12, 1, 5001, 1);
  t.kernel("paged_attention_kernel", 50, 200, 5001);
  t.op("aten::mm", 300, 30, 2);
  t.runtime("hipLaunchKernel", 302, 1, 5002, 2);
  t.kernel("Cijk_Alik_Bljk_BBS_BH", 350, 200, 5002);
  WorkerAnalysis w = analyse_json(t.json());
  const CaptureProfile& c = w.capture;
  EXPECT_EQ(c.workload, CaptureWorkload::Serving);
  EXPECT_EQ(c.workload_evidence, "vllm/v1/worker/gpu_model_runner.py(3380): execute_model, 1 call");
  std::vector<std::string> names = names_of(c);
  EXPECT_TRUE(has(names, "vllm"));
  EXPECT_TRUE(has(names, "pytorch"));
  EXPECT_TRUE(has(names, "hip"));
  EXPECT_FALSE(has(names, "cuda"));
  ASSERT_EQ(c.devices.size(), 1u);
  EXPECT_EQ(c.devices[0].vendor, DeviceVendor::Amd);
  EXPECT_EQ(c.devices[0].model, "AMD Instinct MI300X");
  // vllm's first marker: the Python function comes first in the trace (host events in thread order).
  for (const CaptureFramework& f : c.frameworks) {
    if (f.name == "vllm") {
      // Two vLLM markers: the model runner's Python function and the vllm::unified_attention op.
      EXPECT_EQ(f.evidence, "vllm/v1/worker/gpu_model_runner.py(3380): execute_model and 1 other call");
    }
  }
}

TEST(CaptureProfile, KernelsLaunchedWithNoFrameworkAreAPlainCudaBenchmark) {
  TraceBuilder t;
  t.device(0, "NVIDIA H100 80GB HBM3", 9, 0, 80 * kGiB, 132);
  for (int i = 0; i < 4; ++i) t.launch("saxpy_kernel", 100.0 * i, 100.0 * i + 5, 50);
  WorkerAnalysis w = analyse_json(t.json());
  const CaptureProfile& c = w.capture;
  EXPECT_EQ(names_of(c), (std::vector<std::string>{"cuda"}));
  // The four launches: the first named, the three others counted.
  EXPECT_EQ(c.frameworks[0].evidence, "cudaLaunchKernel and 3 other calls");
  EXPECT_EQ(c.workload, CaptureWorkload::MicroBenchmark);
  EXPECT_EQ(c.workload_evidence, "4 kernels with no framework op or annotation around them");
}

TEST(CaptureProfile, TorchCompileAndCudaGraphMarkers) {
  TraceBuilder t = h100_step(false);
  t.annotation("Torch-Compiled Region: 0/0", 400, 100);
  t.runtime("cudaGraphLaunch", 410, 5, 7001);
  t.kernel("triton_poi_fused_add_0", 420, 20, 7001);
  std::vector<std::string> names = names_of(analyse_json(t.json()).capture);
  EXPECT_TRUE(has(names, "torch.compile"));
  EXPECT_TRUE(has(names, "cuda-graphs"));
  // Without them, neither.
  std::vector<std::string> plain = names_of(analyse_json(h100_step(false).json()).capture);
  EXPECT_FALSE(has(plain, "torch.compile"));
  EXPECT_FALSE(has(plain, "cuda-graphs"));
}

TEST(CaptureProfile, AnXSpaceWithTpuPlanesIsATpuRunOfJax) {
  using namespace pb;
  enum : std::int64_t { kDeviceType = 1, kJaxVersion = 2 };
  auto tpu = [](std::int64_t id, std::string name) {
    Plane p = plane(id, std::move(name));
    p.stat_names = {{kDeviceType, "device_type_string"}};
    p.stats = {str_stat(kDeviceType, "TPU v6 lite")};
    p.event_names = {{1, "fusion.1"}};
    p.lines = {line(1, "XLA Ops", 0, {event(1, 1'000'000, 5'000'000)})};
    return p;
  };
  Plane host = plane(0, "/host:CPU");
  host.event_names = {{1, "TfrtTpuLoadedExecutable::Execute"}};
  host.lines = {line(4, "tf_inference", 0, {event(1, 0, 10'000'000)})};
  Plane metadata = plane(9, "/host:metadata");
  metadata.stat_names = {{kJaxVersion, "jax_version"}};
  metadata.stats = {str_stat(kJaxVersion, "0.4.35")};
  Profile p = xplane::read_space(space({tpu(1, "/device:TPU:0"), tpu(2, "/device:TPU:1"), host, metadata}),
                                 "tpu.xplane.pb", {});
  WorkerAnalysis w = analyse_profile(p, default_classification(), {});
  const CaptureProfile& c = w.capture;
  ASSERT_EQ(c.devices.size(), 1u);
  EXPECT_EQ(c.devices[0].kind, DeviceKind::Tpu);
  EXPECT_EQ(c.devices[0].vendor, DeviceVendor::Tpu);
  EXPECT_EQ(c.devices[0].model, "Google TPU v6e (Trillium)");
  EXPECT_EQ(c.devices[0].count, 2u);  // two TPU planes with work
  ASSERT_TRUE(has(names_of(c), "jax"));
  EXPECT_EQ(c.frameworks[0].evidence, "the profile's jax_version 0.4.35");
  EXPECT_FALSE(has(names_of(c), "cuda"));
  EXPECT_EQ(c.workload, CaptureWorkload::Unknown);  // nothing in it says training or serving
}

TEST(CaptureProfile, ANeuronProfileIsOneNeuronCore) {
  Profile p = load_json(neuron_full_json());
  WorkerAnalysis w = analyse_profile(p, default_classification(), {});
  ASSERT_EQ(w.capture.devices.size(), 1u);
  EXPECT_EQ(w.capture.devices[0].kind, DeviceKind::NeuronCore);
  EXPECT_EQ(w.capture.devices[0].vendor, DeviceVendor::Neuron);
  EXPECT_EQ(w.capture.devices[0].count, 1u);
}

TEST(CaptureProfile, ARunSumsDevicesUnitesFrameworksAndSaysWhenWorkloadsDiffer) {
  RunAnalysis same =
      combine_workers({analyse_json(h100_step(true).json()), analyse_json(h100_step(true).json())});
  ASSERT_EQ(same.capture.devices.size(), 1u);
  EXPECT_EQ(same.capture.devices[0].count, 2u);  // one H100 a worker
  EXPECT_EQ(same.capture.workload, CaptureWorkload::Training);
  // Each window: 1,000 us, summed over the two workers.
  ASSERT_TRUE(same.capture.phases.window_us);
  EXPECT_DOUBLE_EQ(*same.capture.phases.window_us, 2000);

  RunAnalysis mixed =
      combine_workers({analyse_json(h100_step(true).json()), analyse_json(h100_step(false).json())});
  EXPECT_EQ(mixed.capture.workload, CaptureWorkload::Unknown);
  EXPECT_EQ(mixed.capture.workload_evidence, "mixed: training (1 worker), offline-inference (1 worker)");
}

TEST(CaptureProfile, TheOneLine) {
  CaptureProfile c;
  c.devices = {{DeviceKind::Gpu, DeviceVendor::Amd, "AMD Instinct MI300X", 8, ""}};
  c.frameworks = {{"pytorch", ""}, {"vllm", ""}};
  c.workload = CaptureWorkload::Serving;
  c.phases.window_us = 1000;
  c.phases.steady_us = 970;  // 970 / 1000: 97%
  c.phases.setup_us = 5;     // 0.5%: under 1%, not named
  EXPECT_EQ(capture_line(c),
            "AMD Instinct MI300X ×8 · PyTorch + vLLM · inference serving · steady state 97% of the window");
  c.phases.setup_us = 30;  // 3%
  c.overridden = {"workload"};
  EXPECT_EQ(
      capture_line(c),
      "AMD Instinct MI300X ×8 · PyTorch + vLLM · inference serving · steady state 97% of the window, set-up "
      "3% · given: workload");
  EXPECT_EQ(capture_line(CaptureProfile{}), "capture unknown");
}

TEST(CaptureProfile, ARuleFilesCaptureSectionAndWorkloadWin) {
  std::string dir = temp_dir();
  std::string rules =
      write_text(dir + "/serving.yaml", "schema: perfgate-rules/1\ncapture: {workload: serving}\n");
  RuleBook book = load_rule_book({rules});
  ASSERT_TRUE(book.rules.capture.workload);
  EXPECT_EQ(*book.rules.capture.workload, CaptureWorkload::Serving);
  ReportModel report = report_of_json(h100_step(true).json(), book);
  EXPECT_EQ(report.capture.workload, CaptureWorkload::Training);  // the analysis' own
  override_capture(report, book.rules.capture);
  EXPECT_EQ(report.capture.workload, CaptureWorkload::Serving);
  EXPECT_EQ(report.capture.overridden, (std::vector<std::string>{"workload"}));
  EXPECT_EQ(run_context(report).workload, Workload::Inference);
  EXPECT_NE(report.capture_line.find("given: workload"), std::string::npos) << report.capture_line;
  EXPECT_THROW((void)load_rule_book({write_text(dir + "/bad.yaml",
                                                "schema: perfgate-rules/1\ncapture: {workload: "
                                                "inference}\n")}),
               ConfigError);

  // --workload on the command line, over the rule file's: in the JSON report.
  std::string trace = h100_step(false).write(dir + "/inference.json");
  CommandResult r = run_perfgate("analyze " + trace + " --rules " + rules + " --workload training --json " +
                                 dir + "/out.json -q --fail-on never");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  boost::json::object capture = boost::json::parse(read_text(dir + "/out.json")).at("capture").as_object();
  EXPECT_EQ(capture.at("workload").as_string(), "training");
  EXPECT_EQ(capture.at("workload_evidence").as_string(), "set by --workload");
  EXPECT_EQ(capture.at("overridden").as_array(), (boost::json::array{"workload"}));
}

TEST(CaptureProfile, TheJsonReportHoldsTheProfileAndReadsBackAsABaseline) {
  ReportModel report = report_of_json(h100_step(true).json(), default_book());
  std::string json = render_json(report);
  boost::json::object c = boost::json::parse(json).at("capture").as_object();
  EXPECT_EQ(c.at("line").as_string(), report.capture_line);
  EXPECT_EQ(c.at("workload").as_string(), "training");
  const boost::json::object& gpu = c.at("devices").as_array().at(0).as_object();
  EXPECT_EQ(gpu.at("kind").as_string(), "gpu");
  EXPECT_EQ(gpu.at("vendor").as_string(), "nvidia");
  EXPECT_EQ(gpu.at("count").to_number<std::uint64_t>(), 1u);
  // The window: the one step, 1,000 us; no one-off in it.
  EXPECT_DOUBLE_EQ(c.at("phases").as_object().at("window_us").to_number<double>(), 1000);
  EXPECT_DOUBLE_EQ(c.at("phases").as_object().at("steady_us").to_number<double>(), 1000);
  EXPECT_NE(json.find("\"schema\": \"perfgate-report/2.7\""), std::string::npos);
  // The worker's own profile (2.6), without the run's line.
  boost::json::value parsed = boost::json::parse(json);
  const boost::json::object& worker =
      parsed.at("workers").as_array().at(0).as_object().at("capture").as_object();
  EXPECT_EQ(worker.at("workload").as_string(), "training");
  EXPECT_FALSE(worker.contains("line"));
  EXPECT_DOUBLE_EQ(worker.at("phases").as_object().at("window_us").to_number<double>(), 1000);
  // Read back as a baseline, as --baseline reads a report.
  std::string path = write_text(temp_dir() + "/report.json", json);
  Baseline baseline = read_baseline_report(path);
  EXPECT_EQ(baseline.metrics.get(Metric::StepsMeanUs), report.metric(Metric::StepsMeanUs));
}

}  // namespace
}  // namespace perfgate::testing
