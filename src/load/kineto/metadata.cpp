#include "load/kineto/metadata.h"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <boost/json/value.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>

#include <fmt/format.h>

namespace perfgate::kineto {
namespace {

std::optional<std::int64_t> integer(const boost::json::value* v) {
  if (!v) return std::nullopt;
  if (v->is_int64()) return v->as_int64();
  if (v->is_uint64() && v->as_uint64() <= static_cast<std::uint64_t>(INT64_MAX))
    return static_cast<std::int64_t>(v->as_uint64());
  // NaN, infinities and magnitudes beyond int64 have no integer (converting them is undefined).
  if (v->is_double() && v->as_double() > -9.2e18 && v->as_double() < 9.2e18)
    return static_cast<std::int64_t>(v->as_double());
  return std::nullopt;
}

std::string text(const boost::json::value* v) {
  if (v && v->is_string()) return std::string(v->as_string());
  return {};
}

// ROCm's keys: a trace recorded through roctracer or the HIP runtime says so at its top level.
bool hip_trace(const Profile& profile) {
  for (const auto& [key, value] : profile.info.attributes)
    if (key == "roctracer_version" || key == "hip_runtime_version" || key == "rocm_version") return true;
  return false;
}

// An AMD GPU that PyTorch left without a name (vLLM's graph-replay traces on an MI300X) is named
// by what identifies it: its gfx architecture (gcnArchName, else HIP's computeMajor.computeMinor: 9.4 is
// gfx942), its compute units and its memory, e.g. "AMD GPU gfx942, 304 CUs, 192 GiB"; gpu_peaks matches that
// name.
std::string amd_name(const boost::json::object& o, const DeviceInfo& d) {
  std::string arch = text(o.if_contains("gcnArchName"));
  if (auto colon = arch.find(':'); colon != std::string::npos) arch.resize(colon);
  if (arch.empty() && d.compute_major >= 0)
    arch = fmt::format("compute {}.{}", d.compute_major, std::max(d.compute_minor, 0));
  std::string name = "AMD GPU";
  if (!arch.empty()) name += " " + arch;
  if (d.sm_count > 0) name += fmt::format(", {} CUs", d.sm_count);
  if (d.total_memory_bytes > 0)
    name += fmt::format(", {:.0f} GiB", static_cast<double>(d.total_memory_bytes) / (1024.0 * 1024 * 1024));
  return name;
}

bool amd_device(const boost::json::object& o, bool hip) {
  return hip || integer(o.if_contains("warpSize")).value_or(32) == 64 || o.contains("gcnArchName") ||
         o.contains("gcnArch");
}

std::string device_properties(const std::string& json, Profile& profile) {
  bool hip = hip_trace(profile);
  boost::system::error_code ec;
  boost::json::value doc = boost::json::parse(json, ec);
  if (ec) return fmt::format("'deviceProperties' is not valid JSON: {}", ec.message());
  if (!doc.is_array()) return "'deviceProperties' must be an array";
  for (const auto& entry : doc.as_array()) {
    if (!entry.is_object()) return "'deviceProperties' entries must be objects";
    const auto& o = entry.as_object();
    DeviceInfo d;
    d.id = static_cast<std::int32_t>(
        integer(o.if_contains("id")).value_or(static_cast<std::int64_t>(profile.devices.size())));
    d.name = text(o.if_contains("name"));
    d.compute_major = static_cast<int>(integer(o.if_contains("computeMajor")).value_or(-1));
    d.compute_minor = static_cast<int>(integer(o.if_contains("computeMinor")).value_or(-1));
    d.total_memory_bytes = static_cast<std::uint64_t>(
        std::max<std::int64_t>(0, integer(o.if_contains("totalGlobalMem")).value_or(0)));
    d.sm_count = static_cast<int>(integer(o.if_contains("numSms")).value_or(0));
    if (d.name.empty() && amd_device(o, hip)) d.name = amd_name(o, d);
    profile.devices.push_back(std::move(d));
  }
  return {};
}

// A rank fact of distributedInfo: absent or null is not stated; anything else must be an integer
// (an integral number) within [low, high], else the message says what it is not (`not_what()`: made
// only then, as every rank's trace states both facts; issue 78).
template <typename NotWhat>
std::string rank_fact(const boost::json::value* v, std::string_view what, std::int64_t low, std::int64_t high,
                      const NotWhat& not_what, std::optional<std::int64_t>& out) {
  out.reset();
  if (!v || v->is_null()) return {};
  if (v->is_int64() && v->as_int64() >= low && v->as_int64() <= high) {
    out = v->as_int64();
    return {};
  }
  if (v->is_double() && v->as_double() >= static_cast<double>(low) &&
      v->as_double() <= static_cast<double>(high) && std::trunc(v->as_double()) == v->as_double()) {
    out = static_cast<std::int64_t>(v->as_double());
    return {};
  }
  std::string shown = v->is_double() ? fmt::format("{}", v->as_double()) : boost::json::serialize(*v);
  return fmt::format("'distributedInfo' states {} {}: {}", what, shown.substr(0, 40), not_what());
}

std::string distributed_info(const std::string& json, Profile& profile) {
  boost::system::error_code ec;
  boost::json::value doc = boost::json::parse(json, ec);
  if (ec || !doc.is_object()) return "'distributedInfo' must be an object";
  const auto& o = doc.as_object();
  // No job has a million ranks: a larger world size (2^62) is a corrupt or forged trace, whose
  // report would list a million missing ranks.
  constexpr std::int64_t kMaxWorldSize = std::int64_t{1} << 20;
  const boost::json::value* world = o.if_contains("world_size");
  if (world && world->is_number() && !world->is_double() &&
      (!world->is_int64() || world->as_int64() > kMaxWorldSize))
    return fmt::format("'distributedInfo' states an implausible world size of {} ranks (at most {})",
                       boost::json::serialize(*world), kMaxWorldSize);
  auto not_world_size = [&] { return fmt::format("not a number of ranks (1 to {})", kMaxWorldSize); };
  if (std::string bad =
          rank_fact(world, "world size", 1, kMaxWorldSize, not_world_size, profile.info.world_size);
      !bad.empty())
    return bad;
  const std::optional<std::int64_t>& size = profile.info.world_size;
  std::int64_t highest = size.value_or(kMaxWorldSize) - 1;
  auto not_rank = [&] {
    return size ? fmt::format("not a rank of its world size {} (0 to {})", *size, highest)
                : fmt::format("not a rank (0 to {})", highest);
  };
  if (std::string bad = rank_fact(o.if_contains("rank"), "rank", 0, highest, not_rank, profile.info.rank);
      !bad.empty())
    return bad;
  profile.info.distributed_backend = text(o.if_contains("backend"));
  return {};
}

}  // namespace

std::string apply_metadata(const TraceMetadataText& meta, Profile& profile) {
  profile.info.format = "kineto-json";
  profile.info.schema_version = meta.schema_version;
  profile.info.trace_name = meta.trace_name;
  profile.info.attributes = meta.attributes;  // before the devices: the HIP keys name AMD GPUs
  if (!meta.base_time_ns.empty()) {
    std::int64_t base = 0;
    auto [p, ec] =
        std::from_chars(meta.base_time_ns.data(), meta.base_time_ns.data() + meta.base_time_ns.size(), base);
    if (ec == std::errc() && p == meta.base_time_ns.data() + meta.base_time_ns.size())
      profile.info.base_time_ns = base;
  }
  if (!meta.device_properties.empty()) {
    if (auto problem = device_properties(meta.device_properties, profile); !problem.empty()) return problem;
  }
  if (!meta.distributed_info.empty()) {
    if (auto problem = distributed_info(meta.distributed_info, profile); !problem.empty()) return problem;
  }
  return {};
}

}  // namespace perfgate::kineto
