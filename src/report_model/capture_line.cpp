// The capture profile's one line (report.h, capture_line): what the first screen of every report
// says the capture is.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "report_model/report.h"

namespace perfgate {
namespace {

// The names the projects give themselves; any other (a rule file's own) as the rules name it.
constexpr std::pair<std::string_view, std::string_view> kFrameworkWords[] = {
    {"pytorch", "PyTorch"},
    {"torch.compile", "torch.compile"},
    {"cuda-graphs", "CUDA graphs"},
    {"jax", "JAX"},
    {"tensorflow", "TensorFlow"},
    {"tensorrt", "TensorRT"},
    {"vllm", "vLLM"},
    {"sglang", "SGLang"},
    {"megatron", "Megatron"},
    {"deepspeed", "DeepSpeed"},
    {"cuda", "CUDA"},
    {"hip", "HIP"},
    {"nccl", "NCCL"},
    {"rccl", "RCCL"}};

std::string_view framework_word(std::string_view name) {
  for (const auto& [key, word] : kFrameworkWords)
    if (key == name) return word;
  return name;
}

std::string_view workload_words(CaptureWorkload workload) {
  switch (workload) {
    case CaptureWorkload::Training:
      return "training";
    case CaptureWorkload::Serving:
      return "inference serving";
    case CaptureWorkload::OfflineInference:
      return "offline inference";
    case CaptureWorkload::MicroBenchmark:
      return "micro-benchmark";
    case CaptureWorkload::Unknown:
      break;
  }
  return "";
}

std::string devices_words(const CaptureDevices& d) {
  if (d.kind == DeviceKind::CpuOnly) return "CPU only";
  std::string model = d.model;
  if (model.empty()) {
    model = d.kind == DeviceKind::NeuronCore ? "NeuronCore"
            : d.kind == DeviceKind::Tpu      ? "TPU"
            : d.kind == DeviceKind::Mtia     ? "MTIA"
            : d.kind == DeviceKind::Unknown  ? "device"
                                             : std::string(device_kind_name(d.kind));
    if (d.kind == DeviceKind::Gpu)
      model = d.vendor == DeviceVendor::Amd      ? "AMD GPU"
              : d.vendor == DeviceVendor::Nvidia ? "NVIDIA GPU"
                                                 : "GPU";
  }
  return d.count > 0 ? fmt::format("{} ×{}", model, d.count) : model;
}

// A share of the window, rounded down below 100 (99.6% of steady state is not all of it).
std::string share(double part, double whole) {
  double pct = 100.0 * part / whole;
  if (pct >= 99.5 && part < whole) return fmt::format("{:.1f}%", std::floor(pct * 10) / 10);
  return fmt::format("{:.0f}%", pct);
}

}  // namespace

std::string capture_line(const CaptureProfile& capture) {
  std::vector<std::string> parts;
  std::string devices;
  for (const CaptureDevices& d : capture.devices)
    devices += (devices.empty() ? "" : " + ") + devices_words(d);
  if (!devices.empty()) parts.push_back(std::move(devices));
  // The id "cuda-graphs" is PyTorch's torch.cuda.graphs on either vendor; on AMD GPUs they are HIP
  // graphs (hipGraphLaunch).
  bool amd = !capture.devices.empty() &&
             std::all_of(capture.devices.begin(), capture.devices.end(),
                         [](const CaptureDevices& d) { return d.vendor == DeviceVendor::Amd; });
  std::string frameworks;
  for (const CaptureFramework& f : capture.frameworks)
    frameworks += std::string(frameworks.empty() ? "" : " + ") +
                  std::string(amd && f.name == "cuda-graphs" ? "HIP graphs" : framework_word(f.name));
  if (!frameworks.empty()) parts.push_back(std::move(frameworks));
  if (std::string_view w = workload_words(capture.workload); !w.empty()) parts.emplace_back(w);
  const CapturePhases& p = capture.phases;
  if (p.window_us && *p.window_us > 0 && p.steady_us) {
    std::string phases = fmt::format("steady state {} of the window", share(*p.steady_us, *p.window_us));
    if (p.setup_us && *p.setup_us >= 0.01 * *p.window_us)
      phases += fmt::format(", set-up {}", share(*p.setup_us, *p.window_us));
    parts.push_back(std::move(phases));
  }
  if (!capture.overridden.empty()) {
    std::string given;
    for (const std::string& field : capture.overridden) given += (given.empty() ? "" : ", ") + field;
    parts.push_back("given: " + given);
  }
  if (parts.empty()) return "capture unknown";
  std::string out;
  for (const std::string& part : parts) out += (out.empty() ? "" : " · ") + part;
  return out;
}

namespace {

bool word_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
}

// Whether a word is said with "an": a vowel first, or an acronym whose first letter's name starts
// with one ("an MTIA", "an XLA op", "an MXU"; "a HIP runtime": HIP is said as a word).
bool takes_an(std::string_view word) {
  if (word.empty()) return false;
  char first = word[0];
  if (std::string_view("AEIOaeio").find(first) != std::string_view::npos) return true;
  bool acronym = word.size() > 1 && std::isupper(static_cast<unsigned char>(word[0])) != 0 &&
                 std::isupper(static_cast<unsigned char>(word[1])) != 0;
  return acronym && !word.starts_with("HIP") &&
         std::string_view("FLMNRSX").find(first) != std::string_view::npos;
}

// "a GPU" becoming "a MTIA": the article before a replaced term follows the new word (issue 91).
void fix_article(std::string& out, std::string_view word) {
  for (std::string_view article : {"a ", "A ", "an ", "An "}) {
    if (!out.ends_with(article)) continue;
    std::size_t at = out.size() - article.size();
    if (at > 0 && word_char(out[at - 1])) return;
    bool capital = article[0] == 'A';
    out.replace(at, article.size() - 1, takes_an(word) ? (capital ? "An" : "an") : (capital ? "A" : "a"));
    return;
  }
}

}  // namespace

std::string with_articles(std::string text, const std::vector<std::pair<std::string, std::string>>& words) {
  for (const auto& named : words) {
    const std::string& word = named.second;
    if (!takes_an(word)) continue;
    for (std::string_view article : {"a ", "A "}) {
      std::string wrong = std::string(article) + word;
      for (std::size_t at = text.find(wrong); at != std::string::npos;
           at = text.find(wrong, at + wrong.size())) {
        bool starts = at == 0 || std::isalnum(static_cast<unsigned char>(text[at - 1])) == 0;
        std::size_t end = at + wrong.size();
        bool ends = end == text.size() || std::isalnum(static_cast<unsigned char>(text[end])) == 0;
        if (starts && ends) text.insert(at + 1, "n");
      }
    }
  }
  return text;
}

std::string in_capture_terms(std::string_view text, const CaptureTerms& terms) {
  if (terms.empty()) return std::string(text);
  std::string out;
  out.reserve(text.size());
  std::size_t i = 0;
  while (i < text.size()) {
    bool starts_word = i == 0 || !word_char(text[i - 1]);
    const std::pair<std::string, std::string>* hit = nullptr;
    if (starts_word)
      for (const auto& term : terms) {
        std::string_view fixed = term.first;
        std::size_t end = i + fixed.size();
        if (!fixed.empty() && text.substr(i, fixed.size()) == fixed &&
            (end == text.size() || !word_char(text[end]))) {
          hit = &term;
          break;
        }
      }
    if (hit) {
      fix_article(out, hit->second);
      out += hit->second;
      i += hit->first.size();
    } else {
      out += text[i++];
    }
  }
  return out;
}

}  // namespace perfgate
