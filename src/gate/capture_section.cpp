#include "gate/capture_section.h"

#include <array>
#include <string>
#include <string_view>
#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace perfgate {
namespace {

constexpr std::array<std::string_view, 4> kCaptureKeys = {"devices", "frameworks", "workload", "phases"};
constexpr std::array<std::string_view, 4> kDeviceKeys = {"kind", "vendor", "model", "count"};
constexpr std::array<std::string_view, 5> kPhaseKeys = {"window_us", "setup_us", "teardown_us", "profiler_us",
                                                        "steady_us"};
constexpr std::string_view kEvidence = "set by the rule file's capture: section";

// A name of one of the profile's enums, or an error listing them.
template <typename Enum, std::size_t N>
std::optional<Enum> read_enum(YamlCheck& check, const YAML::Node& node, std::string_view key,
                              const std::array<std::string_view, N>& names) {
  std::optional<std::string> name = check.string(node, key);
  if (!name) return std::nullopt;
  std::optional<Enum> value = capture_enum_named<Enum>(names, *name);
  if (!value)
    check.error(node, fmt::format("unknown {} '{}' (one of: {})", key, *name, fmt::join(names, ", ")));
  return value;
}

std::optional<CaptureDevices> read_devices(YamlCheck& check, const YAML::Node& item) {
  if (!check.is_map(item, "capture devices entry")) return std::nullopt;
  check.known_keys(item, kDeviceKeys, "capture devices");
  CaptureDevices d;
  if (YAML::Node kind = item["kind"])
    d.kind = read_enum<DeviceKind>(check, kind, "kind", kDeviceKindNames).value_or(DeviceKind::Unknown);
  if (YAML::Node vendor = item["vendor"])
    d.vendor =
        read_enum<DeviceVendor>(check, vendor, "vendor", kDeviceVendorNames).value_or(DeviceVendor::Unknown);
  if (item["model"]) d.model = check.string(item["model"], "model").value_or("");
  if (YAML::Node count = item["count"]) {
    std::optional<double> n = check.number(count, "count");
    if (n && (*n < 0 || *n > 1e6 || *n != static_cast<double>(static_cast<std::size_t>(*n))))
      check.error(count, "count is a number of devices, 0 to 1000000");
    else if (n)
      d.count = static_cast<std::size_t>(*n);
  }
  d.evidence = std::string(kEvidence);
  return d;
}

}  // namespace

void read_capture_section(YamlCheck& check, const YAML::Node& node, CaptureOverride& out) {
  if (!check.is_map(node, "capture")) return;
  check.known_keys(node, kCaptureKeys, "capture");
  if (YAML::Node devices = node["devices"]; devices && check.is_list(devices, "devices")) {
    std::vector<CaptureDevices> list;
    for (const auto& item : devices)
      if (std::optional<CaptureDevices> d = read_devices(check, item)) list.push_back(std::move(*d));
    out.devices = std::move(list);
  }
  if (YAML::Node frameworks = node["frameworks"]; frameworks && check.is_list(frameworks, "frameworks")) {
    std::vector<CaptureFramework> list;
    for (const auto& item : frameworks)
      if (std::optional<std::string> name = check.string(item, "frameworks"); name && !name->empty())
        list.push_back({*name, std::string(kEvidence)});
    out.frameworks = std::move(list);
  }
  if (YAML::Node workload = node["workload"]) {
    if (std::optional<CaptureWorkload> w =
            read_enum<CaptureWorkload>(check, workload, "workload", kCaptureWorkloadNames)) {
      out.workload = *w;
      out.workload_evidence = std::string(kEvidence);
    }
  }
  if (YAML::Node phases = node["phases"]; phases && check.is_map(phases, "phases")) {
    check.known_keys(phases, kPhaseKeys, "phases");
    CapturePhases p;
    std::array<std::optional<double>*, 5> fields = {&p.window_us, &p.setup_us, &p.teardown_us, &p.profiler_us,
                                                    &p.steady_us};
    for (std::size_t i = 0; i < kPhaseKeys.size(); ++i)
      if (YAML::Node v = phases[std::string(kPhaseKeys[i])]) {
        std::optional<double> us = check.number(v, kPhaseKeys[i]);
        if (us && *us < 0)
          check.error(v, fmt::format("{} is a time in microseconds, not negative", kPhaseKeys[i]));
        else
          *fields[i] = us;
      }
    p.evidence = std::string(kEvidence);
    out.phases = std::move(p);
  }
}

}  // namespace perfgate
