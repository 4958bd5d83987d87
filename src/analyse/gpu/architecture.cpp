#include "analyse/gpu/architecture.h"

#include <map>
#include <set>

#include <fmt/format.h>

#include "analyse/gpu/gpu_utilization.h"

namespace perfgate {
namespace {

bool newer(const GpuArchitecture& a, const GpuArchitecture& b) {
  return std::pair(a.compute_major, a.compute_minor) > std::pair(b.compute_major, b.compute_minor);
}

// A GPU runs kernels built for its own or an older architecture, never a newer one: the newest
// architecture any kernel name names is the least the GPU can be (an H100 runs sm80_ kernels).
struct Inference {
  const GpuArchitecture* architecture = nullptr;
  std::string_view example;  // a kernel name that named it
};

Inference infer_from_kernels(const Profile& p, const CompiledClassification& c,
                             const std::set<StringId>& names) {
  Inference best;
  for (StringId name : names) {
    std::string_view text = p.str(name);
    for (std::size_t i = 0; i < c.gpu_architectures.size(); ++i) {
      const GpuArchitecture& a = c.gpu_architectures[i];
      if (!c.architecture_kernels[i].empty() && (!best.architecture || newer(a, *best.architecture)) &&
          c.architecture_kernels[i].matches(text))
        best = {&a, text};
    }
  }
  return best;
}

// The architecture's name for a described device: by its name, else by its compute capability
// (NVIDIA), else the AMD family of its major.minor ("gfx94x").
std::string named_architecture(const CompiledClassification& c, const GpuMetrics& g) {
  const GpuArchitecture* by_name = c.architecture_of_device(g.name);
  if (by_name && !by_name->name.empty()) return by_name->name;
  if (by_name && by_name->vendor == "AMD" && g.compute_major >= 0)
    return fmt::format("gfx{}{}x", g.compute_major, std::max(0, g.compute_minor));
  for (const GpuArchitecture& a : c.gpu_architectures)
    if (a.vendor == "NVIDIA" && a.compute_major == g.compute_major && a.compute_minor == g.compute_minor)
      return a.name;
  return "";
}

void take_listed_device(const DeviceInfo& d, GpuMetrics& g, std::vector<Note>& warnings) {
  warnings.push_back(
      note<NoteId::gpu_device_taken>(arg<"device">(g.device), arg<"id">(d.id), arg<"name">(d.name)));
  describe_device(d, g);
}

}  // namespace

void describe_architectures(const Profile& p, const CompiledClassification& c, std::vector<GpuMetrics>& gpus,
                            std::vector<Note>& warnings) {
  std::map<std::int32_t, std::set<StringId>> kernel_names;  // collected only if some GPU needs them
  for (GpuMetrics& g : gpus) {
    if (!p.device(g.device) && p.devices.size() == 1) take_listed_device(p.devices.front(), g, warnings);
    if (!g.name.empty() || g.compute_major >= 0) {
      g.architecture = named_architecture(c, g);
      continue;
    }
    if (kernel_names.empty())
      for (const GpuActivity& a : p.gpu_activities)
        if (a.kind == GpuActivityKind::Kernel) kernel_names[a.device].insert(a.name);
    Inference found = infer_from_kernels(p, c, kernel_names[g.device]);
    if (!found.architecture) continue;
    const GpuArchitecture& a = *found.architecture;
    g.architecture = a.name;
    g.compute_major = a.compute_major;
    g.compute_minor = a.compute_minor;
    g.architecture_inferred = true;
    warnings.push_back(note<NoteId::gpu_architecture_inferred>(
        arg<"device">(g.device), arg<"architecture">(a.name), arg<"major">(a.compute_major),
        arg<"minor">(a.compute_minor), arg<"example">(found.example)));
  }
}

}  // namespace perfgate
