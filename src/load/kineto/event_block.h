// What the EventBuilder makes of one stretch of traceEvents, in ids local to that stretch: its own
// string pool, thread table and numbering of text ids. A trace parsed in pieces gives one block per
// piece; BlockMerger renumbers them, in order, into one Profile exactly as if the trace had been
// read in one piece (a whole trace read serially is one block).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "io/chunked_appender.h"
#include "model/profile.h"

namespace perfgate::kineto {

// A pid, tid or flow id: a number, or a text id (e.g. "Spans", "stream 7") by its index in
// EventBlock::text_ids. The profile numbers text ids -1, -2, ... in order of first appearance.
struct IdKey {
  std::int64_t value = 0;
  bool is_text = false;
  friend bool operator==(const IdKey&, const IdKey&) = default;
};

struct ThreadKey {
  IdKey pid;
  IdKey tid;
  friend bool operator==(const ThreadKey&, const ThreadKey&) = default;
};

struct ThreadKeyHash {
  std::size_t operator()(const ThreadKey& k) const {
    auto mix = [](std::uint64_t h, std::uint64_t v) { return (h ^ v) * 0x100000001B3ULL; };
    std::uint64_t h = mix(0xCBF29CE484222325ULL, static_cast<std::uint64_t>(k.pid.value));
    h = mix(h, static_cast<std::uint64_t>(k.tid.value));
    return static_cast<std::size_t>(mix(h, (k.pid.is_text ? 1u : 0u) | (k.tid.is_text ? 2u : 0u)));
  }
};

// A "fwdbwd" flow end; the ends are paired once every block is in (BlockMerger::finish).
struct FlowEvent {
  IdKey id;
  TimeNs time = 0;
  std::uint32_t thread = 0;  // block-local thread index
  bool is_start = false;     // 's' (on the forward op), else 'f'
};

// A GPU activity or range whose device came from a text pid: set once the text has its number.
struct DeviceFromTextPid {
  std::uint32_t record = 0;  // index in gpu_activities or gpu_ranges
  std::uint32_t text_id = 0;
  bool is_range = false;
};

// Names seen, in order of first appearance, and how often: ignored categories and phases. At most
// `limit` names are counted, as a serial read does; `refused` says a name beyond them was met.
class NameCounts {
 public:
  explicit NameCounts(std::size_t limit) : limit_(limit) {}
  void add(std::string_view name, std::uint64_t count = 1);
  void clear() {
    entries_.clear();
    index_.clear();
    refused_ = false;
  }
  const std::vector<std::pair<std::string, std::uint64_t>>& entries() const { return entries_; }
  bool refused() const { return refused_; }

 private:
  std::size_t limit_;
  std::vector<std::pair<std::string, std::uint64_t>> entries_;
  std::unordered_map<std::string, std::size_t> index_;
  std::string key_;  // the name looked up, reused: no allocation per event
  bool refused_ = false;
};

// The key an ignored complete event is counted under in EventBlock::ignored_categories: its
// category, kLaneSeparator, its pid as text. The merger splits it to name the lane.
inline constexpr char kLaneSeparator = '\x1f';

struct EventBlock {
  StringPool strings;
  std::vector<std::string> text_ids;
  std::vector<ThreadKey> threads;
  std::vector<std::pair<std::uint32_t, StringId>> thread_names;  // thread_name events, in order
  ChunkedAppender<HostEvent> host_events;
  ChunkedAppender<OpDetails> op_details;
  ChunkedAppender<RuntimeCall> runtime_calls;
  ChunkedAppender<GpuActivity> gpu_activities;
  ChunkedAppender<KernelLaunchInfo> kernel_info;
  ChunkedAppender<MemorySample> memory_samples;
  ChunkedAppender<CollectiveArgs> collectives;
  ChunkedAppender<GpuRange> gpu_ranges;
  std::vector<LaunchedKernel> launched_kernels;
  ChunkedAppender<GpuSync> gpu_syncs;
  std::vector<FlowEvent> flows;
  std::vector<DeviceFromTextPid> devices_from_text;
  NameCounts ignored_categories{64};
  NameCounts ignored_phases{32};
  std::uint64_t skipped_driver_calls = 0;
  std::vector<std::int32_t> mtia_devices;  // the devices of mtia_ccp_events read as device work, once each
  // process_labels (and process_name) metadata: the pid as ignored_categories keys write it, its text.
  std::vector<std::pair<std::string, std::string>> process_labels;
  std::vector<std::pair<std::string, std::string>> process_names;
  std::optional<std::pair<TimeNs, TimeNs>> profiler_span;  // the last "PyTorch Profiler" range
  TimeNs durations = 0;  // of the complete events read, below kMaxTimeNs (profile.h)

  // Empties the block for the next piece; the records' memory is kept (see ChunkedAppender).
  void reset();
  // The memory the block holds (text ids are counted by the EventBuilder that keeps their index).
  std::size_t memory_bytes() const;
};

}  // namespace perfgate::kineto
