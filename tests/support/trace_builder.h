// Builds Kineto traces in code, in the current schema or PyTorch 1.8's, so tests state their
// inputs next to the answers they expect. Times are microseconds, as in the format.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace perfgate::testing {

enum class Schema { Current, Legacy };

struct KernelArgs {
  double blocks_per_sm = -1;  // -1: not written
  double occupancy_pct = -1;
  int grid[3] = {0, 0, 0};  // 0: not written
  int block[3] = {0, 0, 0};
  int registers_per_thread = -1;
  int shared_memory = -1;
};

class TraceBuilder {
 public:
  explicit TraceBuilder(Schema schema = Schema::Current) : schema_(schema) {}

  // Host side. `tid` is the thread; ext_id 0 writes no External id.
  TraceBuilder& op(const std::string& name, double ts, double dur, std::int64_t ext_id = 0, int tid = 1,
                   const std::string& extra_args = "");
  TraceBuilder& annotation(const std::string& name, double ts, double dur, std::int64_t ext_id = 0,
                           int tid = 1);
  TraceBuilder& python_function(const std::string& name, double ts, double dur, int tid = 1);
  TraceBuilder& step(int number, double ts, double dur, int tid = 1);
  TraceBuilder& runtime(const std::string& name, double ts, double dur, std::int64_t correlation,
                        std::int64_t ext_id = 0, int tid = 1);

  // Device side.
  TraceBuilder& kernel(const std::string& name, double ts, double dur, std::int64_t correlation,
                       int device = 0, int stream = 7, const KernelArgs& args = {}, std::int64_t ext_id = 0);
  TraceBuilder& memcpy(const std::string& name, double ts, double dur, std::int64_t correlation,
                       int device = 0, int stream = 7, std::int64_t bytes = 0);
  TraceBuilder& memset(double ts, double dur, std::int64_t correlation, int device = 0, int stream = 7);

  // A runtime call at rt_ts (1 µs long) launching one kernel; returns the correlation id used.
  std::int64_t launch(const std::string& kernel_name, double rt_ts, double kernel_ts, double kernel_dur,
                      std::int64_t ext_id = 0, int device = 0, int tid = 1, int stream = 7,
                      const KernelArgs& args = {});

  TraceBuilder& flow_forward_backward(std::int64_t id, double forward_ts, int forward_tid, double backward_ts,
                                      int backward_tid);
  // An allocator sample with its totals (PyTorch 1.10 and later); total_reserved -1: as allocated.
  TraceBuilder& memory(double ts, std::int64_t bytes, std::int64_t total_allocated, int device_type,
                       int device_id, int tid = 1, std::int64_t total_reserved = -1);
  // An allocator sample as PyTorch 1.8/1.9 wrote it: the change alone, no totals (GPU device_id).
  TraceBuilder& memory_change(double ts, std::int64_t bytes, int device_id = 0, int tid = 1);
  TraceBuilder& device(int id, const std::string& name, int major, int minor, std::int64_t memory_bytes,
                       int sms);
  TraceBuilder& top_level(const std::string& key, const std::string& json_value);
  TraceBuilder& raw_event(const std::string& json_object);  // for malformed or unusual events

  std::string json() const;
  // Writes the trace (gzip when the path ends in .gz) and returns the path.
  std::string write(const std::string& path) const;

 private:
  std::string category(const char* current, const char* legacy) const;
  std::string host_tid(int tid) const;
  std::string gpu_tid(int stream) const;
  std::string ext_key() const;

  Schema schema_;
  std::int64_t next_correlation_ = 1000;
  std::vector<std::string> events_;
  std::vector<std::string> devices_;
  std::vector<std::pair<std::string, std::string>> top_level_;
};

// A fresh empty folder under the system temporary directory, removed at process exit.
std::string temp_dir();
// A run folder of `ranks` traces rank-0.json ... (3 steps each, `spacing` us apart, of
// `step_us(rank)` us, each an aten::mm launching kernel_<rank mod 3>), in `dir`, which it returns.
std::string write_paced_ranks(const std::string& dir, int ranks, double (*step_us)(int rank), double spacing);
// A run folder of 4 ranks (rank-0.json ... rank-3.json, distributedInfo rank r of 4), one step
// [0, 7000] us each, issuing six collectives on process group "0" (Group size 4, Float): all-reduce,
// all-gather, reduce-scatter, all-to-all, broadcast and reduce, k = 0..5, each of a 4,000,000-byte
// message (1,000,000 floats; 250,000 in or out per rank where the collective gathers or scatters).
// Each is a record_param_comms op at 1000k + 950 us launching an NCCL kernel that starts at
// 1000k + 1000 us on `early` ranks and 300 us later on rank `late`, and ends at 1000k + 1400 us on
// every rank: 400 us where the rank was early, 100 us on the late one. `late` -1: all start
// together.
std::string write_late_rank_run(const std::string& dir, int late = 3);
std::string write_text(const std::string& path, const std::string& text);
std::string write_gzip(const std::string& path, const std::string& text);
std::string read_text(const std::string& path);
std::string read_gzip(const std::string& path);  // gzip or plain

}  // namespace perfgate::testing
