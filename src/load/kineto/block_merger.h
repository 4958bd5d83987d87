// Joins EventBlocks, in trace order, into one Profile: strings, threads and text ids get the
// profile's numbering (first appearance in the whole trace, as one serial pass would give them),
// record indices are offset, and forward/backward flow ends are paired once all are in.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "io/chunked_appender.h"
#include "load/kineto/event_block.h"
#include "model/profile.h"

namespace perfgate::kineto {

// The argument of an input_skipped note that counts device-lane events of a category not read.
inline constexpr std::string_view kUnreadDeviceEventsArg = "device_events";

class BlockMerger {
 public:
  explicit BlockMerger(Profile& profile) : profile_(profile) {}

  // Adds the next block and empties it. Returns false when the block cannot be joined exactly: it
  // met more ignored categories or phases than are counted, after earlier blocks had some; or
  // when the durations of the events add up to kMaxTimeNs (a one-pass read then says where).
  bool add(EventBlock& block);

  // The memory the merged records, names and indexes hold.
  std::size_t memory_bytes() const;

  // Pairs the flow ends, and adds notes for the report: ignored categories and phases, skipped
  // driver calls, flows with one end only.
  void finish();
  // Names each device that ran mtia_ccp_events and that deviceProperties does not describe "MTIA"
  // (an MTIA trace describes none): the analysis takes its kind and vendor from the name, as it
  // does a TPU's. Call after the trace's metadata is applied.
  void describe_mtia_devices();
  // Move the records into the profile's exact-size arrays, once every block is added: the host
  // records (ranges and op details) and the others apart, so that each half can be moved and
  // ordered on a thread of its own.
  void move_host_records();
  void move_other_records();

 private:
  struct Renumbering {
    std::vector<StringId> strings;       // empty: the block's ids are the profile's
    std::vector<std::int64_t> text_ids;  // block text id -> the profile's number for it
    std::vector<std::uint32_t> threads;  // block thread -> profile thread
    bool threads_same = true;
    std::uint32_t details_base = 0;
    std::uint32_t kernel_info_base = 0;

    StringId string(StringId id) const { return strings.empty() ? id : strings[id]; }
    std::int64_t number(const IdKey& key) const { return key.is_text ? text_ids[key.value] : key.value; }
    bool identity() const {
      return strings.empty() && threads_same && details_base == 0 && kernel_info_base == 0;
    }
  };

  Renumbering renumber(EventBlock& block);
  void append_host_records(EventBlock& block, const Renumbering& map);
  void append_gpu_records(EventBlock& block, const Renumbering& map);
  bool add_counts(const EventBlock& block);

  Profile& profile_;
  ChunkedAppender<HostEvent> host_events_;
  ChunkedAppender<OpDetails> op_details_;
  ChunkedAppender<RuntimeCall> runtime_calls_;
  ChunkedAppender<GpuActivity> gpu_activities_;
  ChunkedAppender<KernelLaunchInfo> kernel_info_;
  ChunkedAppender<MemorySample> memory_samples_;
  ChunkedAppender<CollectiveArgs> collectives_;
  ChunkedAppender<GpuRange> gpu_ranges_;
  ChunkedAppender<GpuSync> gpu_syncs_;
  std::vector<FlowEvent> flows_;  // ids and threads in the profile's numbering
  std::unordered_map<std::string, std::int64_t> text_ids_;
  std::size_t text_id_bytes_ = 0;
  std::map<std::pair<std::int64_t, std::int64_t>, std::uint32_t> threads_;
  NameCounts ignored_categories_{64};
  NameCounts ignored_phases_{32};
  std::uint64_t skipped_driver_calls_ = 0;
  std::vector<std::int32_t> mtia_devices_;
  // The text of each pid's process_labels and process_name metadata (the last given), by the pid as
  // text: which lanes the trace declares a device's.
  std::map<std::string, std::string> process_labels_;
  std::map<std::string, std::string> process_names_;
  TimeNs durations_ = 0;  // of the blocks added: below kMaxTimeNs
};

}  // namespace perfgate::kineto
