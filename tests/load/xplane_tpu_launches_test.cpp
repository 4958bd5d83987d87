// Issue 91, item 1: which host call launched each TPU program and what the calls waited for, on
// hand-built spaces shaped as the shared v6e XSpace is, whose answers are worked out here. The host
// queues programs ahead of the device (a program starts long after its call returned), so the call
// that launched a program is the one XProf's TraceMe context links name, not the last call before
// it; a call whose "Acquire semaphore" waited for an earlier program, and the caller around it, wait
// on the device; and a TPU runs its ops in order, so that its critical path follows a copy the core
// waited for from the op before it to the op after it.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "analyse/worker_analysis.h"
#include "load/xplane/xplane_reader.h"
#include "support/helpers.h"
#include "support/xspace_builder.h"

namespace perfgate::testing {
namespace {

using namespace pb;

constexpr std::int64_t us(std::int64_t v) {
  return v * 1'000'000;  // picoseconds
}

enum : std::int64_t { kProducerType = 1, kProducerId, kConsumerType, kConsumerId, kCategory, kDeviceType };
const std::vector<std::pair<std::int64_t, std::string>> kStats = {
    {kProducerType, "_pt"}, {kProducerId, "_p"},         {kConsumerType, "_ct"},
    {kConsumerId, "_c"},    {kCategory, "hlo_category"}, {kDeviceType, "device_type_string"}};
constexpr std::int64_t kTfrtTpuRuntime = 7, kTpuLaunch = 12;  // tsl/profiler/lib/context_types.h

// The host: a device thread runs C1 [0, 50) and C2 [50, 100) us, which return at once, then C3
// [100, 1,102) us, whose "Acquire semaphore" [100, 1,098) waits; each ends by enqueueing its program
// (tpu::System::Execute, producing a runtime context) that a queue thread hands to the device
// (IssueSequencedEvent consuming it, DoEnqueueProgram producing a launch context). The caller's
// Execute on the main thread [95, 1,103) us is around C3 and launches nothing itself.
Plane host() {
  Plane h = plane(0, "/host:CPU");
  h.stat_names = kStats;
  h.event_names = {{1, "TfrtTpuLoadedExecutable::Execute"},
                   {2, "Scheduled TfrtTpuLoadedExecutable::Execute"},
                   {3, "Acquire semaphore"},
                   {4, "tpu::System::Execute"},
                   {5, "tpu::System::Execute=>IssueSequencedEvent"},
                   {6, "DoEnqueueProgram"}};
  auto produce = [](std::int64_t type, std::int64_t id) {
    return std::vector<std::string>{int_stat(kProducerType, type), int_stat(kProducerId, id)};
  };
  auto consume = [](std::int64_t type, std::int64_t id) {
    return std::vector<std::string>{int_stat(kConsumerType, type), int_stat(kConsumerId, id)};
  };
  h.lines = {line(10, "main", 0, {event(1, us(95), us(1008))}),
             line(11, "py_xla_execute", 0,
                  {event(2, 0, us(50)), event(4, us(40), us(5), produce(kTfrtTpuRuntime, 101)),
                   event(2, us(50), us(50)), event(4, us(90), us(5), produce(kTfrtTpuRuntime, 102)),
                   event(2, us(100), us(1002)), event(3, us(100), us(998)),
                   event(4, us(1099), us(1), produce(kTfrtTpuRuntime, 103))}),
             line(12, "tfrt-non-blocking-queue", 0,
                  {event(5, us(46), us(3), consume(kTfrtTpuRuntime, 101)),
                   event(6, us(47), us(1), produce(kTpuLaunch, 201)),
                   event(5, us(96), us(3), consume(kTfrtTpuRuntime, 102)),
                   event(6, us(97), us(1), produce(kTpuLaunch, 202)),
                   event(5, us(1101), us(3), consume(kTfrtTpuRuntime, 103)),
                   event(6, us(1102), us(1), produce(kTpuLaunch, 203))})};
  return h;
}

// TPU:0 runs the three programs one after another, each a fusion: R1 [100, 1,100), R2
// [1,100, 2,100) and R3 [2,100, 3,100) us, each run consuming its launch context.
Plane device() {
  Plane t = plane(3, "/device:TPU:0");
  t.stat_names = kStats;
  t.stats = {str_stat(kDeviceType, "TPU v6 lite")};
  t.event_names = {{1, "%fusion.1 = f32[1024]{0} fusion(p0), kind=kLoop"}, {2, "jit_f(1)"}};
  t.event_display_names = {{1, "fusion.1"}};
  t.event_stats = {{1, {str_stat(kCategory, "loop fusion")}}};
  auto launched = [](std::int64_t id) {
    return std::vector<std::string>{int_stat(kConsumerType, kTpuLaunch), int_stat(kConsumerId, id)};
  };
  t.lines = {line(1, "XLA Ops", 0,
                  {event(1, us(100), us(1000)), event(1, us(1100), us(1000)), event(1, us(2100), us(1000))}),
             line(2, "XLA Modules", 0,
                  {event(2, us(100), us(1000), launched(201)), event(2, us(1100), us(1000), launched(202)),
                   event(2, us(2100), us(1000), launched(203))})};
  return t;
}

const RuntimeCall* call_at(const Profile& p, TimeNs start, std::string_view name) {
  auto it = std::find_if(p.runtime_calls.begin(), p.runtime_calls.end(),
                         [&](const RuntimeCall& c) { return c.start == start && p.str(c.name) == name; });
  return it == p.runtime_calls.end() ? nullptr : &*it;
}

TEST(XplaneTpuLaunches, TheContextLinksNameTheCallThatLaunchedEachProgram) {
  Profile p = xplane::read_space(space({device(), host()}), "tpu.xplane.pb", {});
  const RuntimeCall* c1 = call_at(p, 0, "Scheduled TfrtTpuLoadedExecutable::Execute");
  const RuntimeCall* c2 = call_at(p, 50'000, "Scheduled TfrtTpuLoadedExecutable::Execute");
  const RuntimeCall* c3 = call_at(p, 100'000, "Scheduled TfrtTpuLoadedExecutable::Execute");
  ASSERT_TRUE(c1 && c2 && c3);
  ASSERT_EQ(p.gpu_activities.size(), 3u);
  // R1 starts at 100 us, when C3 had started: the last call before it is not what launched it.
  EXPECT_EQ(p.gpu_activities[0].correlation, c1->correlation);
  EXPECT_EQ(p.gpu_activities[1].correlation, c2->correlation);
  EXPECT_EQ(p.gpu_activities[2].correlation, c3->correlation);
}

TEST(XplaneTpuLaunches, ACallWaitsForTheProgramThatEndedWhileItWaitedAndSoDoesItsCaller) {
  Profile p = xplane::read_space(space({device(), host()}), "tpu.xplane.pb", {});
  const RuntimeCall* c2 = call_at(p, 50'000, "Scheduled TfrtTpuLoadedExecutable::Execute");
  const RuntimeCall* c3 = call_at(p, 100'000, "Scheduled TfrtTpuLoadedExecutable::Execute");
  const RuntimeCall* caller = call_at(p, 95'000, "TfrtTpuLoadedExecutable::Execute");
  ASSERT_TRUE(c2 && c3 && caller);
  // C1 and C2 returned before any program ended: no wait. R1 ended at 1,100 us, inside C3 [100,
  // 1,102): C3 waited for it, as an event recorded after R1's last op (the call launched next on
  // the device, C2, names it) on that op's stream; the caller waited for the same.
  ASSERT_EQ(p.gpu_syncs.size(), 2u);
  for (const GpuSync& s : p.gpu_syncs) {
    EXPECT_EQ(s.kind, GpuSyncKind::Event);
    EXPECT_EQ(s.event_record_correlation, c2->correlation);
    EXPECT_EQ(s.wait_on_stream, static_cast<std::int32_t>(p.gpu_activities[0].stream));
  }
  EXPECT_TRUE(std::any_of(p.gpu_syncs.begin(), p.gpu_syncs.end(),
                          [&](const GpuSync& s) { return s.correlation == c3->correlation; }));
  EXPECT_TRUE(std::any_of(p.gpu_syncs.begin(), p.gpu_syncs.end(),
                          [&](const GpuSync& s) { return s.correlation == caller->correlation; }));
  // On the path the waits are the device's: the three programs' 3,000 us, and no more host time than
  // the launches before R1 (100 us); the caller's 1,008 us and C3's semaphore are not host work.
  WorkerAnalysis w = analyse_profile(p, default_classification(), {});
  ASSERT_EQ(w.critical_path.steps.size(), 1u);
  const CriticalPathStep& step = w.critical_path.steps[0];
  EXPECT_EQ(step.by[static_cast<std::size_t>(PathBound::GpuCompute)], 3'000'000);
  EXPECT_LE(step.by[static_cast<std::size_t>(PathBound::Cpu)], 100'000);
}

// One program whose core runs fusion.1 [0, 1,000) us, then waits [2,900, 3,000) us in copy-done for
// a transfer its copy-start began at 1,000 us, then runs fusion.2 [3,000, 4,000) us; the call
// [0, 4,200) us returns after them. The core's line has a 2,000 us gap between the fusions, past the
// 1,500 us kernel gap: only the device's order joins them, through the transfer.
TEST(XplaneTpuLaunches, ATpusPathFollowsItsOpsInOrderThroughTheTransferItWaitedFor) {
  Plane t = plane(3, "/device:TPU:0");
  enum : std::int64_t { kShape = 20, kBytes };
  t.stat_names = kStats;
  t.stat_names.insert(t.stat_names.end(), {{kShape, "shape_with_layout"}, {kBytes, "bytes_accessed"}});
  t.stats = {str_stat(kDeviceType, "TPU v6 lite")};
  const std::string device_shape = "f32[1024]{0:T(256)}", host_shape = "f32[1024]{0:T(256)S(5)}";
  const std::string tuple = "(" + device_shape + ", " + host_shape + ", u32[]{:S(2)})";
  t.event_names = {{1, "%fusion.1 = f32[1024]{0} fusion(p0), kind=kLoop"},
                   {2, "%copy-start = " + tuple + " copy-start(" + host_shape + " %p1)"},
                   {3, "%copy-done = " + device_shape + " copy-done(" + tuple + " %copy-start)"},
                   {4, "%fusion.2 = f32[1024]{0} fusion(fusion.1, copy-done), kind=kLoop"}};
  t.event_display_names = {{1, "fusion.1"}, {2, "copy-start"}, {3, "copy-done"}, {4, "fusion.2"}};
  t.event_stats = {
      {1, {str_stat(kCategory, "loop fusion")}},
      {2, {str_stat(kCategory, "copy-start"), str_stat(kShape, tuple), int_stat(kBytes, 4096)}},
      {3, {str_stat(kCategory, "copy-done"), str_stat(kShape, device_shape), int_stat(kBytes, 4096)}},
      {4, {str_stat(kCategory, "loop fusion")}}};
  t.lines = {line(1, "XLA Ops", 0,
                  {event(1, 0, us(1000)), event(2, us(1000), 1000), event(3, us(2900), us(100)),
                   event(4, us(3000), us(1000))})};
  Plane h = plane(0, "/host:CPU");
  h.event_names = {{1, "TfrtTpuLoadedExecutable::Execute"}};
  h.lines = {line(10, "main", 0, {event(1, 0, us(4200))})};
  Profile p = xplane::read_space(space({t, h}), "tpu.xplane.pb", {});
  WorkerAnalysis w = analyse_profile(p, default_classification(), {});
  ASSERT_EQ(w.critical_path.steps.size(), 1u);
  const CriticalPathStep& step = w.critical_path.steps[0];
  // fusion.1 (1,000 us), the transfer [1,000, 3,000) (2,000 us) and fusion.2 (1,000 us): the whole
  // 4,000 us on the device, none of it a launch delay.
  EXPECT_EQ(step.by[static_cast<std::size_t>(PathBound::GpuCompute)], 4'000'000);
  EXPECT_EQ(step.by[static_cast<std::size_t>(PathBound::LaunchOverhead)], 0);
}

}  // namespace
}  // namespace perfgate::testing
