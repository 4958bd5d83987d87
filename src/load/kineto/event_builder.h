// Turns each finished RawEvent into model records: host events, runtime calls, GPU activities,
// flows, memory samples, thread names. Knows Kineto's vocabulary; nothing after load/ does. It
// writes into an EventBlock, in ids local to the block (BlockMerger makes them the profile's).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "load/kineto/categories.h"
#include "load/kineto/event_block.h"
#include "load/kineto/raw_event.h"

namespace perfgate::kineto {

// Event names, shapes and types repeat (the same ops and kernels every step), and names run to
// hundreds of bytes: a text found here is compared with the pool's copy, not hashed again. A text's
// set of `Ways` entries (the most recently used first) is picked by the length and five bytes.
// Valid for one StringPool (the builder's block). A hit is the pool's text, valid UTF-8; a miss
// checks the text (the pool repairs what is not), so that a name or a stack is checked once per
// miss, not once per event; `invalid()` counts the texts repaired, each time one is given.
//
// The table starts at a sixteenth of its size and takes its full size once it has missed as many
// texts as it has entries: a tiny trace (a rank of a run of 65,536) zeroes 1.5 KiB a cache, not the
// 24 KiB of the full table (issue 78: 74 kB zeroed a trace). Which texts hit changes no id: the
// pool gives a text its id whether or not the cache holds it.
template <std::size_t Ways>
class InternCache {
 public:
  InternCache() : sets_(kFirstSets) {}
  StringId intern(StringPool& pool, std::string_view text);
  std::uint64_t invalid() const { return invalid_; }
  // Sets in the table now (for tests): kFirstSets until it grows, then kSets.
  std::size_t sets() const { return sets_.size(); }

  static constexpr std::size_t kWays = Ways;
  static constexpr std::size_t kSets = 1024 / Ways;
  static constexpr std::size_t kFirstSets = kSets / 16;

 private:
  struct Entry {
    std::string_view text;  // the pool's copy
    StringId id = kNoString;
  };
  void grow();
  std::vector<std::array<Entry, Ways>> sets_;  // a power of two of them
  std::size_t misses_ = 0;                     // since the table last grew
  std::uint64_t invalid_ = 0;
};

class EventBuilder {
 public:
  // `driver_calls`: read *_driver events as runtime calls (else they are counted in a note).
  explicit EventBuilder(EventBlock& block, bool driver_calls = true)
      : block_(block), driver_calls_(driver_calls) {}

  // Returns an empty string, or why the event cannot be used (an input error).
  std::string add(const RawEvent& event, std::uint64_t index);
  // The memory the block and the builder's indexes hold: what the trace has made perfgate keep.
  std::size_t memory_bytes() const;
  // Phases, categories, names and call stacks that were not valid UTF-8 (the handler checks every
  // other text it keeps).
  std::uint64_t invalid_utf8_strings() const { return names_.invalid() + stacks_.invalid() + invalid_texts_; }

 private:
  std::string add_complete(const RawEvent& e);
  void add_host_event(const RawEvent& e, EventClass cls, TimeNs start, TimeNs end, StringId name);
  void add_gpu_activity(const RawEvent& e, EventClass cls, TimeNs start, TimeNs end, StringId name);
  void add_memory_sample(const RawEvent& e, TimeNs time);
  void add_gpu_sync(const RawEvent& e, TimeNs start, TimeNs end);
  void add_flow(const RawEvent& e, TimeNs time);
  void add_metadata(const RawEvent& e);
  void add_ignored(NameCounts& counts, std::string_view text);
  // A complete event of a category not read: counted by its category and lane (lane_key).
  void add_ignored_category(const RawEvent& e);
  std::uint32_t thread_index(const IdValue& pid, const IdValue& tid);
  IdKey id_key(const IdValue& id);
  std::int32_t device_of(const RawEvent& e, bool is_range, std::size_t record);

  EventBlock& block_;
  bool driver_calls_ = true;
  std::unordered_map<ThreadKey, std::uint32_t, ThreadKeyHash> threads_;
  std::unordered_map<std::string, std::uint32_t> text_ids_;
  std::size_t text_id_bytes_ = 0;  // text ids in text_ids_ and the block's list
  ThreadKey last_thread_key_;      // the thread of the previous event: most events follow their neighbour's
  std::uint32_t last_thread_ = kNone;
  InternCache<1> names_;
  InternCache<1> shapes_;  // input dims and types
  // Call stacks: long (ResNet-50: 790 bytes on average) and few distinct, but many of one length
  // differ only inside (a line number), where no sampled byte tells them apart: four to a set
  // (ResNet-50's 91 stacks missed 3,788 times in a table of one to a slot, 788 times now).
  InternCache<4> stacks_;
  std::uint64_t invalid_texts_ = 0;  // phases, categories and counters' names listed as ignored
  std::string lane_key_;             // reused: no allocation per ignored event
};

// A pid as text (a number in decimal), as the ignored categories' keys and the process metadata
// name it (kLaneSeparator, event_block.h).
void append_pid_text(std::string& out, const IdValue& pid);

}  // namespace perfgate::kineto
