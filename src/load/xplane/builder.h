// What the XSpace reader builds as it reads the planes (xplane_reader.cpp): the profile, the time
// checks every event passes, and the counts of what it left out, for the profile's notes.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>

#include "load/xplane/xspace.h"
#include "perfgate/profile.h"

namespace perfgate::xplane {

// The stats the reader reads, by the names XLA and the profilers give them (xplane_schema.h's
// StatType names); any other stat is ignored.
enum class StatKey : unsigned char {
  Other,
  CorrelationId,
  KernelDetails,
  MemcpyDetails,
  MemsetDetails,
  HloOp,
  HloModule,
  StepNum,
  OccupancyPct,
};
StatKey stat_key(std::string_view name);

// A plane's stat metadata ids as the keys above.
class StatKeys {
 public:
  explicit StatKeys(const Plane& plane);
  StatKey operator()(const Stat& s) const {
    auto it = keys_.find(s.metadata_id);
    return it == keys_.end() ? StatKey::Other : it->second;
  }

 private:
  std::unordered_map<std::int64_t, StatKey> keys_;
};

class Builder {
 public:
  Builder(const std::string& path, std::uint64_t file_bytes, std::uint64_t max_memory);
  void device_plane(const Plane& plane, std::int32_t device, bool tpu);
  void host_plane(const Plane& plane);
  void metadata_plane(const Plane& plane);
  Profile finish();

 private:
  // The event's span in nanoseconds; false (and counted) where it is out of the model's range.
  bool span(const Line& line, const Event& e, TimeNs& start, TimeNs& end);
  void check_memory();

  Profile p_;
  std::string path_;
  std::uint64_t file_bytes_;
  std::uint64_t max_memory_;
  TimeNs durations_ = 0;  // of the events kept: below kMaxTimeNs (profile.h)
  std::uint64_t events_ = 0;
  std::uint64_t bad_times_ = 0;
  std::uint64_t aggregated_ = 0;
  std::uint64_t instants_ = 0;
  std::uint64_t derived_lines_ = 0;
  std::string first_derived_line_;
};

}  // namespace perfgate::xplane
