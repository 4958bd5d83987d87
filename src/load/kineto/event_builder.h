// Turns each finished RawEvent into model records: host events, runtime calls, GPU activities,
// flows, memory samples, thread and process names. Knows Kineto's vocabulary; nothing after
// load/ does.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <utility>

#include "load/chunked_appender.h"
#include "load/kineto/raw_event.h"
#include "perfgate/profile.h"

namespace perfgate::kineto {

class EventBuilder {
 public:
  // `driver_calls`: read *_driver events as runtime calls (else they are counted in a note).
  explicit EventBuilder(Profile& profile, bool driver_calls = true)
      : profile_(profile), driver_calls_(driver_calls) {}

  // Returns an empty string, or why the event cannot be used (an input error).
  std::string add(const RawEvent& event, std::uint64_t index);

  // Moves the records into the profile and adds notes for the report: ignored categories and
  // phases, flows with one end only.
  void finish();

 private:
  struct FlowEnd {
    TimeNs time = 0;
    std::uint32_t thread = 0;
  };

  std::string add_complete(const RawEvent& e);
  void add_memory_sample(const RawEvent& e, TimeNs time);
  void add_flow(const RawEvent& e, TimeNs time);
  void add_metadata(const RawEvent& e);
  std::uint32_t thread_index(const IdValue& pid, const IdValue& tid);
  std::int64_t id_number(const IdValue& id);

  Profile& profile_;
  bool driver_calls_ = true;
  std::uint64_t skipped_driver_calls_ = 0;
  ChunkedAppender<HostEvent> host_events_;
  ChunkedAppender<OpDetails> op_details_;
  ChunkedAppender<RuntimeCall> runtime_calls_;
  ChunkedAppender<GpuActivity> gpu_activities_;
  ChunkedAppender<KernelLaunchInfo> kernel_info_;
  ChunkedAppender<MemorySample> memory_samples_;
  ChunkedAppender<CollectiveArgs> collectives_;
  std::map<std::pair<std::int64_t, std::int64_t>, std::uint32_t> threads_;
  std::unordered_map<std::string, std::int64_t> text_ids_;  // non-numeric pid/tid -> synthetic id
  std::unordered_map<std::int64_t, FlowEnd> flow_starts_;
  std::unordered_map<std::int64_t, FlowEnd> flow_ends_;
  std::map<std::string, std::uint64_t> ignored_categories_;
  std::map<std::string, std::uint64_t> ignored_phases_;
};

}  // namespace perfgate::kineto
