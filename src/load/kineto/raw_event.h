// One traceEvents entry as the SAX handler collects it: only the fields perfgate uses,
// reused from event to event so that streaming allocates nothing per event.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace perfgate::kineto {

// pid/tid/id values are numbers in current traces and strings in old ones ("stream 7", "25738").
struct IdValue {
  bool present = false;
  bool is_text = false;
  std::int64_t number = 0;
  std::string text;

  void clear() {
    present = false;
    is_text = false;
    number = 0;
    if (!text.empty()) text.clear();
  }
};

// The event's numbers and flags: reset with one assignment per event.
struct RawEventScalars {
  // ts and dur: nanoseconds when the trace wrote integer microseconds, else the exact number text
  // in microseconds (RawEvent::ts_text, dur_text; read by micros_text_to_nanos).
  std::optional<std::int64_t> ts_ns;
  std::optional<std::int64_t> dur_ns;
  bool has_ts = false;
  bool has_dur = false;

  // args
  std::optional<std::int64_t> external_id;
  std::optional<std::int64_t> correlation;
  std::optional<std::int64_t> device;
  std::optional<std::int64_t> stream;
  std::optional<std::int64_t> wait_on_stream;        // cuda_sync
  std::optional<std::int64_t> wait_on_event_record;  // cuda_sync: the cudaEventRecord correlation
  std::optional<std::int64_t> sequence_number;
  std::optional<std::int64_t> registers_per_thread;
  std::optional<std::int64_t> shared_memory;
  std::optional<double> blocks_per_sm;
  std::optional<double> occupancy_pct;
  std::optional<std::int64_t> bytes;
  std::optional<std::int64_t> dma_size;  // args.size of an MTIA dma_request
  std::int32_t grid[3] = {-1, -1, -1};
  std::int32_t block[3] = {-1, -1, -1};
  std::optional<double> flops;
  std::optional<std::int64_t> in_elements;
  std::optional<std::int64_t> out_elements;
  std::optional<std::int64_t> group_size;
  std::optional<std::int64_t> memory_device_type;
  std::optional<std::int64_t> memory_device_id;
  std::optional<std::int64_t> total_allocated;
  std::optional<std::int64_t> total_reserved;
};

struct RawEvent : RawEventScalars {
  // Views: into the parser's input while it holds the event's text (nearly always), else into the
  // copies below (a value that came in parts or was repaired, or whose input buffer is about to be
  // reused: TraceHandler::keep_views). The name and the call stack are not checked for UTF-8 here:
  // the builder checks each distinct one once, when it interns it.
  std::string_view ph;
  std::string_view cat;
  std::string_view name;
  std::string_view call_stack;
  std::string ph_copy;
  std::string cat_copy;
  std::string name_copy;
  std::string call_stack_copy;
  std::string ts_text;
  std::string dur_text;
  IdValue pid;
  IdValue tid;
  IdValue id;  // flow id

  std::string input_dims;
  std::string input_types;
  std::string concrete_inputs;
  std::string launched_kernel;  // args.kernel of a launch call
  std::string dtype;
  std::string collective;
  std::string process_group;  // "Process Group Name" of a collective
  std::string arg_name;       // args.name (args.labels) of metadata events
  std::string dma_direction;  // args.direction of an MTIA dma_request

  void clear() {
    static constexpr RawEventScalars kNone{};
    static_cast<RawEventScalars&>(*this) = kNone;  // one copy of a constant: no per-field stores
    ph = {};
    cat = {};
    name = {};
    call_stack = {};
    ts_text.clear();
    dur_text.clear();
    pid.clear();
    tid.clear();
    id.clear();
    input_dims.clear();
    input_types.clear();
    concrete_inputs.clear();
    launched_kernel.clear();
    dtype.clear();
    collective.clear();
    process_group.clear();
    arg_name.clear();
    dma_direction.clear();
  }
};

}  // namespace perfgate::kineto
