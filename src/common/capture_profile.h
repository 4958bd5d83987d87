// What the capture is (issue 89): its devices, the frameworks and runtimes seen, the workload and
// the phases of the window, decided once by the analysis before any rule runs, each with its
// evidence and "unknown" where the trace cannot tell. Every stage after the analysis reads it and
// none guesses it again: the rules choose their advice by it (`recommendations` entries name the
// devices, frameworks, workloads and phases they apply to), the renderers take their words from the
// vocabulary of its device kind and vendor (rules: vocabulary), and the first screen of every report
// states it in one line (capture_line). A rule file's `capture:` section and `--workload` override
// a field; the profile then says which fields were overridden.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace perfgate {

// What kind of device did the work. CpuOnly: the capture recorded host work alone.
enum class DeviceKind : std::uint8_t { Unknown, Gpu, Tpu, Mtia, NeuronCore, CpuOnly };
inline constexpr std::array<std::string_view, 6> kDeviceKindNames = {"unknown", "gpu",        "tpu",
                                                                     "mtia",    "neuroncore", "cpu-only"};

// Who made it. The names are the ones rule files already use (`vendors:`): a TPU's vendor is
// "tpu" (Google), a NeuronCore's "neuron" (AWS), an MTIA's "mtia" (Meta).
enum class DeviceVendor : std::uint8_t { Unknown, Nvidia, Amd, Tpu, Neuron, Mtia };
inline constexpr std::array<std::string_view, 6> kDeviceVendorNames = {"unknown", "nvidia", "amd",
                                                                       "tpu",     "neuron", "mtia"};

// What the captured program does. Serving: a server's scheduler and decode loop (vLLM, SGLang,
// TensorRT-LLM, Triton server); OfflineInference: forward passes alone, no server; MicroBenchmark:
// the same few kernels or ops repeated with no model around them (a plain CUDA/HIP benchmark).
enum class CaptureWorkload : std::uint8_t { Unknown, Training, Serving, OfflineInference, MicroBenchmark };
inline constexpr std::array<std::string_view, 5> kCaptureWorkloadNames = {"unknown", "training", "serving",
                                                                          "offline-inference", "benchmark"};

// One kind of device of the capture: every device of that kind, vendor and model.
struct CaptureDevices {
  DeviceKind kind = DeviceKind::Unknown;
  DeviceVendor vendor = DeviceVendor::Unknown;
  std::string model;      // as the trace names it ("NVIDIA H100 80GB HBM3", "TPU v6e"); empty: unknown
  std::size_t count = 0;  // devices of this kind that did work in the window (or that the trace lists)
  std::string evidence;   // what says so ("deviceProperties of 8 devices", "/device:TPU:0..3 planes")
  bool operator==(const CaptureDevices&) const = default;
};

// A framework or runtime seen in the capture, by its name in rules (capture_frameworks): "pytorch",
// "torch.compile", "cuda-graphs", "jax", "tensorflow", "tensorrt", "vllm", "sglang", "megatron",
// "deepspeed", "cuda", "hip", "nccl", "rccl", ...
struct CaptureFramework {
  std::string name;
  std::string evidence;  // the first marker seen and how often ("vllm::unified_attention, 1,204 calls")
  bool operator==(const CaptureFramework&) const = default;
};

// The phases of the window, in µs of the window's wall time: set-up (before the first steady step's
// device work, and every first call that creates a context, stream, event, handle or module or
// allocates device memory the first time), teardown (after the last device activity), the
// profiler's own start and stop, and the steady state (the rest). Each empty where the trace cannot
// tell (no host events, no device work).
struct CapturePhases {
  std::optional<double> window_us;
  std::optional<double> setup_us;
  std::optional<double> teardown_us;
  std::optional<double> profiler_us;
  std::optional<double> steady_us;
  std::string evidence;  // the largest one-off named ("cudaFree 715 ms in the first aten::addmm")
  bool operator==(const CapturePhases&) const = default;
};

struct CaptureProfile {
  std::vector<CaptureDevices> devices;  // most devices first
  std::vector<CaptureFramework> frameworks;
  CaptureWorkload workload = CaptureWorkload::Unknown;
  std::string workload_evidence;  // "aten::convolution_backward in 12 of 12 steps", "--workload"
  CapturePhases phases;
  // The fields a rule file's `capture:` section or the command line set: "devices", "frameworks",
  // "workload", "phases".
  std::vector<std::string> overridden;
  bool operator==(const CaptureProfile&) const = default;

  bool has_framework(std::string_view name) const {
    for (const CaptureFramework& f : frameworks)
      if (f.name == name) return true;
    return false;
  }
};

// What a rule file's `capture:` section and --workload set (docs/rules.md): each field given
// replaces the analysis' whole, and is listed in CaptureProfile::overridden.
struct CaptureOverride {
  std::optional<std::vector<CaptureDevices>> devices;
  std::optional<std::vector<CaptureFramework>> frameworks;
  std::optional<CaptureWorkload> workload;
  std::string workload_evidence;  // who set it: "rules: capture: workload", "--workload"
  std::optional<CapturePhases> phases;
  bool operator==(const CaptureOverride&) const = default;
};

constexpr std::string_view device_kind_name(DeviceKind kind) {
  return kDeviceKindNames[static_cast<std::size_t>(kind)];
}
constexpr std::string_view device_vendor_name(DeviceVendor vendor) {
  return kDeviceVendorNames[static_cast<std::size_t>(vendor)];
}
constexpr std::string_view capture_workload_name(CaptureWorkload workload) {
  return kCaptureWorkloadNames[static_cast<std::size_t>(workload)];
}
template <typename Enum, std::size_t N>
constexpr std::optional<Enum> capture_enum_named(const std::array<std::string_view, N>& names,
                                                 std::string_view name) {
  for (std::size_t i = 0; i < N; ++i)
    if (names[i] == name) return static_cast<Enum>(i);
  return std::nullopt;
}

}  // namespace perfgate
