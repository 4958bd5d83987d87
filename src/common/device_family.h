// The device family of a profile and of a run (SPEC 2, "device family"): what kind of device a
// profile records. The reader sets it once (ProfileInfo::family); the analyses, the report model,
// the rules (`family:` in YAML) and the renderers read it, and none guesses it again.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace perfgate {

enum class DeviceFamily : std::uint8_t {
  Gpu,      // a trace with GPU activities (Kineto, PyTorch legacy, Nsight Systems)
  Neuron,   // an AWS Neuron device profile
  CpuOnly,  // a trace of host work alone: no GPU activity was recorded
};
inline constexpr std::array<std::string_view, 3> kDeviceFamilyNames = {"gpu", "neuron", "cpu-only"};

constexpr std::string_view device_family_name(DeviceFamily family) {
  return kDeviceFamilyNames[static_cast<std::size_t>(family)];
}
constexpr std::optional<DeviceFamily> device_family_named(std::string_view name) {
  for (std::size_t i = 0; i < kDeviceFamilyNames.size(); ++i)
    if (kDeviceFamilyNames[i] == name) return static_cast<DeviceFamily>(i);
  return std::nullopt;
}

// The families of a run's profiles: one for most runs, several for a mixed one. None where they are
// not known: a report built by hand, a JSON report of a perfgate before perfgate-report/2.1, a run
// recorded in a history before its schema 3.
class DeviceFamilies {
 public:
  constexpr DeviceFamilies() = default;
  constexpr void add(DeviceFamily family) { bits_ |= bit(family); }
  constexpr void add(const DeviceFamilies& other) { bits_ |= other.bits_; }
  constexpr bool has(DeviceFamily family) const { return (bits_ & bit(family)) != 0; }
  constexpr bool empty() const { return bits_ == 0; }
  // The families held, in the order of DeviceFamily: how the JSON report and the history list them.
  std::vector<DeviceFamily> list() const {
    std::vector<DeviceFamily> out;
    for (std::size_t i = 0; i < kDeviceFamilyNames.size(); ++i)
      if (has(static_cast<DeviceFamily>(i))) out.push_back(static_cast<DeviceFamily>(i));
    return out;
  }
  // Every profile of the run is of `family`.
  constexpr bool only(DeviceFamily family) const { return bits_ == bit(family); }
  constexpr bool operator==(const DeviceFamilies&) const = default;

 private:
  static constexpr std::uint8_t bit(DeviceFamily family) {
    return static_cast<std::uint8_t>(1u << static_cast<unsigned>(family));
  }
  std::uint8_t bits_ = 0;
};

}  // namespace perfgate
