#include "gate/capture_words.h"

#include <algorithm>
#include <cctype>

#include <fmt/format.h>

#include "gate/run_context.h"

namespace perfgate {
namespace {

// A vendor of gate/run_context.h as a device of the profile.
CaptureView::Device device_of_vendor(std::string_view vendor) {
  if (vendor == "tpu") return {"tpu", "tpu"};
  if (vendor == "neuron") return {"neuroncore", "neuron"};
  return {"gpu", vendor};
}

// A run with an input of PyTorch's own trace formats (load/): the profiler's Kineto trace, its legacy JSON or
// the CUDA caching allocator's memory snapshot, gzipped or not. Any other format says nothing of the
// framework.
bool pytorch_inputs(const ReportModel& report) {
  if (report.inputs.empty()) return false;
  return std::any_of(report.inputs.begin(), report.inputs.end(), [](const ReportInput& in) {
    // A gzipped input's format ends in ".gz" ("kineto-json.gz").
    return in.format.starts_with("kineto-json") || in.format.starts_with("pytorch-legacy-json") ||
           in.format.starts_with("pytorch-memory-snapshot");
  });
}

bool listed(const std::vector<std::string>& names, std::string_view name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

bool devices_match(const CaptureView& capture, const std::vector<std::string>& names) {
  if (capture.devices.empty()) return false;
  return std::all_of(capture.devices.begin(), capture.devices.end(), [&](const CaptureView::Device& d) {
    return listed(names, d.kind) || listed(names, d.vendor);
  });
}

bool workload_matches(const CaptureView& capture, std::string_view name) {
  if (capture.inference) return name == "inference" || name == "serving" || name == "offline-inference";
  if (capture.workload == CaptureWorkload::Unknown) return false;
  if (name == "inference")
    return capture.workload == CaptureWorkload::Serving ||
           capture.workload == CaptureWorkload::OfflineInference;
  return capture_workload_name(capture.workload) == name;
}

}  // namespace

std::string_view window_phase(const CapturePhases& p) {
  if (!p.window_us || !p.steady_us || *p.window_us <= 0) return {};
  if (2 * *p.steady_us > *p.window_us) return "steady";
  std::string_view phase = "setup";
  double most = p.setup_us.value_or(0);
  for (auto [name, us] : {std::pair{std::string_view("teardown"), p.teardown_us},
                          std::pair{std::string_view("profiler"), p.profiler_us}})
    if (us.value_or(0) > most) {
      phase = name;
      most = *us;
    }
  return phase;
}

const std::vector<std::string_view>& capture_phase_names() {
  static const std::vector<std::string_view> kNames = {"steady", "setup", "teardown", "profiler"};
  return kNames;
}

CaptureView capture_view(const ReportModel& report) {
  const CaptureProfile& profile = report.capture;
  CaptureView view;
  view.phase = window_phase(profile.phases);
  for (const CaptureDevices& d : profile.devices)
    if (d.kind != DeviceKind::Unknown || d.vendor != DeviceVendor::Unknown)
      view.devices.push_back({device_kind_name(d.kind), device_vendor_name(d.vendor)});
  for (const CaptureFramework& f : profile.frameworks) view.frameworks.push_back(f.name);
  view.workload = profile.workload;
  if (!view.devices.empty() && view.workload != CaptureWorkload::Unknown && !view.frameworks.empty())
    return view;
  RunContext context = run_context(report);
  if (view.devices.empty())
    for (std::string_view vendor : context.vendors) view.devices.push_back(device_of_vendor(vendor));
  if (view.workload == CaptureWorkload::Unknown) {
    if (context.workload == Workload::Training) view.workload = CaptureWorkload::Training;
    view.inference = context.workload == Workload::Inference;
  }
  if (view.frameworks.empty() && pytorch_inputs(report)) view.frameworks.push_back("pytorch");
  return view;
}

bool worded_for_capture(const Rule::ConditionalText& entry, const CaptureView& capture) {
  if (!entry.devices.empty() && !devices_match(capture, entry.devices)) return false;
  if (!entry.vendors.empty() && !devices_match(capture, entry.vendors)) return false;
  if (!entry.frameworks.empty() &&
      std::none_of(entry.frameworks.begin(), entry.frameworks.end(),
                   [&](const std::string& f) { return listed(capture.frameworks, f); }))
    return false;
  if (!entry.workloads.empty() &&
      std::none_of(entry.workloads.begin(), entry.workloads.end(),
                   [&](const std::string& w) { return workload_matches(capture, w); }))
    return false;
  if (!entry.phases.empty() && !listed(entry.phases, capture.phase)) return false;
  return entry.workload.empty() || workload_matches(capture, entry.workload);
}

std::string CaptureWords::word(std::string_view name) const {
  bool capital = !name.empty() && std::isupper(static_cast<unsigned char>(name.front()));
  std::string key(name);
  if (capital) key.front() = static_cast<char>(std::tolower(static_cast<unsigned char>(key.front())));
  for (const auto& [n, w] : words)
    if (n == key) {
      std::string out = w;
      if (capital && !out.empty())
        out.front() = static_cast<char>(std::toupper(static_cast<unsigned char>(out.front())));
      return out;
    }
  return "";
}

CaptureWords capture_words(const std::vector<VocabularyWords>& vocabulary, const CaptureView& capture) {
  // The capture's main device (the most devices), its workload and its frameworks choose the words.
  std::string_view kind = capture.devices.empty() ? "unknown" : capture.devices.front().kind;
  std::string_view vendor = capture.devices.empty() ? "unknown" : capture.devices.front().vendor;
  auto fits = [&](std::string_view for_capture) {
    return for_capture == "default" || for_capture == kind || for_capture == vendor ||
           workload_matches(capture, for_capture) || listed(capture.frameworks, for_capture);
  };
  CaptureWords out;
  for (const VocabularyWords& entry : vocabulary) {
    if (!fits(entry.for_capture)) continue;
    for (const auto& named : entry.words) {
      // A later entry's word replaces an earlier one of the same name (clang 14 cannot capture a
      // structured binding in the lambda, hence no `auto& [name, word]`).
      auto it = std::find_if(out.words.begin(), out.words.end(),
                             [&](const auto& w) { return w.first == named.first; });
      if (it != out.words.end())
        it->second = named.second;
      else
        out.words.emplace_back(named.first, named.second);
    }
  }
  return out;
}

std::string capture_phrase(const CaptureView& capture, const CaptureWords& words) {
  std::string workload = capture.inference ? "inference"
                         : capture.workload == CaptureWorkload::Unknown
                             ? "an unknown workload"
                             : std::string(capture_workload_name(capture.workload));
  if (capture.devices.empty()) return workload + " on unknown devices";
  std::string vendor = words.word("vendor");
  return fmt::format("{} on {}{}", workload, vendor.empty() ? "" : vendor + " ", words.word("devices"));
}

CaptureTerms capture_terms(const CaptureWords& words, const CaptureView& capture) {
  CaptureTerms out;
  if (capture.devices.empty()) return out;
  std::string_view kind = capture.devices.front().kind;
  std::string_view vendor = capture.devices.front().vendor;
  auto add = [&](std::string fixed, std::string_view name) {
    std::string word = words.word(name);
    if (!word.empty() && word != fixed) out.emplace_back(std::move(fixed), std::move(word));
  };
  // Longest first: "Tensor Cores" before "Tensor Core", "GPUs" before "GPU".
  if (vendor != "unknown" && vendor != "nvidia") {
    add("Tensor Cores", "matrix_units");
    add("Tensor Core", "matrix_unit");
    if (std::string unit = words.word("matrix_unit"); !unit.empty()) {
      std::replace(unit.begin(), unit.end(), ' ', '-');
      if (unit != "Tensor-Core") out.emplace_back("Tensor-Core", unit);
    }
    add("CUDA runtime", "runtime");
    add("NCCL", "ccl");
  }
  if (kind != "unknown" && kind != "gpu" && kind != "cpu-only") {
    add("GPUs", "devices");
    add("GPU", "device");
  }
  return out;
}

const std::vector<std::string_view>& vocabulary_word_names() {
  static const std::vector<std::string_view> kNames = {
      "device",       "devices",     "matrix_units", "matrix_unit",  "runtime",
      "kernel",       "kernels",     "step",         "steps",        "vendor",
      "graph",        "graphs",      "ccl",          "server_batch", "server_memory",
      "kv_cache_fp8", "fp8_weights", "fuse_chain",   "fused_kernels"};
  return kNames;
}

const std::vector<std::string_view>& vocabulary_framework_names() {
  static const std::vector<std::string_view> kNames = {
      "pytorch", "torch.compile", "cuda-graphs", "jax",  "tensorflow", "tensorrt", "tensorrt-llm", "vllm",
      "sglang",  "megatron",      "deepspeed",   "cuda", "hip",        "nccl",     "rccl"};
  return kNames;
}

bool link_fits_capture(std::string_view url, const std::vector<FrameworkTerms>& groups,
                       const CaptureView& capture) {
  for (const FrameworkTerms& group : groups) {
    bool named = std::any_of(group.terms.begin(), group.terms.end(), [&](const std::string& term) {
      return url.find(term) != std::string_view::npos;
    });
    if (!named) continue;
    bool fits = std::any_of(group.frameworks.begin(), group.frameworks.end(),
                            [&](const std::string& f) { return listed(capture.frameworks, f); }) ||
                (!group.devices.empty() && devices_match(capture, group.devices)) ||
                std::any_of(group.workloads.begin(), group.workloads.end(),
                            [&](const std::string& w) { return workload_matches(capture, w); });
    if (!fits) return false;
  }
  return true;
}

CaptureWording capture_wording(const std::vector<VocabularyWords>& vocabulary, const ReportModel& report) {
  CaptureWording out;
  out.view = capture_view(report);
  out.words = capture_words(vocabulary, out.view);
  out.terms = capture_terms(out.words, out.view);
  return out;
}

}  // namespace perfgate
