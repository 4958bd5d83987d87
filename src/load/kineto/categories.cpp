#include "load/kineto/categories.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <optional>
#include <utility>

namespace perfgate::kineto {
namespace {

// ASCII only, without the locale lookups of std::tolower: categories are ASCII names.
char ascii_lower(char c) {
  return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(),
                                            [](char x, char y) { return ascii_lower(x) == ascii_lower(y); });
}

bool iends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && iequals(s.substr(s.size() - suffix.size()), suffix);
}

constexpr std::array<std::pair<std::string_view, EventClass>, 16> kCategories = {{
    {"cpu_op", EventClass::Op},
    {"operator", EventClass::Op},
    {"user_annotation", EventClass::Annotation},
    {"python_function", EventClass::PythonFunction},
    {"python", EventClass::PythonFunction},
    {"cuda_runtime", EventClass::Runtime},
    {"cuda_driver", EventClass::Runtime},
    {"runtime", EventClass::Runtime},
    {"kernel", EventClass::Kernel},
    {"gpu_memcpy", EventClass::Memcpy},
    {"memcpy", EventClass::Memcpy},
    {"gpu_memset", EventClass::Memset},
    {"memset", EventClass::Memset},
    {"gpu_user_annotation", EventClass::GpuAnnotation},
    {"cuda_sync", EventClass::GpuSync},
    {"mtia_ccp_events", EventClass::MtiaDevice},
}};

// The categories Kineto and PyTorch 1.8 write, spelled as they write them: a comparison or two
// after a switch on the length (every complete event asks: ResNet-50, 44,666 times).
std::optional<EventClass> exact_category(std::string_view c) {
  switch (c.size()) {
    case 6:
      if (c == "cpu_op") return EventClass::Op;
      if (c == "kernel" || c == "Kernel") return EventClass::Kernel;
      break;
    case 8:
      if (c == "Operator") return EventClass::Op;
      break;
    case 7:
      if (c == "Runtime") return EventClass::Runtime;
      break;
    case 12:
      if (c == "cuda_runtime") return EventClass::Runtime;
      break;
    case 10:
      if (c == "gpu_memcpy") return EventClass::Memcpy;
      if (c == "gpu_memset") return EventClass::Memset;
      break;
    case 15:
      if (c == "user_annotation") return EventClass::Annotation;
      if (c == "python_function") return EventClass::PythonFunction;
      if (c == "mtia_ccp_events") return EventClass::MtiaDevice;
      break;
    default:
      break;
  }
  return std::nullopt;
}

}  // namespace

EventClass classify_category(std::string_view category) {
  if (std::optional<EventClass> cls = exact_category(category)) return *cls;
  // Any case (Kineto writes lower case, older PyTorch "Operator", "Kernel"): the category is
  // lower-cased once, then compared exactly with the names, all lower case. Names are shorter than
  // the buffer; a longer category can only be another accelerator's runtime or driver.
  char buffer[32];
  std::string_view lower;
  if (category.size() <= sizeof buffer) {
    std::transform(category.begin(), category.end(), buffer, ascii_lower);
    lower = std::string_view(buffer, category.size());
    for (const auto& [name, cls] : kCategories)
      if (lower == name) return cls;
    if (lower == "trace") return EventClass::ProfilerSpan;
  }
  // Other accelerators' host APIs (mtia_runtime, xpu_runtime, privateuse1_runtime, hip_driver...).
  if (iends_with(category, "_runtime") || iends_with(category, "_driver")) return EventClass::Runtime;
  return EventClass::Ignored;
}

std::optional<GpuSyncKind> gpu_sync_kind(std::string_view name) {
  // The names Kineto gives CUPTI's synchronization records (libkineto CuptiActivity.cpp,
  // syncTypeString), also written as args.cuda_sync_kind.
  constexpr std::array<std::pair<std::string_view, GpuSyncKind>, 4> kKinds = {{
      {"Context Sync", GpuSyncKind::Context},
      {"Stream Sync", GpuSyncKind::Stream},
      {"Event Sync", GpuSyncKind::Event},
      {"Stream Wait Event", GpuSyncKind::StreamWaitEvent},
  }};
  for (const auto& [text, kind] : kKinds)
    if (name == text) return kind;
  return std::nullopt;
}

bool is_driver_category(std::string_view category) {
  return iends_with(category, "_driver");
}

MemcpyName parse_memcpy_name(std::string_view name) {
  MemcpyName result;
  constexpr std::array<std::pair<std::string_view, CopyKind>, 5> kKinds = {{
      {"HtoD", CopyKind::HostToDevice},
      {"DtoH", CopyKind::DeviceToHost},
      {"DtoD", CopyKind::DeviceToDevice},
      {"HtoH", CopyKind::HostToHost},
      {"PtoP", CopyKind::PeerToPeer},
  }};
  for (const auto& [tag, kind] : kKinds) {
    if (name.find(tag) != std::string_view::npos) {
      result.kind = kind;
      break;
    }
  }
  result.pageable = name.find("Pageable") != std::string_view::npos;
  result.pinned = !result.pageable && name.find("Pinned") != std::string_view::npos;
  return result;
}

// Kineto's MTIA writer names a DMA request "dma_request" (HTA reads names starting "dma" on MTIA as
// memory kernels: hta/common/types.py, MTIAMemoryKernelGroupingPattern `^dma`).
bool is_mtia_dma(std::string_view name) {
  return name.starts_with("dma");
}

CopyKind mtia_dma_kind(std::string_view direction) {
  constexpr std::array<std::pair<std::string_view, CopyKind>, 4> kKinds = {{
      {"HOST_TO_DEVICE", CopyKind::HostToDevice},
      {"DEVICE_TO_HOST", CopyKind::DeviceToHost},
      {"DEVICE_TO_DEVICE", CopyKind::DeviceToDevice},
      {"HOST_TO_HOST", CopyKind::HostToHost},
  }};
  for (const auto& [text, kind] : kKinds)
    if (iequals(direction, text)) return kind;
  return CopyKind::Unknown;
}

}  // namespace perfgate::kineto
