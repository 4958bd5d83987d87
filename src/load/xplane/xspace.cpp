#include "load/xplane/xspace.h"

#include <cmath>

#include <fmt/format.h>

namespace perfgate::xplane {
namespace {

// The bytes of the structures made so far, told to the check each time they pass another 64 KiB.
class StructureCount {
 public:
  explicit StructureCount(const StructureCheck& check) : check_(check) {}
  void add(std::uint64_t bytes) {
    std::uint64_t before = bytes_;
    bytes_ += bytes;
    if (check_ && (before >> 16) != (bytes_ >> 16)) check_(bytes_);
  }
  std::uint64_t bytes() const { return bytes_; }

 private:
  const StructureCheck& check_;
  std::uint64_t bytes_ = 0;
};

// A hash map's entry: its node and its bucket, roughly.
constexpr std::uint64_t kMapEntryBytes = 32;

using wire::Field;
using wire::Message;
using wire::WireError;
using wire::WireType;

void expect(const Field& f, WireType type, const char* what) {
  if (f.type != type)
    throw WireError(fmt::format("{} (field {}) has wire type {}, not {}", what, f.number,
                                static_cast<int>(f.type), static_cast<int>(type)),
                    f.offset);
}

std::string_view text(const Field& f, const char* what) {
  expect(f, WireType::Bytes, what);
  return f.bytes;
}

std::int64_t int64(const Field& f, const char* what) {
  expect(f, WireType::Varint, what);
  return f.as_int64();
}

EventMetadata read_event_metadata(Message m, StructureCount& count) {
  EventMetadata out;
  Field f;
  while (m.next(f)) {
    if (f.number == 2) out.name = text(f, "an event metadata's name");
    if (f.number == 4) out.display_name = text(f, "an event metadata's display_name");
    if (f.number == 5) {
      expect(f, WireType::Bytes, "an event metadata's stat");
      count.add(sizeof(Stat));
      out.stats.push_back(read_stat(wire::nested(f)));
    }
  }
  return out;
}

std::string_view read_stat_name(Message m) {
  std::string_view out;
  Field f;
  while (m.next(f))
    if (f.number == 2) out = text(f, "a stat metadata's name");
  return out;
}

// A map<int64, Message> entry: key 1, value 2.
std::pair<std::int64_t, Field> map_entry(const Field& entry) {
  std::pair<std::int64_t, Field> out{0, Field{}};
  out.second.type = WireType::Bytes;
  out.second.data_offset = entry.data_offset;
  Message m = wire::nested(entry);
  Field f;
  while (m.next(f)) {
    if (f.number == 1) out.first = int64(f, "a map entry's key");
    if (f.number == 2) out.second = f;
  }
  expect(out.second, WireType::Bytes, "a map entry's value");
  return out;
}

Line read_line(const Field& field, StructureCount& count) {
  Line out;
  Message m = wire::nested(field);
  Field f;
  while (m.next(f)) {
    switch (f.number) {
      case 1:
        out.id = int64(f, "a line's id");
        break;
      case 2:
        out.name = text(f, "a line's name");
        break;
      case 11:
        out.display_name = text(f, "a line's display_name");
        break;
      case 3:
        out.timestamp_ns = int64(f, "a line's timestamp_ns");
        break;
      case 4:
        expect(f, WireType::Bytes, "an event");
        count.add(sizeof(Field));
        out.events.push_back(f);
        break;
      default:
        break;
    }
  }
  return out;
}

}  // namespace

bool Stat::integer(std::int64_t& out) const {
  switch (kind) {
    case Kind::Int:
      out = sint;
      return true;
    case Kind::Uint:
      if (uint > static_cast<std::uint64_t>(INT64_MAX)) return false;
      out = static_cast<std::int64_t>(uint);
      return true;
    case Kind::Double:
      if (!(std::fabs(real) < 9.0e18) || real != std::floor(real)) return false;
      out = static_cast<std::int64_t>(real);
      return true;
    default:
      return false;
  }
}

Stat read_stat(Message m) {
  Stat out;
  Field f;
  while (m.next(f)) {
    switch (f.number) {
      case 1:
        out.metadata_id = int64(f, "a stat's metadata_id");
        break;
      case 2:
        expect(f, WireType::Fixed64, "a stat's double_value");
        out.kind = Stat::Kind::Double;
        out.real = f.as_double();
        break;
      case 3:
        expect(f, WireType::Varint, "a stat's uint64_value");
        out.kind = Stat::Kind::Uint;
        out.uint = f.value;
        break;
      case 4:
        out.kind = Stat::Kind::Int;
        out.sint = int64(f, "a stat's int64_value");
        break;
      case 5:
      case 6:
        out.kind = Stat::Kind::Text;
        out.text = text(f, "a stat's str_value");
        break;
      case 7:
        expect(f, WireType::Varint, "a stat's ref_value");
        out.kind = Stat::Kind::Ref;
        out.uint = f.value;
        break;
      default:
        break;
    }
  }
  return out;
}

void read_event(const Field& field, Event& out, const StructureCheck* check) {
  out.metadata_id = 0;
  out.offset_ps = 0;
  out.duration_ps = 0;
  out.aggregated = false;
  out.stats.clear();  // keeps its capacity from one event to the next
  Message m = wire::nested(field);
  Field f;
  while (m.next(f)) {
    switch (f.number) {
      case 1:
        out.metadata_id = int64(f, "an event's metadata_id");
        break;
      case 2:
        out.offset_ps = int64(f, "an event's offset_ps");
        break;
      case 3:
        out.duration_ps = int64(f, "an event's duration_ps");
        break;
      case 4:
        expect(f, WireType::Bytes, "an event's stat");
        if (check && !out.stats.empty() && out.stats.size() % 1024 == 0)
          (*check)(out.stats.size() * sizeof(Stat));
        out.stats.push_back(read_stat(wire::nested(f)));
        break;
      case 5:
        int64(f, "an event's num_occurrences");
        out.aggregated = true;
        break;
      default:
        break;
    }
  }
}

std::string_view Plane::stat_name(const Stat& s) const {
  auto it = stat_names.find(s.metadata_id);
  return it == stat_names.end() ? std::string_view() : it->second;
}

std::string_view Plane::text(const Stat& s) const {
  if (s.kind != Stat::Kind::Ref) return s.text;
  auto it = stat_names.find(static_cast<std::int64_t>(s.uint));
  return it == stat_names.end() ? std::string_view() : it->second;
}

const EventMetadata* Plane::event(std::int64_t metadata_id) const {
  auto it = event_metadata.find(metadata_id);
  return it == event_metadata.end() ? nullptr : &it->second;
}

Plane read_plane(const Field& field, const StructureCheck& check) {
  Plane out;
  StructureCount count(check);
  Message m = wire::nested(field);
  Field f;
  while (m.next(f)) {
    switch (f.number) {
      case 1:
        out.id = int64(f, "a plane's id");
        break;
      case 2:
        out.name = text(f, "a plane's name");
        break;
      case 3:
        expect(f, WireType::Bytes, "a line");
        count.add(sizeof(Line));
        out.lines.push_back(read_line(f, count));
        break;
      case 4: {
        expect(f, WireType::Bytes, "an event metadata entry");
        auto [key, value] = map_entry(f);
        count.add(sizeof(EventMetadata) + kMapEntryBytes);
        out.event_metadata[key] = read_event_metadata(wire::nested(value), count);
        break;
      }
      case 5: {
        expect(f, WireType::Bytes, "a stat metadata entry");
        auto [key, value] = map_entry(f);
        count.add(sizeof(std::string_view) + kMapEntryBytes);
        out.stat_names[key] = read_stat_name(wire::nested(value));
        break;
      }
      case 6:
        expect(f, WireType::Bytes, "a plane's stat");
        count.add(sizeof(Stat));
        out.stats.push_back(read_stat(wire::nested(f)));
        break;
      default:
        break;
    }
  }
  // A ref_value names a stat metadata entry: its name is the value.
  auto resolve = [&](Stat& s) {
    if (s.kind != Stat::Kind::Ref) return;
    auto it = out.stat_names.find(static_cast<std::int64_t>(s.uint));
    s.text = it == out.stat_names.end() ? std::string_view() : it->second;
  };
  for (Stat& s : out.stats) resolve(s);
  out.structure_bytes = count.bytes();
  return out;
}

void for_each_plane(std::string_view bytes, const std::function<void(const Field&)>& each) {
  Message m(bytes, 0);
  Field f;
  while (m.next(f)) {
    if (f.number != 1) continue;  // errors, warnings, hostnames
    expect(f, WireType::Bytes, "a plane");
    each(f);
  }
}

bool looks_like_xspace(std::string_view head) {
  if (head.empty() || head[0] != '\x0a') return false;
  try {
    // A cut-off head: the plane's length may run past it; look at what is there.
    std::size_t at = 1, shift = 0;
    std::uint64_t length = 0;
    while (at < head.size() && at < 11) {
      auto byte = static_cast<unsigned char>(head[at++]);
      length |= std::uint64_t{byte & 0x7fu} << shift;
      shift += 7;
      if (byte < 0x80) break;
    }
    if (length == 0) return false;
    std::string_view body =
        head.substr(at, static_cast<std::size_t>(std::min<std::uint64_t>(length, head.size() - at)));
    Message m(body, at);
    Field f;
    for (int fields = 0; fields < 4 && m.next(f); ++fields) {
      if (f.number != 2) continue;
      if (f.type != WireType::Bytes) return false;
      return f.bytes.starts_with("/host:") || f.bytes.starts_with("/device:") ||
             f.bytes == "Task Environment";
    }
  } catch (const WireError&) {
  }
  return false;
}

}  // namespace perfgate::xplane
