// A seeded synthetic PyTorch memory snapshot of any size, written as it is made (never held whole),
// pickled the way Python's pickler writes torch.cuda.memory._snapshot()'s dict in protocol 4:
// every string and container memoised (MEMOIZE), a string or frame seen again fetched from the memo
// (BINGET / LONG_BINGET: the keys, the action names, the frames that tracebacks share), lists
// appended in batches of 1000. The writer simulates an allocator (allocations of 512 B to 1 MiB,
// completed frees of random live blocks) and knows what it wrote: the actions, the peak of the
// allocated total after each action, the blocks live at the end (the segments' active blocks) and
// the segments' reserved bytes. For the streaming reader's test (tests/load/snapshot_stream_test.cpp)
// and perfgate-make-snapshot (bench/make_snapshot.cpp, docs/performance.md).
#pragma once

#include <cstdint>
#include <ostream>
#include <random>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace perfgate::test {

struct SyntheticSnapshotFacts {
  std::uint64_t bytes = 0;      // the pickle's size
  std::uint64_t actions = 0;    // device_traces[0]'s entries
  std::uint64_t segments = 0;   // the final state's segments
  std::uint64_t reserved = 0;   // their total_size, summed
  std::uint64_t allocated = 0;  // their active blocks, summed (the trace's allocations still live)
  std::uint64_t peak = 0;       // the allocated total's highest, after some action
};

class SyntheticSnapshotWriter {
 public:
  explicit SyntheticSnapshotWriter(std::ostream& out) : out_(out) {}

  // About `target_bytes` of pickle (the trace grows until then), seeded by `seed`.
  SyntheticSnapshotFacts write(std::uint64_t target_bytes, std::uint64_t seed) {
    simulate(target_bytes, seed);
    op(0x80).le(4, 1);
    dict_begin();
    str("segments");
    write_segments();
    str("device_traces");
    list_begin();
    write_trace();
    list_end();
    str("allocator_settings");
    dict_begin();
    str("PYTORCH_CUDA_ALLOC_CONF");
    str("expandable_segments:False");
    dict_end();
    str("external_annotations");
    list_begin();
    for (int i = 0; i < 3; ++i) {
      dict_begin();
      str("stage");
      str("train");
      str("time_us");
      integer(i);
      dict_end();
    }
    list_end();
    dict_end();
    op('.');
    flush();
    facts_.bytes = written_;
    return facts_;
  }

 private:
  struct Action {
    std::uint64_t addr, size;
    std::uint32_t kind;   // 0 alloc, 1 free_requested, 2 free_completed
    std::uint32_t stack;  // which traceback: frames stack .. stack + depth - 1
  };
  static constexpr std::uint32_t kFrames = 4096, kDepth = 6;

  void simulate(std::uint64_t target_bytes, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::vector<std::pair<std::uint64_t, std::uint64_t>> live;  // address, size
    std::uint64_t next = 0x7f0000000000, allocated = 0;
    // An entry is about 94 bytes (measured: 2,880,356,447 bytes for 30,678,337): enough for the target.
    for (std::uint64_t n = target_bytes / 94; actions_.size() < n;) {
      auto stack = static_cast<std::uint32_t>(rng() % (kFrames - kDepth));
      if (live.size() < 64 || (live.size() < 8192 && rng() % 2 == 0)) {
        std::uint64_t size = (rng() % 2048 + 1) * 512;
        live.emplace_back(next, size);
        actions_.push_back({next, size, 0, stack});
        next += size;
        allocated += size;
        facts_.peak = std::max(facts_.peak, allocated);
      } else {
        std::size_t j = rng() % live.size();
        auto [addr, size] = live[j];
        live[j] = live.back();
        live.pop_back();
        actions_.push_back({addr, size, 1, stack});
        actions_.push_back({addr, size, 2, stack});
        allocated -= size;
      }
    }
    live_ = std::move(live);
    facts_.actions = actions_.size();
    facts_.allocated = allocated;
  }

  // The final state: the live blocks, 32 to a segment, each segment with 1 MiB inactive at its end.
  void write_segments() {
    list_begin();
    for (std::size_t from = 0; from < live_.size(); from += 32) {
      std::size_t upto = std::min(live_.size(), from + 32);
      std::uint64_t total = 1 << 20;
      for (std::size_t i = from; i < upto; ++i) total += live_[i].second;
      dict_begin();
      str("device");
      integer(0);
      str("address");
      integer(static_cast<std::int64_t>(live_[from].first));
      str("total_size");
      integer(static_cast<std::int64_t>(total));
      str("stream");
      integer(0);
      str("segment_type");
      str("large");
      str("is_expandable");
      op(0x89);
      str("blocks");
      list_begin();
      for (std::size_t i = from; i < upto; ++i) block(live_[i].first, live_[i].second, "active_allocated");
      block(live_[upto - 1].first + live_[upto - 1].second, 1 << 20, "inactive");
      list_end();
      dict_end();
      item();
      ++facts_.segments;
      facts_.reserved += total;
    }
    list_end();
  }
  void block(std::uint64_t addr, std::uint64_t size, std::string_view state) {
    dict_begin();
    str("address");
    integer(static_cast<std::int64_t>(addr));
    str("size");
    integer(static_cast<std::int64_t>(size));
    str("requested_size");
    integer(static_cast<std::int64_t>(size));
    str("state");
    str(state);
    dict_end();
  }

  void write_trace() {
    list_begin();
    constexpr std::string_view kNames[] = {"alloc", "free_requested", "free_completed"};
    for (std::size_t i = 0; i < actions_.size(); ++i) {
      const Action& a = actions_[i];
      dict_begin();
      str("action");
      str(kNames[a.kind]);
      str("addr");
      integer(static_cast<std::int64_t>(a.addr));
      str("size");
      integer(static_cast<std::int64_t>(a.size));
      str("stream");
      integer(0);
      str("time_us");
      integer(static_cast<std::int64_t>(1'700'000'000'000'000 + i * 3));
      str("frames");
      list_begin();
      for (std::uint32_t f = 0; f < kDepth; ++f) frame(a.stack + f);
      list_end();
      dict_end();
      item();
    }
    list_end();
  }
  // A frame dict, written once and fetched from the memo after (torch shares a traceback's frames).
  void frame(std::uint32_t f) {
    if (auto at = frame_memo_.find(f); at != frame_memo_.end()) {
      get(at->second);
    } else {
      dict_begin();
      frame_memo_[f] = memo_ - 1;  // the dict's own MEMOIZE
      str("filename");
      str(f % 3 == 0 ? "/usr/lib/python3.10/site-packages/torch/nn/modules/module.py"
                     : "/home/me/model_" + std::to_string(f % 97) + ".py");
      str("name");
      str("fn_" + std::to_string(f));
      str("line");
      integer(f % 1000 + 1);
      dict_end();
    }
    item();
  }

  // Pickle opcodes.
  SyntheticSnapshotWriter& op(unsigned char c) {
    buffer_ += static_cast<char>(c);
    if (buffer_.size() >= (1 << 20)) flush();
    return *this;
  }
  SyntheticSnapshotWriter& le(std::uint64_t v, int n) {
    for (int i = 0; i < n; ++i) buffer_ += static_cast<char>((v >> (8 * i)) & 0xff);
    return *this;
  }
  void memoize() {
    op(0x94);
    ++memo_;
  }
  void get(std::uint64_t index) {
    if (index < 256)
      op('h').le(index, 1);
    else
      op('j').le(index, 4);
  }
  void str(std::string_view s) {
    if (auto at = strings_.find(std::string(s)); at != strings_.end()) return get(at->second);
    op(0x8c).le(s.size(), 1);
    buffer_ += s;
    memoize();
    strings_.emplace(std::string(s), memo_ - 1);
  }
  void integer(std::int64_t v) {
    if (v >= 0 && v < 256)
      op('K').le(static_cast<std::uint64_t>(v), 1);
    else if (v >= 0 && v < 65536)
      op('M').le(static_cast<std::uint64_t>(v), 2);
    else if (v >= INT32_MIN && v <= INT32_MAX)
      op('J').le(static_cast<std::uint64_t>(v), 4);
    else
      op(0x8a).le(8, 1).le(static_cast<std::uint64_t>(v), 8);
  }
  // Containers: MARK after the container; SETITEMS / APPENDS close it (lists every 1000 items).
  void dict_begin() {
    op('}');
    memoize();
    op('(');
    counts_.push_back(0);
  }
  void dict_end() {
    op('u');
    counts_.pop_back();
  }
  void list_begin() {
    op(']');
    memoize();
    op('(');
    counts_.push_back(0);
  }
  void item() {  // one item placed in the list being written
    if (counts_.empty() || ++counts_.back() % 1000 != 0) return;
    op('e');
    op('(');
  }
  void list_end() {
    op('e');
    counts_.pop_back();
  }
  void flush() {
    out_.write(buffer_.data(), static_cast<std::streamsize>(buffer_.size()));
    written_ += buffer_.size();
    buffer_.clear();
  }

  std::ostream& out_;
  std::string buffer_;
  std::uint64_t written_ = 0, memo_ = 0;
  std::unordered_map<std::string, std::uint64_t> strings_;
  std::unordered_map<std::uint32_t, std::uint64_t> frame_memo_;
  std::vector<std::uint64_t> counts_;
  std::vector<Action> actions_;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> live_;
  SyntheticSnapshotFacts facts_;
};

}  // namespace perfgate::test
