// Issue 59: the XSpace reader (JAX, TensorFlow: *.xplane.pb) on hand-built messages whose answers
// are written out here: device streams as kernels and copies with their XLA ops, the host plane as
// threads, ops, runtime calls and steps, the GPU named from the plane's stats, and bad input
// refused with its offset (exit 3).
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "analyse/classifier.h"
#include "analyse/worker_analysis.h"
#include "common/errors.h"
#include "io/gzip.h"
#include "load/reader.h"
#include "load/xplane/xplane_reader.h"
#include "support/helpers.h"
#include "support/xspace_builder.h"

namespace perfgate::testing {
namespace {

using namespace pb;

// Stat metadata ids of the hand-built planes.
enum : std::int64_t {
  kVendor = 1,
  kDeviceName,
  kCores,
  kCapMajor,
  kCapMinor,
  kMemory,
  kCorrelation,
  kKernelDetails,
  kMemcpyDetails,
  kHloOp,
  kHloModule,
  kStepNum,
  kProcessId,
  kDotFusionText,  // a stat metadata entry whose name is a value: what a ref_value refers to
  kClockRate,
};
const std::vector<std::pair<std::int64_t, std::string>> kStatNames = {{kVendor, "device_vendor"},
                                                                      {kDeviceName, "gpu_device_name"},
                                                                      {kCores, "core_count"},
                                                                      {kCapMajor, "compute_cap_major"},
                                                                      {kCapMinor, "compute_cap_minor"},
                                                                      {kMemory, "memory_size"},
                                                                      {kCorrelation, "correlation_id"},
                                                                      {kKernelDetails, "kernel_details"},
                                                                      {kMemcpyDetails, "memcpy_details"},
                                                                      {kHloOp, "hlo_op"},
                                                                      {kHloModule, "hlo_module"},
                                                                      {kStepNum, "step_num"},
                                                                      {kProcessId, "process_id"},
                                                                      {kDotFusionText, "dot_fusion"},
                                                                      {kClockRate, "clock_rate"}};

// One H200 with a stream of two kernels and a copy; a host thread with two steps, a launch call
// per kernel, a Python function and an allocator marker (zero length).
Plane gpu_plane() {
  Plane gpu = plane(0, "/device:GPU:0");
  gpu.stat_names = kStatNames;
  gpu.stats = {str_stat(kVendor, "Nvidia"), str_stat(kDeviceName, "NVIDIA H200"),
               int_stat(kCores, 132),       int_stat(kCapMajor, 9),
               int_stat(kCapMinor, 0),      uint_stat(kMemory, 150109880320)};
  gpu.event_names = {{1, "loop_add_fusion"}, {2, "nvjet_sm90_tst_128x128"}, {3, "MemcpyH2D"}};
  // Line timestamp 1,000 ns; offsets and durations in picoseconds.
  gpu.lines = {
      line(7, "Stream #7(Compute)", 1000,
           {event(
                1, 500'000, 2'000'000,  // [1,500, 3,500) ns
                {int_stat(kCorrelation, 11), str_stat(kHloOp, "add_fusion"), str_stat(kHloModule, "jit_step"),
                 str_stat(kKernelDetails,
                          "regs:32 static_shared:0 dynamic_shared:1024 grid:40,1,1 block:128,1,1 "
                          "occ_pct:100")}),
            event(2, 21'000'000,
                  4'000'500,  // [22,000, 26,000.5) ns: the end rounds down to 26,000
                              // XLA writes repeated values as references to stat metadata (ref_value).
                  {int_stat(kCorrelation, 12), ref_stat(kHloOp, kDotFusionText),
                   str_stat(kHloModule, "jit_step")}),
            event(1, 26'000'000, 1'000'000, {int_stat(kCorrelation, 14)})}),  // [27,000, 28,000) ns
      line(8, "Stream #8(MemcpyH2D)", 1000,
           {event(3, 3'000'000, 1'500'000,  // [4,000, 5,500) ns
                  {int_stat(kCorrelation, 13), str_stat(kMemcpyDetails,
                                                        "kind_src:pinned kind_dst:device size:4096 "
                                                        "dest:0 async:1")})}),
      line(9, "XLA Modules", 1000, {event(1, 0, 30'000'000)}),  // derived from the streams: left out
  };
  return gpu;
}

Plane host_plane() {
  Plane host = plane(0, "/host:CPU");
  host.stat_names = kStatNames;
  host.stats = {int_stat(kProcessId, 597)};
  host.event_names = {{1, "train"},
                      {2, "cuLaunchKernel"},
                      {3, "$model.py:12 loss"},
                      {4, "MemoryAllocation"},
                      {5, "PjitFunction(train_step)"},
                      {6, "cuMemcpyHtoDAsync"}};
  host.lines = {line(42, "python3", 0,
                     {event(1, 0, 20'000'000'000 / 1000, {int_stat(kStepNum, 0)}),  // [0, 20,000) ns
                      event(5, 100'000, 15'000'000),                                // [100, 15,100) ns
                      event(2, 1'000'000, 200'000, {int_stat(kCorrelation, 11)}),   // [1,000, 1,200) ns
                      event(6, 2'000'000, 300'000, {int_stat(kCorrelation, 13)}),
                      event(3, 5'000'000, 1'000'000), event(4, 6'000'000, 0),
                      event(1, 20'000'000, 20'000'000, {int_stat(kStepNum, 1)}),  // [20,000, 40,000) ns
                      event(2, 21'000'000, 200'000, {int_stat(kCorrelation, 12)}),
                      event(2, 22'000'000, 200'000, {int_stat(kCorrelation, 14)})})};
  return host;
}

std::string write_space(const std::string& name, const std::string& bytes) {
  return write_text(temp_dir() + "/" + name, bytes);
}

TEST(XplaneReader, DeviceStreamsAreKernelsAndCopiesWithTheirXlaOps) {
  std::string path = write_space("host0.xplane.pb", space({gpu_plane(), host_plane()}));
  LoadedRun run = load_run({path});
  ASSERT_EQ(run.workers.size(), 1u);
  const Profile& p = run.workers[0];
  EXPECT_EQ(p.worker, "host0");
  EXPECT_EQ(p.info.format, "xplane");
  EXPECT_EQ(p.info.family, DeviceFamily::Gpu);
  ASSERT_EQ(p.gpu_activities.size(), 4u);
  const GpuActivity& add = p.gpu_activities[0];
  EXPECT_EQ(p.str(add.name), "loop_add_fusion");
  EXPECT_EQ(add.kind, GpuActivityKind::Kernel);
  EXPECT_EQ(add.start, 1500);  // 1,000 ns + 500,000 ps
  EXPECT_EQ(add.end, 3500);
  EXPECT_EQ(add.stream, 7u);
  EXPECT_EQ(add.device, 0);
  EXPECT_EQ(add.correlation, 11);
  ASSERT_NE(add.kernel_info, kNone);
  EXPECT_EQ(p.kernel_info[add.kernel_info].grid[0], 40);
  EXPECT_EQ(p.kernel_info[add.kernel_info].block[0], 128);
  EXPECT_EQ(p.kernel_info[add.kernel_info].registers_per_thread, 32);
  EXPECT_EQ(p.kernel_info[add.kernel_info].shared_memory, 1024);
  const GpuActivity& copy = p.gpu_activities[1];
  EXPECT_EQ(copy.kind, GpuActivityKind::Memcpy);
  EXPECT_EQ(copy.copy_kind, CopyKind::HostToDevice);
  EXPECT_EQ(copy.bytes, 4096u);
  EXPECT_EQ(copy.start, 4000);
  EXPECT_EQ(copy.end, 5500);
  EXPECT_EQ(copy.stream, 8u);
  EXPECT_EQ(p.gpu_activities[2].start, 22000);
  EXPECT_EQ(p.gpu_activities[2].end, 26000);  // 26,000.5 ns rounded down
  // A kernel without kernel_details still has its launch record, every field unknown.
  ASSERT_NE(p.gpu_activities[2].kernel_info, kNone);
  EXPECT_EQ(p.kernel_info[p.gpu_activities[2].kernel_info].grid[0], -1);
  // Each kernel's XLA op as a range over it; the "XLA Modules" line is not read as work.
  ASSERT_EQ(p.gpu_ranges.size(), 2u);
  EXPECT_EQ(p.str(p.gpu_ranges[0].name), "add_fusion");
  EXPECT_EQ(p.gpu_ranges[0].end - p.gpu_ranges[0].start, 2000);
  EXPECT_EQ(p.str(p.gpu_ranges[1].name), "dot_fusion");
  ASSERT_EQ(p.devices.size(), 1u);
  EXPECT_EQ(p.devices[0].name, "NVIDIA H200");
  EXPECT_EQ(p.devices[0].sm_count, 132);
  EXPECT_EQ(p.devices[0].compute_major, 9);
  EXPECT_EQ(p.devices[0].total_memory_bytes, 150109880320u);
}

TEST(XplaneReader, HostPlaneIsThreadsOpsLaunchesAndSteps) {
  std::string path = write_space("host.xplane.pb", space({gpu_plane(), host_plane()}));
  Profile p = std::move(load_run({path}).workers.at(0));
  ASSERT_EQ(p.threads.size(), 1u);
  EXPECT_EQ(p.threads[0].pid, 597);
  EXPECT_EQ(p.threads[0].tid, 42);
  EXPECT_EQ(p.str(p.threads[0].name), "python3");
  // Events with a correlation id are the launch calls; the zero-length allocator marker is left out.
  ASSERT_EQ(p.runtime_calls.size(), 4u);
  EXPECT_EQ(p.str(p.runtime_calls[0].name), "cuLaunchKernel");
  EXPECT_EQ(p.runtime_calls[0].start, 1000);
  EXPECT_EQ(p.runtime_calls[0].end, 1200);
  EXPECT_EQ(p.runtime_calls[0].correlation, 11);
  // train (step 0), PjitFunction, the Python function, train (step 1), and an op per XLA op the
  // kernels ran for (add_fusion, dot_fusion: xla_ops.cpp) around its launch; this profile carries no
  // HLO, so they have no shapes or cost.
  ASSERT_EQ(p.host_events.size(), 6u);
  std::vector<std::string> names;
  for (const HostEvent& h : p.host_events) names.push_back(std::string(p.str(h.name)));
  EXPECT_EQ(names, (std::vector<std::string>{"train (step 0)", "PjitFunction(train_step)", "add_fusion",
                                             "$model.py:12 loss", "train (step 1)", "dot_fusion"}));
  EXPECT_EQ(p.host_events[0].kind, HostKind::Annotation);
  EXPECT_EQ(p.host_events[1].kind, HostKind::Op);
  EXPECT_EQ(p.host_events[2].kind, HostKind::Op);
  EXPECT_EQ(p.host_events[3].kind, HostKind::PythonFunction);
  EXPECT_EQ(p.host_events[1].parent, 0u);  // PjitFunction inside train (step 0)
  // add_fusion spans its launch [1,000, 1,200) inside PjitFunction and owns it by External id.
  EXPECT_EQ(p.host_events[2].start, 1000);
  EXPECT_EQ(p.host_events[2].end, 1200);
  EXPECT_EQ(p.host_events[2].parent, 1u);
  EXPECT_NE(p.details(2).external_id, 0);
  EXPECT_EQ(p.runtime_calls[0].external_id, p.details(2).external_id);
  EXPECT_EQ(p.details(2).input_dims, kNoString);
  EXPECT_TRUE(has_line(p.notes, "2 runs of XLA ops are host ops (0 of them XLA's own host events, 0 with"));
  EXPECT_TRUE(has_line(p.notes, "1 zero-length host events"));
  EXPECT_TRUE(has_line(p.notes, "'XLA Modules'"));

  // The steps: the events with a step number, by the rules' profiler_step_ranges; each extends to the
  // GPU work its launches started (step 1's two kernels end by 28,000 ns, inside its host range;
  // each step launched two activities, so neither is taken for one cut off by the capture's end).
  WorkerAnalysis w = analyse_profile(p, default_classification(), {});
  ASSERT_EQ(w.steps.steps.size(), 2u);
  EXPECT_EQ(w.steps.steps[0].number.value_or(-1), 0);
  EXPECT_EQ(w.steps.steps[1].number.value_or(-1), 1);
  EXPECT_EQ(w.steps.steps[0].host_start, 0);
  EXPECT_EQ(w.steps.steps[1].host_end, 40000);
}

// A run folder of XSpace files (one per host, as jax.profiler writes them): each is a worker, named
// after its file without ".xplane.pb".
TEST(XplaneReader, ARunFolderOfSpacesIsOneRun) {
  std::string dir = temp_dir() + "/jax_run";
  std::filesystem::create_directories(dir);
  std::string bytes = space({gpu_plane(), host_plane()});
  write_text(dir + "/host0.xplane.pb", bytes);
  write_text(dir + "/host1.xplane.pb", bytes);
  write_text(dir + "/notes.txt", "not a trace");
  LoadedRun run = load_run({dir});
  ASSERT_EQ(run.workers.size(), 2u);
  EXPECT_EQ(run.workers[0].worker, "host0");
  EXPECT_EQ(run.workers[1].worker, "host1");
  EXPECT_EQ(run.workers[1].gpu_activities.size(), 4u);
}

TEST(XplaneReader, NamesAnAmdGpuFromItsStatsAndReadsTpuOps) {
  Plane amd = plane(1, "/device:GPU:3");
  amd.stat_names = kStatNames;
  amd.stats = {str_stat(kVendor, "AMD"), int_stat(kCores, 304), int_stat(kCapMajor, 9),
               int_stat(kCapMinor, 4), int_stat(kMemory, 206141652992)};  // 192 GiB
  amd.event_names = {{1, "CopyDeviceToDevice"}};
  amd.lines = {
      line(10, "Stream #10(MemcpyOther)", 0,
           {event(1, 0, 1'000'000, {str_stat(kMemcpyDetails, "kind:Unknown size:655360 dest:2 async:1")})})};
  Plane tpu = plane(2, "/device:TPU:0");
  tpu.event_names = {{1, "fusion.3"}};
  tpu.lines = {line(1, "XLA Ops", 0, {event(1, 0, 5'000'000)}),
               line(2, "Steps", 0, {event(1, 0, 9'000'000)})};
  Profile p = xplane::read_space(space({amd, tpu}), "amd.xplane.pb", {});
  ASSERT_EQ(p.devices.size(), 2u);
  EXPECT_EQ(p.devices[0].id, 0);  // the TPU
  EXPECT_EQ(p.devices[1].id, 3);
  EXPECT_EQ(p.devices[1].name, "AMD GPU compute 9.4, 304 CUs, 192 GiB");  // gpu_peaks: an MI300X
  ASSERT_EQ(p.gpu_activities.size(), 2u);
  const GpuActivity* copy = p.gpu_activities[0].device == 3 ? &p.gpu_activities[0] : &p.gpu_activities[1];
  EXPECT_EQ(copy->kind, GpuActivityKind::Memcpy);
  EXPECT_EQ(copy->copy_kind, CopyKind::DeviceToDevice);  // from its name: kind:Unknown says nothing
  EXPECT_EQ(copy->bytes, 655360u);
  const GpuActivity* op = copy == &p.gpu_activities[0] ? &p.gpu_activities[1] : &p.gpu_activities[0];
  EXPECT_EQ(op->kind, GpuActivityKind::Kernel);
  EXPECT_EQ(op->end - op->start, 5000);  // the "Steps" line is not read
}

// Issue 72, item 10: an MI355X that ROCm's XLA does not name (gfx950, 256 CUs, 288 GiB): the
// engine clock (clock_rate, kHz) tells it from an MI350X, and gpu_peaks then names it.
TEST(XplaneReader, NamesAnMi355xByItsClock) {
  auto gfx950 = [](std::int64_t clock_khz) {
    Plane amd = plane(1, "/device:GPU:0");
    amd.stat_names = kStatNames;
    amd.stats = {str_stat(kVendor, "AMD"), int_stat(kCores, 256),           int_stat(kCapMajor, 9),
                 int_stat(kCapMinor, 5),   int_stat(kMemory, 309237645312), int_stat(kClockRate, clock_khz)};
    amd.event_names = {{1, "fusion"}};
    amd.lines = {line(10, "Stream #10(Compute)", 0, {event(1, 0, 1'000'000)})};
    return xplane::read_space(space({amd}), "mi355x.xplane.pb", {});
  };
  Profile p = gfx950(2'400'000);
  ASSERT_EQ(p.devices.size(), 1u);
  EXPECT_EQ(p.devices[0].name, "AMD GPU compute 9.5, 256 CUs, 288 GiB, 2400 MHz");
  CompiledClassification c(default_classification());
  const GpuPeak* peak = c.gpu_peak(p.devices[0].name);
  ASSERT_NE(peak, nullptr);
  EXPECT_EQ(peak->name, "AMD Instinct MI355X");
  EXPECT_EQ(peak->peak("bf16"), 2516.6);
  const GpuPeak* mi350x = c.gpu_peak(gfx950(2'200'000).devices[0].name);
  ASSERT_NE(mi350x, nullptr);
  EXPECT_EQ(mi350x->name, "AMD Instinct MI350X");
}

std::string refusal(const std::string& bytes, std::uint64_t max_memory = 0) {
  try {
    xplane::read_space(bytes, "bad.xplane.pb", {.max_memory = max_memory});
  } catch (const InputError& e) {
    return e.what();
  }
  return "not refused";
}

TEST(XplaneReader, BadInputIsRefusedWithItsOffset) {
  std::string good = space({gpu_plane()});
  // Cut inside the first plane: its length runs past the end of the file.
  EXPECT_NE(refusal(good.substr(0, good.size() / 2))
                .find("bad.xplane.pb: not a valid XSpace protobuf at byte 0: "
                      "field 1's length of"),
            std::string::npos)
      << refusal(good.substr(0, good.size() / 2));
  // A 2 GB length prefix.
  EXPECT_NE(
      refusal(varint(1 << 3 | 2) + varint(std::uint64_t{2} << 30) + "abc").find("2147483648 bytes runs past"),
      std::string::npos);
  // A varint cut off at the end of the file, and one longer than 10 bytes.
  EXPECT_NE(refusal(std::string("\x08\x80\x80", 3)).find("a truncated varint"), std::string::npos);
  EXPECT_NE(refusal(std::string(11, '\xff')).find("longer than"), std::string::npos);
  // A wrong wire type: the plane's name (field 2) as a varint; a group (wire type 3).
  EXPECT_NE(refusal(bytes_field(1, int_field(2, 5))).find("a plane's name (field 2) has wire type 0"),
            std::string::npos);
  EXPECT_NE(refusal(varint(1 << 3 | 3)).find("a group"), std::string::npos);
  // Nothing that ran.
  EXPECT_NE(refusal(space({plane(0, "/host:metadata")})).find("holds no profiled activity"),
            std::string::npos);
  // The memory bound: the file's bytes count.
  EXPECT_NE(refusal(space({gpu_plane(), host_plane()}), 64).find("--max-input-memory"), std::string::npos);
}

// Issue 78, item 4: empty lines, stats and events' stats, two bytes each in the file and tens of
// bytes once read, count against the limit before they are made: 500,000 of each (a 1 MB file)
// are refused at 4 MiB, where a 60 MB file of empty lines took 2.4 GB at 64 MiB before the refusal.
TEST(XplaneReader, EmptyStructuresCountBeforeTheyAreMade) {
  const std::uint64_t limit = std::uint64_t{4} << 20;
  auto repeated = [](unsigned field, int n) {
    std::string out;
    for (int i = 0; i < n; ++i) out += bytes_field(field, "");
    return out;
  };
  std::string gpu = bytes_field(2, "/device:GPU:0");
  std::string stream = int_field(1, 1) + bytes_field(2, "Stream #1");
  for (const std::string& plane_bytes :
       {gpu + repeated(3, 500'000), gpu + repeated(6, 500'000),
        gpu + bytes_field(3, stream + bytes_field(4, int_field(1, 1) + repeated(4, 500'000)))}) {
    std::string bytes = bytes_field(1, plane_bytes);
    ASSERT_LT(bytes.size(), limit);
    EXPECT_NE(refusal(bytes, limit).find("--max-input-memory"), std::string::npos) << refusal(bytes, limit);
  }
}

// A gzipped profile (profile.xplane.pb.gz) is found by what it holds and read as the plain one; its
// inflated bytes count against --max-input-memory, and a cut gzip stream is refused naming the file.
TEST(XplaneReader, AGzippedSpaceIsReadAndBounded) {
  std::string bytes = space({gpu_plane(), host_plane()});
  std::string dir = temp_dir();
  std::string gz = write_text(dir + "/profile.xplane.pb.gz", gzip_compress(bytes));
  EXPECT_EQ(detect_format(gz), "xplane");
  Profile plain = std::move(load_run({write_text(dir + "/profile.xplane.pb", bytes)}).workers.at(0));
  Profile inflated = std::move(load_run({gz}).workers.at(0));
  EXPECT_EQ(inflated.gpu_activities.size(), plain.gpu_activities.size());
  EXPECT_EQ(inflated.host_events.size(), plain.host_events.size());
  LoadOptions small;
  small.max_input_memory = bytes.size() - 1;  // the file on disk is smaller; its inflated bytes are not
  ASSERT_LT(std::filesystem::file_size(gz), bytes.size() - 1);
  try {
    load_run({gz}, small);
    ADD_FAILURE() << "not refused";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("--max-input-memory"), std::string::npos) << e.what();
  }
  std::string packed = gzip_compress(bytes);
  std::string cut = write_text(dir + "/cut.xplane.pb.gz", packed.substr(0, packed.size() / 2));
  try {
    load_run({cut});
    ADD_FAILURE() << "not refused";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("cut.xplane.pb.gz"), std::string::npos) << e.what();
  }
}

TEST(XplaneReader, KnownByContent) {
  std::string bytes = space({gpu_plane(), host_plane()});
  const Reader* reader = sniff_reader(FileHead(bytes));
  ASSERT_NE(reader, nullptr);
  EXPECT_STREQ(reader->name, "xplane");
  // Cut to its first bytes, as the sniff sees a large file.
  reader = sniff_reader(FileHead(std::string_view(bytes).substr(0, 24)));
  ASSERT_NE(reader, nullptr);
  EXPECT_STREQ(reader->name, "xplane");
  // A protobuf whose first plane has another name is not claimed.
  EXPECT_EQ(sniff_reader(FileHead(space({plane(0, "something")}))), nullptr);
  EXPECT_EQ(sniff_reader(FileHead("\x0a\x05hello")), nullptr);
}

}  // namespace
}  // namespace perfgate::testing
