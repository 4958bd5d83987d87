// Hand-built XSpace messages for the XPlane reader's tests and fuzz seeds: a protobuf wire-format
// writer of its own (not the reader's code), with tsl/profiler/protobuf/xplane.proto's field
// numbers written out here.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace perfgate::testing::pb {

inline std::string varint(std::uint64_t v) {
  std::string out;
  while (v >= 0x80) {
    out += static_cast<char>((v & 0x7f) | 0x80);
    v >>= 7;
  }
  out += static_cast<char>(v);
  return out;
}
// A varint field (wire type 0); negative numbers as their 64-bit two's complement.
inline std::string int_field(unsigned number, std::int64_t v) {
  return varint(std::uint64_t{number} << 3) + varint(static_cast<std::uint64_t>(v));
}
// A length-delimited field (wire type 2): a string or a nested message.
inline std::string bytes_field(unsigned number, std::string_view bytes) {
  return varint((std::uint64_t{number} << 3) | 2) + varint(bytes.size()) + std::string(bytes);
}
inline std::string double_field(unsigned number, double v) {
  std::uint64_t bits;
  std::memcpy(&bits, &v, 8);
  std::string out = varint((std::uint64_t{number} << 3) | 1);
  for (int i = 0; i < 8; ++i) out += static_cast<char>((bits >> (8 * i)) & 0xff);
  return out;
}

// XStat: metadata_id 1, double_value 2, uint64_value 3, int64_value 4, str_value 5, ref_value 7.
inline std::string int_stat(std::int64_t id, std::int64_t v) {
  return int_field(1, id) + int_field(4, v);
}
inline std::string uint_stat(std::int64_t id, std::uint64_t v) {
  return int_field(1, id) + varint(3 << 3) + varint(v);
}
inline std::string str_stat(std::int64_t id, std::string_view v) {
  return int_field(1, id) + bytes_field(5, v);
}
inline std::string double_stat(std::int64_t id, double v) {
  return int_field(1, id) + double_field(2, v);
}
inline std::string ref_stat(std::int64_t id, std::int64_t ref) {
  return int_field(1, id) + int_field(7, ref);
}

// XEvent: metadata_id 1, offset_ps 2, duration_ps 3, stats 4 (each an XStat built above).
inline std::string event(std::int64_t metadata_id, std::int64_t offset_ps, std::int64_t duration_ps,
                         const std::vector<std::string>& stats = {}) {
  std::string out = int_field(1, metadata_id) + int_field(2, offset_ps) + int_field(3, duration_ps);
  for (const std::string& s : stats) out += bytes_field(4, s);
  return out;
}

// XLine: id 1, name 2, timestamp_ns 3, events 4, display_name 11.
inline std::string line(std::int64_t id, std::string_view name, std::int64_t timestamp_ns,
                        const std::vector<std::string>& events) {
  std::string out = int_field(1, id) + bytes_field(2, name) + int_field(3, timestamp_ns);
  for (const std::string& e : events) out += bytes_field(4, e);
  return out;
}

struct Plane {
  std::int64_t id = 0;
  std::string name;
  std::vector<std::string> lines;
  std::vector<std::pair<std::int64_t, std::string>> event_names;  // event_metadata: id → name
  std::vector<std::pair<std::int64_t, std::string>> stat_names;   // stat_metadata: id → name
  std::vector<std::string> stats;
  // Stats of event metadata entries (XEventMetadata stats 5: /host:metadata's HLO protos): id → stats.
  std::vector<std::pair<std::int64_t, std::vector<std::string>>> event_stats;
  // Display names of event metadata entries (XEventMetadata display_name 4: a TPU op's instruction,
  // its name being the long form): id → display name.
  std::vector<std::pair<std::int64_t, std::string>> event_display_names;

  // XPlane: id 1, name 2, lines 3, event_metadata 4 (map: key 1, XEventMetadata{id 1, name 2}),
  // stat_metadata 5 (map: key 1, XStatMetadata{id 1, name 2}), stats 6; XEventMetadata's stats are its
  // field 5.
  std::string bytes() const {
    std::string out = int_field(1, id) + bytes_field(2, name);
    for (const std::string& l : lines) out += bytes_field(3, l);
    for (const auto& [key, n] : event_names) {
      std::string meta = int_field(1, key) + bytes_field(2, n);
      for (const auto& [meta_id, display] : event_display_names)
        if (meta_id == key) meta += bytes_field(4, display);
      for (const auto& [meta_id, meta_stats] : event_stats)
        if (meta_id == key)
          for (const std::string& s : meta_stats) meta += bytes_field(5, s);
      out += bytes_field(4, int_field(1, key) + bytes_field(2, meta));
    }
    for (const auto& [key, n] : stat_names)
      out += bytes_field(5, int_field(1, key) + bytes_field(2, int_field(1, key) + bytes_field(2, n)));
    for (const std::string& s : stats) out += bytes_field(6, s);
    return out;
  }
};

inline Plane plane(std::int64_t id, std::string name) {
  Plane p;
  p.id = id;
  p.name = std::move(name);
  return p;
}

// XSpace: planes 1.
inline std::string space(const std::vector<Plane>& planes) {
  std::string out;
  for (const Plane& p : planes) out += bytes_field(1, p.bytes());
  return out;
}

}  // namespace perfgate::testing::pb
