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
    text.clear();
  }
};

struct RawEvent {
  // Views: into the parser's input while it holds the event's text (nearly always), else into the
  // copies below (a value that came in parts or was repaired, or whose input buffer is about to be
  // reused: TraceHandler::keep_views).
  std::string_view ph;
  std::string_view cat;
  std::string_view name;
  std::string ph_copy;
  std::string cat_copy;
  std::string name_copy;
  // ts and dur: nanoseconds when the trace wrote integer microseconds, else the exact number text
  // in microseconds (read by micros_text_to_nanos).
  std::optional<std::int64_t> ts_ns;
  std::optional<std::int64_t> dur_ns;
  std::string ts_text;
  std::string dur_text;
  bool has_ts = false;
  bool has_dur = false;
  IdValue pid;
  IdValue tid;
  IdValue id;  // flow id

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
  std::int32_t grid[3] = {-1, -1, -1};
  std::int32_t block[3] = {-1, -1, -1};
  std::string input_dims;
  std::string input_types;
  std::string concrete_inputs;
  std::string call_stack;
  std::string launched_kernel;  // args.kernel of a launch call
  std::optional<double> flops;
  std::optional<std::int64_t> in_elements;
  std::optional<std::int64_t> out_elements;
  std::optional<std::int64_t> group_size;
  std::string dtype;
  std::string collective;
  std::string process_group;  // "Process Group Name" of a collective
  std::string arg_name;       // args.name of metadata events
  std::optional<std::int64_t> memory_device_type;
  std::optional<std::int64_t> memory_device_id;
  std::optional<std::int64_t> total_allocated;
  std::optional<std::int64_t> total_reserved;

  void clear() {
    ph = {};
    cat = {};
    name = {};
    ts_ns.reset();
    dur_ns.reset();
    ts_text.clear();
    dur_text.clear();
    has_ts = has_dur = false;
    pid.clear();
    tid.clear();
    id.clear();
    external_id.reset();
    correlation.reset();
    device.reset();
    stream.reset();
    wait_on_stream.reset();
    wait_on_event_record.reset();
    sequence_number.reset();
    registers_per_thread.reset();
    shared_memory.reset();
    blocks_per_sm.reset();
    occupancy_pct.reset();
    bytes.reset();
    for (int i = 0; i < 3; ++i) grid[i] = block[i] = -1;
    input_dims.clear();
    input_types.clear();
    concrete_inputs.clear();
    call_stack.clear();
    launched_kernel.clear();
    flops.reset();
    in_elements.reset();
    out_elements.reset();
    group_size.reset();
    dtype.clear();
    collective.clear();
    process_group.clear();
    arg_name.clear();
    memory_device_type.reset();
    memory_device_id.reset();
    total_allocated.reset();
    total_reserved.reset();
  }
};

}  // namespace perfgate::kineto
