// A memory snapshot's dict as each device's final state and trace (snapshot_reader.h): the keys
// torch/cuda/_memory_viz.py reads, sizes checked (a sum past 2^62 bytes, a size past 2^50 is refused).
#include "load/snapshot/snapshot_reader.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "common/errors.h"
#include "io/input_limit.h"

namespace perfgate::snapshot {

using pickle::Value;
using Kind = pickle::Value::Kind;

namespace {

// torch.cuda.memory_snapshot()'s list of segments as pickle.dump writes it: after PROTO and FRAME,
// EMPTY_LIST, its memo, MARK, the first segment's EMPTY_DICT, and a "total_size" key near it.
bool list_of_segments(std::string_view head) {
  std::size_t at = 2;
  if (head.size() > 11 && static_cast<unsigned char>(head[at]) == 0x95) at += 9;  // FRAME
  if (head.size() < at + 4 || head[at] != ']') return false;
  ++at;
  if (static_cast<unsigned char>(head[at]) == 0x94)  // MEMOIZE
    at += 1;
  else if (head[at] == 'q')  // BINPUT
    at += 2;
  if (head.size() < at + 2 || head[at] != '(' || head[at + 1] != '}') return false;
  std::string_view window = head.substr(at, 96);
  return window.find(std::string_view("\x8c\x0atotal_size", 12)) != std::string_view::npos ||
         window.find(std::string_view("X\x0a\x00\x00\x00total_size", 15)) != std::string_view::npos;
}

}  // namespace

bool detect(std::string_view head) {
  if (head.size() < 4 || static_cast<unsigned char>(head[0]) != 0x80) return false;
  auto protocol = static_cast<unsigned char>(head[1]);
  if (protocol < 2 || protocol > 5) return false;
  if (list_of_segments(head)) return true;
  // The first key of the snapshot's dict, as SHORT_BINUNICODE (protocol 4, 5) or BINUNICODE (2, 3).
  std::string_view window = head.substr(0, 64);
  return window.find(std::string_view("\x8c\x08segments", 10)) != std::string_view::npos ||
         window.find(std::string_view("X\x08\x00\x00\x00segments", 13)) != std::string_view::npos;
}

namespace {

// A shared object's path: "libstdc++.so.6", "libc.so", "libtorch_cuda.so.2.5" (a thread's entry
// and the runtime's own frames, never the user's code).
bool shared_object(std::string_view path) {
  std::size_t at = path.rfind(".so");
  if (at == std::string_view::npos) return false;
  std::string_view rest = path.substr(at + 3);
  return std::all_of(rest.begin(), rest.end(), [](char c) { return c == '.' || (c >= '0' && c <= '9'); }) &&
         (rest.empty() || rest.front() == '.');
}

}  // namespace

std::string site_of(const Value* frames) {
  if (!frames || frames->items().empty()) return "(no frames recorded)";
  for (const Value& f : frames->items()) {
    const Value* file = f.find("filename");
    std::string path(file ? file->text() : std::string_view());
    std::replace(path.begin(), path.end(), '\\', '/');
    if (path.empty() || path.starts_with("??")) continue;
    bool library = false;
    for (std::string_view part : {"/site-packages/", "/dist-packages/", "/torch/", "/lib/python3"})
      library = library || path.find(part) != std::string::npos;
    for (std::string_view ext : {".c", ".cc", ".cpp", ".cu", ".h", ".hpp"})
      library = library || path.ends_with(ext);
    library = library || shared_object(path);
    if (library) continue;
    const Value* name = f.find("name");
    const Value* line = f.find("line");
    return fmt::format("{} ({}:{})", name ? name->text() : std::string_view("?"),
                       path.substr(path.rfind('/') == std::string::npos ? 0 : path.rfind('/') + 1),
                       line && line->is(Kind::Int) ? line->as_int() : 0);
  }
  return "(no user frame)";
}

namespace {

std::string lowercase(std::string_view text) {
  std::string out(text);
  for (char& c : out)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return out;
}

}  // namespace

std::string category_of(const Value& entry, MemoryCategories& categories) {
  if (const Value* c = entry.find("category"); c && c->is(Kind::Str) && !c->text().empty())
    return lowercase(c->text());
  if (const Value* m = entry.find("user_metadata"); m && m->is(Kind::Str)) {
    std::string said = lowercase(m->text());
    said.erase(0, said.find_first_not_of(" \t"));
    said.erase(said.find_last_not_of(" \t") + 1);
    for (std::string_view known :
         {"parameter", "gradient", "optimizer_state", "activation", "input", "temporary", "autograd_detail"})
      if (said == known) return said;
  }
  int best = -1;
  if (const Value* frames = entry.find("frames"))
    for (const Value& f : frames->items()) {
      const Value* file = f.find("filename");
      const Value* name = f.find("name");
      std::string path(file ? file->text() : std::string_view());
      std::replace(path.begin(), path.end(), '\\', '/');
      int e = categories.entry_of(path, name ? name->text() : std::string_view());
      if (e >= 0 && (best < 0 || e < best)) best = e;
      if (best == 0) break;
    }
  return best < 0 ? std::string("unknown") : categories.category(best);
}

namespace {

// The lists a snapshot's reading drains (pickle::Drain): the segments, the traces and each
// device's trace, and the annotations (read by nothing here).
enum Role : std::uint8_t { kSegments = pickle::kRootRole + 1, kTraces, kDeviceTrace, kAnnotations };

class Reading : public pickle::Drain {
 public:
  Reading(const std::string& path, const std::vector<MemoryCategoryPattern>& categories,
          std::uint64_t max_memory = 0)
      : path_(path), categories_(categories), max_memory_(max_memory) {}

  [[noreturn]] void fail(const std::string& why) const {
    throw InputError(path_ + ": not a PyTorch memory snapshot: " + why);
  }
  std::uint64_t unsigned_of(const Value* v, std::string_view what) const {
    if (!v || !v->is(Kind::Int) || v->as_int() < 0)
      fail(fmt::format("{} is not a non-negative integer", what));
    return static_cast<std::uint64_t>(v->as_int());
  }
  std::uint64_t add(std::uint64_t a, std::uint64_t b, std::string_view what) const {
    std::uint64_t sum = 0;
    if (__builtin_add_overflow(a, b, &sum) || sum > (std::uint64_t{1} << 62))
      fail(fmt::format("the sum of {} passes 2^62 bytes", what));
    return sum;
  }
  // The entry's site (its frames' top user frame) and category, as an index into out_.sites.
  std::uint32_t site(const Value& entry) {
    // An entry the file places many times through the memo ([entry] * N) has the site it had.
    if (shared(entry) && entry.shared() == last_shared_entry_) return last_shared_site_;
    std::uint32_t id = site_of_entry(entry);
    if (shared(entry)) last_shared_entry_ = entry.shared(), last_shared_site_ = id;
    return id;
  }
  std::uint32_t site_of_entry(const Value& entry) {
    std::string where = site_of(entry.find("frames"));
    std::string category = category_of(entry, categories_);
    auto [at, added] =
        site_ids_.try_emplace(where + '\0' + category, static_cast<std::uint32_t>(out_.sites.size()));
    if (added) {
      out_.sites.push_back(std::move(where));
      out_.site_categories.push_back(std::move(category));
    }
    return at->second;
  }
  // Device `d`'s state, the devices before it made too.
  SnapshotDevice& device(std::size_t d) {
    while (all_.size() <= d) {
      all_.emplace_back();
      all_.back().device = static_cast<std::int32_t>(all_.size() - 1);
    }
    return all_[d];
  }
  void add_segment(const Value& segment, SnapshotDevice& d);
  void add_trace(const Value& trace, SnapshotDevice& d);
  // `counted`: its step was counted with its trace's (a trace placed through the memo).
  void add_trace_entry(const Value& a, SnapshotDevice& d, bool counted = false);

  std::uint8_t role_of(std::uint8_t parent, bool keyed, std::string_view key, std::uint64_t) override {
    if (parent == pickle::kRootRole && keyed)
      return key == "segments"               ? kSegments
             : key == "device_traces"        ? kTraces
             : key == "external_annotations" ? kAnnotations
                                             : 0;
    return parent == kTraces && !keyed ? kDeviceTrace : 0;
  }
  void take(std::uint8_t role, std::uint64_t tag, std::uint64_t index, const Value& item) override;
  std::uint64_t kept_bytes() const override { return kept_; }
  MemorySnapshot finish(const Value& root);

 private:
  // What the snapshot keeps of a value placed through the memo (a live block, a step), counted
  // before it is kept: a segment or an entry the file holds once and places N times through BINGET
  // (two bytes each) is kept N times, and costs N times, so that a small file cannot keep more than
  // the limit (InputMemoryError, exit 3). What the file holds once for each is not counted (the
  // model, as before, is as large as the file).
  static bool shared(const Value& v) { return v.shared() && v.shared().use_count() > 1; }
  void keep(std::uint64_t bytes) {
    kept_ += bytes;
    if (max_memory_ != 0 && kept_ > max_memory_) throw InputMemoryError(path_, max_memory_);
  }

  // One segment's blocks, read: what they add to their device's final state.
  struct BlocksRead {
    std::uint64_t allocated = 0, largest_inactive = 0, split_inactive_blocks = 0, split_inactive_bytes = 0;
    std::uint64_t requested = 0;
    std::vector<std::pair<std::uint64_t, SnapshotBlock>> live;
  };
  BlocksRead read_blocks(const Value& blocks, bool counted);
  void apply(const BlocksRead& read, SnapshotDevice& d) const;

  const std::string& path_;
  MemoryCategories categories_;
  std::shared_ptr<pickle::Node> last_shared_entry_;  // held, so that no other takes its address
  std::uint32_t last_shared_site_ = 0;
  // The block lists placed through the memo, read once, by node (held, so that no other takes its address).
  std::unordered_map<const pickle::Node*, std::pair<std::shared_ptr<pickle::Node>, BlocksRead>> blocks_read_;
  MemorySnapshot out_;
  std::vector<SnapshotDevice> all_;
  std::unordered_map<std::string, std::uint32_t> site_ids_;
  std::uint64_t max_memory_ = 0;
  std::uint64_t kept_ = 0;
};

SnapshotAction action_of(std::string_view name) {
  constexpr std::pair<std::string_view, SnapshotAction> kNames[] = {
      {"alloc", SnapshotAction::Alloc},
      {"free_requested", SnapshotAction::FreeRequested},
      {"free_completed", SnapshotAction::FreeCompleted},
      {"segment_alloc", SnapshotAction::SegmentAlloc},
      {"segment_free", SnapshotAction::SegmentFree},
      {"segment_map", SnapshotAction::SegmentMap},
      {"segment_unmap", SnapshotAction::SegmentUnmap},
      {"snapshot", SnapshotAction::Snapshot},
      {"oom", SnapshotAction::Oom}};
  for (auto [text, action] : kNames)
    if (text == name) return action;
  return SnapshotAction::Other;
}

// The size a live block's allocation asked for, as the trace records every other allocation's
// (the unit MemoryViz's process_alloc_data draws; perfgate's replay counts block bytes and keeps
// this beside them): its requested_size (PyTorch 2.0 and later), else its first history entry's
// real_size (1.13), else its own, rounded size.
std::uint64_t requested_of(const Value& block, std::uint64_t size) {
  const Value* requested = block.find("requested_size");
  if (const Value* history = block.find("history"); !requested && history && !history->items().empty())
    requested = history->items().front().find("real_size");
  if (!requested || !requested->is(Kind::Int) || requested->as_int() < 0) return size;
  return std::min(size, static_cast<std::uint64_t>(requested->as_int()));
}

void Reading::add_segment(const Value& segment, SnapshotDevice& d) {
  d.reserved =
      add(d.reserved, unsigned_of(segment.find("total_size"), "a segment's total_size"), "total_size");
  ++d.segments;
  if (const Value* e = segment.find("is_expandable"); e && e->is(Kind::Bool) && e->as_bool()) ++d.expandable;
  const Value* blocks = segment.find("blocks");
  if (!blocks) return;
  if (!blocks->is(Kind::List)) fail("a segment's blocks is not a list");
  bool counted = shared(segment) || shared(*blocks);
  if (!counted || !blocks->shared()) {
    apply(read_blocks(*blocks, counted), d);
    return;
  }
  // A block list the file places again through the memo reads as it did the first time: read once
  // (its sites are the costly part), its live blocks counted and kept at each placement.
  auto at = blocks_read_.find(blocks->shared().get());
  if (at == blocks_read_.end())
    at = blocks_read_.emplace(blocks->shared().get(), std::pair{blocks->shared(), read_blocks(*blocks, true)})
             .first;
  keep(at->second.second.live.size() * sizeof(d.live.front()));
  apply(at->second.second, d);
}

Reading::BlocksRead Reading::read_blocks(const Value& blocks, bool counted) {
  BlocksRead out;
  bool split = blocks.items().size() > 1;
  for (const Value& block : blocks.items()) {
    std::uint64_t size = unsigned_of(block.find("size"), "a block's size");
    const Value* state = block.find("state");
    std::string_view name = state ? state->text() : std::string_view();
    if (name.starts_with("active")) {
      if (!counted && shared(block)) keep(sizeof(out.live.front()));
      out.allocated = add(out.allocated, size, "active blocks");
      std::uint64_t address = unsigned_of(block.find("address"), "a block's address");
      std::uint64_t requested = requested_of(block, size);
      out.requested = add(out.requested, requested, "active blocks");
      out.live.push_back({address, {size, site(block), requested}});
    } else if (name == "inactive") {
      out.largest_inactive = std::max(out.largest_inactive, size);
      if (split) {
        ++out.split_inactive_blocks;
        out.split_inactive_bytes = add(out.split_inactive_bytes, size, "inactive blocks");
      }
    }
  }
  return out;
}

void Reading::apply(const BlocksRead& read, SnapshotDevice& d) const {
  d.allocated = add(d.allocated, read.allocated, "active blocks");
  d.allocated_requested = add(d.allocated_requested, read.requested, "active blocks");
  d.largest_inactive = std::max(d.largest_inactive, read.largest_inactive);
  d.split_inactive_blocks += read.split_inactive_blocks;
  d.split_inactive_bytes = add(d.split_inactive_bytes, read.split_inactive_bytes, "inactive blocks");
  d.live.insert(d.live.end(), read.live.begin(), read.live.end());
}

void Reading::add_trace(const Value& trace, SnapshotDevice& d) {
  if (!trace.is(Kind::List)) fail("a device's trace is not a list");
  bool counted = shared(trace);
  if (counted) keep(trace.items().size() * sizeof(SnapshotStep));  // before the steps are made room for
  d.steps.reserve(d.steps.size() + trace.items().size());
  for (const Value& entry : trace.items()) add_trace_entry(entry, d, counted);
}

void Reading::add_trace_entry(const Value& a, SnapshotDevice& d, bool counted) {
  const Value* name = a.find("action");
  if (!name) fail("a trace entry has no action");
  if (!counted && shared(a)) keep(sizeof(SnapshotStep));
  SnapshotStep step;
  step.action = action_of(name->text());
  std::uint64_t size = unsigned_of(a.find("size"), "a trace entry's size");
  if (size > std::uint64_t{1} << 50) fail(fmt::format("a trace entry's size {} passes 2^50 bytes", size));
  step.size = static_cast<std::int64_t>(size);
  if (const Value* addr = a.find("addr"); addr && addr->is(Kind::Int))
    step.address = static_cast<std::uint64_t>(addr->as_int());
  ++out_.trace_entries;
  if (!a.find("frames")) ++out_.entries_without_frames;
  // An integer, as PyTorch writes it, or a float (a snapshot rewritten by a tool): to the nanosecond.
  const Value* t = a.find("time_us");
  bool timed = t && t->is(Kind::Int) && !__builtin_mul_overflow(t->as_int(), std::int64_t{1000}, &step.time);
  if (t && t->is(Kind::Float) && t->as_float() >= 0 && t->as_float() < 9e15) {
    step.time = std::llround(t->as_float() * 1000);
    timed = true;
  }
  if (!timed) {
    step.time = 0;  // no time: the trace is read by allocation order (replay_snapshot)
    ++out_.entries_without_time;
  }
  if (step.action == SnapshotAction::Alloc || step.action == SnapshotAction::FreeCompleted ||
      step.action == SnapshotAction::Oom)
    step.site = site(a);
  if (const Value* f = a.find("device_free"); f && f->is(Kind::Int) && f->as_int() >= 0)
    step.device_free = static_cast<std::uint64_t>(f->as_int());
  d.steps.push_back(step);
}

std::int64_t device_of(const Reading& r, const Value& segment) {
  const Value* d = segment.find("device");
  if (!d) return 0;
  if (!d->is(Kind::Int) || d->as_int() < 0 || d->as_int() >= 4096)
    r.fail("a segment's device is not a device index");
  return d->as_int();
}

constexpr std::size_t kMaxDevices = 4096;

// One item of a draining list, as the pickle streams (pickle.h, Drain).
void Reading::take(std::uint8_t role, std::uint64_t tag, std::uint64_t index, const Value& item) {
  if (role == kSegments) {
    if (!item.is(Kind::Dict)) fail("a segment is not a dict");
    add_segment(item, device(static_cast<std::size_t>(device_of(*this, item))));
  } else if (role == kTraces || role == kDeviceTrace) {
    std::uint64_t d = role == kTraces ? index : tag;
    if (d >= kMaxDevices) fail("it names more than 4096 devices");
    if (role == kTraces && !item.is(Kind::List)) fail("a device's trace is not a list");
    SnapshotDevice& at = device(static_cast<std::size_t>(d));
    if (role == kDeviceTrace) add_trace_entry(item, at);
  }
}

// The snapshot from the pickle's value: what was drained is in the devices already, the lists
// that were not (a whole value, or a list found elsewhere) are read from `root` now.
MemorySnapshot Reading::finish(const Value& root) {
  // torch.cuda.memory_snapshot(): the list of segments alone.
  out_.list_form = root.is(Kind::List) && !root.items().empty();
  if (!root.is(Kind::Dict) && !out_.list_form)
    fail("the pickle's value is not a dict nor a list of segments");
  const Value* segments = out_.list_form ? &root : root.find("segments");
  if (!segments || !segments->is(Kind::List)) fail("it has no list of segments");
  const Value* traces = root.find("device_traces");
  if (traces && !traces->is(Kind::List)) fail("device_traces is not a list");
  std::size_t devices = traces ? traces->items().size() + traces->shared()->placed : 0;
  if (devices > kMaxDevices) fail("it names more than 4096 devices");
  for (const Value& segment : segments->items()) {
    if (!segment.is(Kind::Dict)) fail("a segment is not a dict");
    devices = std::max(devices, static_cast<std::size_t>(device_of(*this, segment)) + 1);
  }
  if (devices > 0) device(devices - 1);
  for (const Value& segment : segments->items())
    add_segment(segment, device(static_cast<std::size_t>(device_of(*this, segment))));
  for (std::size_t d = 0; traces && d < traces->items().size(); ++d) add_trace(traces->items()[d], device(d));
  for (SnapshotDevice& d : all_)
    if (d.segments > 0 || !d.steps.empty()) out_.devices.push_back(std::move(d));
  if (const Value* settings = root.find("allocator_settings"))
    if (const Value* conf = settings->find("PYTORCH_CUDA_ALLOC_CONF"))
      out_.alloc_conf = std::string(conf->text());
  return std::move(out_);
}

}  // namespace

MemorySnapshot read_snapshot(const Value& root, const std::string& path,
                             const std::vector<MemoryCategoryPattern>& categories, std::uint64_t max_memory) {
  return Reading(path, categories, max_memory).finish(root);
}

MemorySnapshot read_snapshot_stream(const std::function<std::unique_ptr<ByteSource>()>& open,
                                    const std::string& path, const pickle::Limits& limits,
                                    std::uint64_t* bytes_read,
                                    const std::vector<MemoryCategoryPattern>& categories) {
  Reading reading(path, categories, limits.max_memory);
  Value root = pickle::unpickle_stream(open, path, limits, reading, bytes_read);
  return reading.finish(root);
}

}  // namespace perfgate::snapshot
