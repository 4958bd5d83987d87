#include "support/trace_builder.h"

#include <zlib.h>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include <fmt/format.h>

#include "render/json_writer.h"

namespace perfgate::testing {
namespace fs = std::filesystem;
namespace {

std::string quote(const std::string& s) {
  std::string out;
  append_json_string(out, s);
  return out;
}

// Microseconds with three decimals: nanosecond-exact.
std::string micros(double us) {
  return fmt::format("{:.3f}", us);
}

}  // namespace

std::string TraceBuilder::category(const char* current, const char* legacy) const {
  return schema_ == Schema::Current ? current : legacy;
}
std::string TraceBuilder::host_tid(int tid) const {
  return schema_ == Schema::Current ? std::to_string(tid) : quote(std::to_string(tid));
}
std::string TraceBuilder::gpu_tid(int stream) const {
  return schema_ == Schema::Current ? std::to_string(stream) : quote(fmt::format("stream {}", stream));
}
std::string TraceBuilder::ext_key() const {
  return schema_ == Schema::Current ? "External id" : "external id";
}

TraceBuilder& TraceBuilder::op(const std::string& name, double ts, double dur, std::int64_t ext_id, int tid,
                               const std::string& extra_args) {
  std::string args = ext_id ? fmt::format("\"External id\": {}", ext_id) : "";
  if (!extra_args.empty()) args += (args.empty() ? "" : ", ") + extra_args;
  events_.push_back(fmt::format(
      R"({{"ph": "X", "cat": "{}", "name": {}, "pid": 100, "tid": {}, "ts": {}, "dur": {}, "args": {{{}}}}})",
      category("cpu_op", "Operator"), quote(name), host_tid(tid), micros(ts), micros(dur), args));
  return *this;
}

TraceBuilder& TraceBuilder::annotation(const std::string& name, double ts, double dur, std::int64_t ext_id,
                                       int tid) {
  std::string args = ext_id ? fmt::format("\"External id\": {}", ext_id) : "";
  events_.push_back(fmt::format(
      R"({{"ph": "X", "cat": "{}", "name": {}, "pid": 100, "tid": {}, "ts": {}, "dur": {}, "args": {{{}}}}})",
      category("user_annotation", "Operator"), quote(name), host_tid(tid), micros(ts), micros(dur), args));
  return *this;
}

TraceBuilder& TraceBuilder::python_function(const std::string& name, double ts, double dur, int tid) {
  events_.push_back(fmt::format(
      R"({{"ph": "X", "cat": "python_function", "name": {}, "pid": 100, "tid": {}, "ts": {}, "dur": {}}})",
      quote(name), host_tid(tid), micros(ts), micros(dur)));
  return *this;
}

TraceBuilder& TraceBuilder::step(int number, double ts, double dur, int tid) {
  return annotation(fmt::format("ProfilerStep#{}", number), ts, dur, 0, tid);
}

TraceBuilder& TraceBuilder::runtime(const std::string& name, double ts, double dur, std::int64_t correlation,
                                    std::int64_t ext_id, int tid) {
  events_.push_back(fmt::format(
      R"({{"ph": "X", "cat": "{}", "name": {}, "pid": 100, "tid": {}, "ts": {}, "dur": {}, "args": {{"correlation": {}, "{}": {}}}}})",
      category("cuda_runtime", "Runtime"), quote(name), host_tid(tid), micros(ts), micros(dur), correlation,
      ext_key(), ext_id));
  return *this;
}

TraceBuilder& TraceBuilder::kernel(const std::string& name, double ts, double dur, std::int64_t correlation,
                                   int device, int stream, const KernelArgs& k, std::int64_t ext_id) {
  std::string args = fmt::format(R"("device": {}, "stream": {}, "correlation": {}, "{}": {})", device, stream,
                                 correlation, ext_key(), ext_id);
  if (k.blocks_per_sm >= 0) args += fmt::format(R"(, "blocks per SM": {})", k.blocks_per_sm);
  if (k.occupancy_pct >= 0) args += fmt::format(R"(, "est. achieved occupancy %": {})", k.occupancy_pct);
  if (k.grid[0] > 0) args += fmt::format(R"(, "grid": [{}, {}, {}])", k.grid[0], k.grid[1], k.grid[2]);
  if (k.block[0] > 0) args += fmt::format(R"(, "block": [{}, {}, {}])", k.block[0], k.block[1], k.block[2]);
  if (k.registers_per_thread >= 0)
    args += fmt::format(R"(, "registers per thread": {})", k.registers_per_thread);
  if (k.shared_memory >= 0) args += fmt::format(R"(, "shared memory": {})", k.shared_memory);
  events_.push_back(fmt::format(
      R"({{"ph": "X", "cat": "{}", "name": {}, "pid": {}, "tid": {}, "ts": {}, "dur": {}, "args": {{{}}}}})",
      category("kernel", "Kernel"), quote(name), device, gpu_tid(stream), micros(ts), micros(dur), args));
  return *this;
}

TraceBuilder& TraceBuilder::memcpy(const std::string& name, double ts, double dur, std::int64_t correlation,
                                   int device, int stream, std::int64_t bytes) {
  events_.push_back(fmt::format(
      R"({{"ph": "X", "cat": "{}", "name": {}, "pid": {}, "tid": {}, "ts": {}, "dur": {}, "args": {{"device": {}, "stream": {}, "correlation": {}, "bytes": {}}}}})",
      category("gpu_memcpy", "Memcpy"), quote(name), device, gpu_tid(stream), micros(ts), micros(dur), device,
      stream, correlation, bytes));
  return *this;
}

TraceBuilder& TraceBuilder::memset(double ts, double dur, std::int64_t correlation, int device, int stream) {
  events_.push_back(fmt::format(
      R"J({{"ph": "X", "cat": "{}", "name": "Memset (Device)", "pid": {}, "tid": {}, "ts": {}, "dur": {}, "args": {{"device": {}, "stream": {}, "correlation": {}}}}})J",
      category("gpu_memset", "Memset"), device, gpu_tid(stream), micros(ts), micros(dur), device, stream,
      correlation));
  return *this;
}

std::int64_t TraceBuilder::launch(const std::string& kernel_name, double rt_ts, double kernel_ts,
                                  double kernel_dur, std::int64_t ext_id, int device, int tid, int stream,
                                  const KernelArgs& args) {
  std::int64_t correlation = next_correlation_++;
  runtime("cudaLaunchKernel", rt_ts, 1, correlation, ext_id, tid);
  kernel(kernel_name, kernel_ts, kernel_dur, correlation, device, stream, args, ext_id);
  return correlation;
}

TraceBuilder& TraceBuilder::flow_forward_backward(std::int64_t id, double forward_ts, int forward_tid,
                                                  double backward_ts, int backward_tid) {
  events_.push_back(fmt::format(
      R"({{"ph": "s", "id": {}, "pid": 100, "tid": {}, "ts": {}, "cat": "fwdbwd", "name": "fwdbwd"}})", id,
      host_tid(forward_tid), micros(forward_ts)));
  events_.push_back(fmt::format(
      R"({{"ph": "f", "id": {}, "pid": 100, "tid": {}, "ts": {}, "cat": "fwdbwd", "name": "fwdbwd", "bp": "e"}})",
      id, host_tid(backward_tid), micros(backward_ts)));
  return *this;
}

TraceBuilder& TraceBuilder::memory(double ts, std::int64_t bytes, std::int64_t total_allocated,
                                   int device_type, int device_id, int tid, std::int64_t total_reserved) {
  events_.push_back(fmt::format(
      R"({{"ph": "i", "s": "t", "name": "[memory]", "pid": 100, "tid": {}, "ts": {}, "args": {{"Device Type": {}, "Device Id": {}, "Bytes": {}, "Total Allocated": {}, "Total Reserved": {}}}}})",
      host_tid(tid), micros(ts), device_type, device_id, bytes, total_allocated,
      total_reserved < 0 ? total_allocated : total_reserved));
  return *this;
}

TraceBuilder& TraceBuilder::memory_change(double ts, std::int64_t bytes, int device_id, int tid) {
  events_.push_back(fmt::format(
      R"({{"ph": "i", "s": "t", "name": "[memory]", "pid": 100, "tid": {}, "ts": {}, "args": {{"Device Type": 1, "Device Id": {}, "Bytes": {}}}}})",
      host_tid(tid), micros(ts), device_id, bytes));
  return *this;
}

TraceBuilder& TraceBuilder::device(int id, const std::string& name, int major, int minor,
                                   std::int64_t memory_bytes, int sms) {
  devices_.push_back(fmt::format(
      R"({{"id": {}, "name": {}, "totalGlobalMem": {}, "computeMajor": {}, "computeMinor": {}, "numSms": {}}})",
      id, quote(name), memory_bytes, major, minor, sms));
  return *this;
}

TraceBuilder& TraceBuilder::top_level(const std::string& key, const std::string& json_value) {
  top_level_.emplace_back(key, json_value);
  return *this;
}

TraceBuilder& TraceBuilder::raw_event(const std::string& json_object) {
  events_.push_back(json_object);
  return *this;
}

std::string TraceBuilder::json() const {
  std::string out = "{\n  \"schemaVersion\": 1";
  if (!devices_.empty()) {
    out += ",\n  \"deviceProperties\": [";
    for (std::size_t i = 0; i < devices_.size(); ++i) out += (i ? ", " : "") + devices_[i];
    out += "]";
  }
  for (const auto& [k, v] : top_level_) out += fmt::format(",\n  {}: {}", quote(k), v);
  out += ",\n  \"traceEvents\": [\n";
  for (std::size_t i = 0; i < events_.size(); ++i)
    out += "    " + events_[i] + (i + 1 < events_.size() ? ",\n" : "\n");
  out += "  ]\n}\n";
  return out;
}

std::string TraceBuilder::write(const std::string& path) const {
  return path.ends_with(".gz") ? write_gzip(path, json()) : write_text(path, json());
}

std::string temp_dir() {
  static int counter = 0;
  // A new folder per process (mkdtemp), not one named by the pid alone: a process that ended
  // without its cleanup (killed, or a forked child's _exit) left files that a later test process
  // given the same pid read as its own.
  static const fs::path base = [] {
    std::string pattern =
        (fs::temp_directory_path() / fmt::format("perfgate-test-{}-XXXXXX", ::getpid())).string();
    if (!::mkdtemp(pattern.data())) throw std::runtime_error("cannot make a temporary folder " + pattern);
    // mkdtemp's 0700 would keep out the tests that run perfgate as another user.
    fs::permissions(pattern, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                                 fs::perms::others_read | fs::perms::others_exec);
    return fs::path(pattern);
  }();
  fs::path dir = base / std::to_string(counter++);
  fs::create_directories(dir);
  static struct Cleanup {
    fs::path path;
    ~Cleanup() {
      std::error_code ec;
      fs::remove_all(path, ec);
    }
  } cleanup{base};
  return dir.string();
}

std::string write_text(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  if (!out) throw std::runtime_error("cannot write " + path);
  return path;
}

std::string write_gzip(const std::string& path, const std::string& text) {
  gzFile f = gzopen(path.c_str(), "wb");
  if (!f) throw std::runtime_error("cannot write " + path);
  gzwrite(f, text.data(), static_cast<unsigned>(text.size()));
  gzclose(f);
  return path;
}

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string read_gzip(const std::string& path) {
  gzFile f = gzopen(path.c_str(), "rb");
  if (!f) throw std::runtime_error("cannot open " + path);
  std::string out;
  char buffer[1 << 16];
  int n = 0;
  while ((n = gzread(f, buffer, sizeof buffer)) > 0) out.append(buffer, static_cast<std::size_t>(n));
  gzclose(f);
  return out;
}

std::string write_paced_ranks(const std::string& dir, int ranks, double (*step_us)(int rank),
                              double spacing) {
  std::filesystem::create_directories(dir);
  for (int rank = 0; rank < ranks; ++rank) {
    TraceBuilder t;
    for (int step = 0; step < 3; ++step) {
      double s = spacing * step, d = step_us(rank);
      t.step(step + 1, s, d);
      t.op("aten::mm", s + 10, d - 20, 1 + 10 * step);
      t.launch(fmt::format("kernel_{}", rank % 3), s + 12, s + 20, d - 40, 1 + 10 * step);
    }
    t.write(fmt::format("{}/rank-{}.json", dir, rank));
  }
  return dir;
}

std::string write_late_rank_run(const std::string& dir, int late) {
  struct Collective {
    const char* name;
    const char* kernel;
    int in, out;  // elements per rank
  };
  static constexpr Collective kCollectives[] = {
      {"allreduce", "ncclDevKernel_AllReduce_Sum_f32_RING_LL", 1000000, 1000000},
      {"allgather", "ncclDevKernel_AllGather_RING_LL", 250000, 1000000},
      {"reduce_scatter", "ncclDevKernel_ReduceScatter_Sum_f32_RING_LL", 1000000, 250000},
      {"all_to_all", "ncclDevKernel_SendRecv", 1000000, 1000000},
      {"broadcast", "ncclDevKernel_Broadcast_RING_LL", 1000000, 1000000},
      {"reduce", "ncclDevKernel_Reduce_Sum_f32_RING_LL", 1000000, 1000000},
  };
  std::filesystem::create_directories(dir);
  for (int rank = 0; rank < 4; ++rank) {
    TraceBuilder t;
    t.top_level("distributedInfo",
                fmt::format(R"({{"backend": "nccl", "rank": {}, "world_size": 4}})", rank));
    t.step(1, 0, 7000);
    for (int k = 0; k < 6; ++k) {
      const Collective& c = kCollectives[k];
      double base = 1000.0 * k, start = base + 1000 + (rank == late ? 300 : 0);
      std::int64_t ext = 100 + k;
      t.op("record_param_comms", base + 950, 10, ext, 1,
           fmt::format(
               R"("Collective name": "{}", "dtype": "Float", "In msg nelems": {}, "Out msg nelems": {}, )"
               R"("Group size": 4, "Process Group Name": "0")",
               c.name, c.in, c.out));
      t.launch(c.kernel, base + 952, start, base + 1400 - start, ext);
    }
    t.write(fmt::format("{}/rank-{}.json", dir, rank));
  }
  return dir;
}

}  // namespace perfgate::testing
