// Hand-built PyTorch memory snapshots (the dict torch.cuda.memory._snapshot() returns, pickled as
// _dump_snapshot pickles it) for the snapshot reader's tests: the keys MemoryViz reads, each value
// set by the test.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "support/pickle_builder.h"

namespace perfgate::test {

struct SnapFrame {
  std::string name, filename;
  std::int64_t line = 0;
};
struct SnapBlock {
  std::uint64_t address = 0, size = 0;
  std::string state;  // active_allocated, active_pending_free, inactive
  std::vector<SnapFrame> frames;
  std::uint64_t requested = 0;  // requested_size; 0: the block's size
};
struct SnapSegment {
  std::int64_t device = 0;
  std::uint64_t address = 0, total_size = 0;
  std::vector<SnapBlock> blocks;
  bool expandable = false;
};
struct SnapAction {
  std::string action;
  std::uint64_t addr = 0, size = 0;
  std::int64_t time_us = 0;  // -1: not written (PyTorch 2.0 and 2.1 write none)
  std::vector<SnapFrame> frames;
  std::int64_t device_free = -1;  // an oom's; -1: not written
  std::string category = "";      // written when not empty (torch.cuda._memory_viz._profile_to_snapshot's)
  std::string user_metadata = "";
  double time_us_real = -1;  // >= 0: time_us written as this float (a snapshot a tool rewrote)
};
struct Snapshot {
  std::vector<SnapSegment> segments;
  std::vector<std::vector<SnapAction>> device_traces;  // one list per device
  bool with_traces = true;
  std::string alloc_conf;
  // torch.cuda.memory_snapshot()'s form: the list of segments alone (no traces, no settings).
  bool list_form = false;
};

inline void write_frames(PickleWriter& w, const std::vector<SnapFrame>& frames) {
  w.empty_list().mark();
  for (const SnapFrame& f : frames) {
    w.empty_dict().mark();
    w.str("name").str(f.name).str("filename").str(f.filename).str("line").integer(f.line);
    w.setitems();
  }
  w.appends();
}

inline std::string snapshot_pickle(const Snapshot& s, int protocol = 4) {
  PickleWriter w(protocol);
  if (!s.list_form) w.empty_dict().mark().str("segments");
  w.empty_list().mark();
  for (const SnapSegment& seg : s.segments) {
    w.empty_dict().mark();
    w.str("device").integer(seg.device).str("address").integer(static_cast<std::int64_t>(seg.address));
    w.str("total_size").integer(static_cast<std::int64_t>(seg.total_size));
    w.str("stream").integer(0).str("segment_type").str("large").str("is_expandable").boolean(seg.expandable);
    w.str("blocks").empty_list().mark();
    for (const SnapBlock& b : seg.blocks) {
      w.empty_dict().mark();
      w.str("address").integer(static_cast<std::int64_t>(b.address));
      w.str("size")
          .integer(static_cast<std::int64_t>(b.size))
          .str("requested_size")
          .integer(static_cast<std::int64_t>(b.requested != 0 ? b.requested : b.size));
      w.str("state").str(b.state).str("frames");
      write_frames(w, b.frames);
      w.setitems();
    }
    w.appends().setitems();
  }
  w.appends();
  if (s.list_form) return w.stop().text();
  if (s.with_traces) {
    w.str("device_traces").empty_list().mark();
    for (const auto& trace : s.device_traces) {
      w.empty_list().mark();
      for (const SnapAction& a : trace) {
        w.empty_dict().mark();
        w.str("action").str(a.action).str("addr").integer(static_cast<std::int64_t>(a.addr));
        w.str("size").integer(static_cast<std::int64_t>(a.size)).str("stream").integer(0);
        if (a.time_us_real >= 0)
          w.str("time_us").real(a.time_us_real);
        else if (a.time_us >= 0)
          w.str("time_us").integer(a.time_us);
        w.str("compile_context").str("N/A").str("user_metadata").str(a.user_metadata);
        if (!a.category.empty()) w.str("category").str(a.category);
        if (a.device_free >= 0) w.str("device_free").integer(a.device_free);
        w.str("frames");
        write_frames(w, a.frames);
        w.setitems();
      }
      w.appends();
    }
    w.appends();
  }
  w.str("allocator_settings").empty_dict().mark();
  w.str("PYTORCH_CUDA_ALLOC_CONF").str(s.alloc_conf).str("expandable_segments").boolean(false);
  w.setitems();
  w.setitems().stop();
  return w.text();
}

}  // namespace perfgate::test
