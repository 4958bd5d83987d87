// The two splits of step time that the analyses compute and the report carries, each exclusive: an
// instant of a step counts once, in the first part (in this order) active then. Declared once here,
// below both (docs/metrics.md, "Breakdown" and "Resources").
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace perfgate {

// The TensorBoard plugin's step-time split; Other is the rest.
enum class BreakdownPart : std::uint8_t {
  Kernel,
  Memcpy,
  Memset,
  Communication,
  Runtime,
  DataLoader,
  CpuExec,
  Other
};
// Each part's name, as its metrics have it (breakdown.<name>_us, breakdown.<name>_pct).
inline constexpr std::array<std::string_view, 8> kBreakdownPartNames = {
    "kernel", "memcpy", "memset", "communication", "runtime", "dataloader", "cpu_exec", "other"};
inline constexpr std::size_t kBreakdownParts = kBreakdownPartNames.size();
inline const char* breakdown_part_name(BreakdownPart part) {
  return kBreakdownPartNames[static_cast<std::size_t>(part)].data();
}

// DLProf's resource split: Tensor Core kernels, other kernels, memory operations, CPU only, other.
enum class ResourcePart : std::uint8_t { TensorCoreKernels, OtherKernels, Memory, Cpu, Other };
// Each part's name, as its metrics have it (resources.<name>_us, resources.<name>_pct).
inline constexpr std::array<std::string_view, 5> kResourcePartNames = {"tc_kernels", "non_tc_kernels",
                                                                       "memory", "cpu", "other"};
inline constexpr std::size_t kResourceParts = kResourcePartNames.size();
inline const char* resource_part_name(ResourcePart part) {
  return kResourcePartNames[static_cast<std::size_t>(part)].data();
}

}  // namespace perfgate
