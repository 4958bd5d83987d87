// XSpace, the profile JAX, TensorFlow and XProf write (`*.xplane.pb`), as views into its bytes:
// tsl/profiler/protobuf/xplane.proto's messages, by field number (XSpace → XPlane → XLine → XEvent,
// with XEventMetadata, XStatMetadata and XStat). The schema's depth is fixed: nothing here recurses.
#pragma once

#include <cstdint>
#include <functional>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "load/xplane/wire.h"

namespace perfgate::xplane {

// XStat: a value of one kind, named by its metadata id (the plane's stat_metadata).
struct Stat {
  enum class Kind : unsigned char { None, Double, Uint, Int, Text, Ref };
  std::int64_t metadata_id = 0;
  Kind kind = Kind::None;
  double real = 0;
  std::uint64_t uint = 0;
  std::int64_t sint = 0;
  std::string_view text;  // str_value or bytes_value; for Ref, the referenced stat metadata's name

  // The value as an integer where it is one (int64, uint64 below 2^63, or a double that is whole).
  bool integer(std::int64_t& out) const;
};
Stat read_stat(wire::Message message);

// Told the bytes of the structures read so far (lines, events' fields, stats, metadata entries)
// before more are made, every 64 KiB of them: an empty line, event or stat is two bytes of the file
// and tens of bytes in memory, so they count against the input memory limit as they are made, not
// after. Throws (InputMemoryError) to stop the reading.
using StructureCheck = std::function<void(std::uint64_t structure_bytes)>;

struct EventMetadata {
  std::string_view name;
  std::string_view display_name;
  std::vector<Stat> stats;  // /host:metadata's HLO protos ("Hlo Proto") among them
};

struct Line {
  std::int64_t id = 0;
  std::string_view name;
  std::string_view display_name;
  std::int64_t timestamp_ns = 0;
  std::vector<wire::Field> events;  // XEvent messages, not yet read
};

// XEvent: its start is its line's timestamp_ns plus offset_ps. Events that aggregate occurrences
// (num_occurrences, no offset) have `aggregated` set.
struct Event {
  std::int64_t metadata_id = 0;
  std::int64_t offset_ps = 0;
  std::int64_t duration_ps = 0;
  bool aggregated = false;
  std::vector<Stat> stats;
};
// `check`, where given, is told the event's stats' bytes every 1,024 of them.
void read_event(const wire::Field& field, Event& out, const StructureCheck* check = nullptr);

// One XPlane: its lines and metadata read, its events left as bytes.
struct Plane {
  std::int64_t id = 0;
  std::string_view name;
  std::vector<Line> lines;
  std::unordered_map<std::int64_t, EventMetadata> event_metadata;
  std::unordered_map<std::int64_t, std::string_view> stat_names;
  std::vector<Stat> stats;
  std::uint64_t structure_bytes = 0;  // what its lines, events' fields, stats and metadata hold

  std::string_view stat_name(const Stat& s) const;
  // A stat's text: its str_value, or for a ref_value the stat metadata's name it refers to (XLA
  // writes repeated values, hlo_op and kernel_details among them, as references).
  std::string_view text(const Stat& s) const;
  const EventMetadata* event(std::int64_t metadata_id) const;
};
Plane read_plane(const wire::Field& field, const StructureCheck& check = {});

// Calls `each` with every XPlane field of the XSpace in `bytes`, in order. Throws wire::WireError.
void for_each_plane(std::string_view bytes, const std::function<void(const wire::Field&)>& each);

// Whether `head`, a file's first bytes, begins as an XSpace: a planes field (1) whose XPlane names
// itself "/host:...", "/device:..." or "Task Environment" within its first fields.
bool looks_like_xspace(std::string_view head);

}  // namespace perfgate::xplane
