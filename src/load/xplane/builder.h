// What the XSpace reader builds as it reads the planes (xplane_reader.cpp): the profile, the time
// checks every event passes, and the counts of what it left out, for the profile's notes.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>

#include "load/xplane/device_groups.h"
#include "load/xplane/hlo.h"
#include "load/xplane/xspace.h"
#include "model/profile.h"

namespace perfgate::xplane {

// The stats the reader reads, by the names XLA and the profilers give them (xplane_schema.h's
// StatType names); any other stat is ignored.
enum class StatKey : unsigned char {
  Other,
  CorrelationId,
  KernelDetails,
  MemcpyDetails,
  MemsetDetails,
  HloOp,
  HloModule,
  StepNum,
  OccupancyPct,
  ProgramId,
  Flops,             // XLA's own count of an op's FLOPs, where the profiler records it
  ModelFlops,        // of them, the model's (without rematerialisation and padding): TPU op events
  BytesAccessed,     // and of its bytes
  GroupId,           // the step a device "Steps" event marks (XProf's group id)
  HloCategory,       // a TPU op's category ("convolution fusion", "loop fusion", ...)
  TfOp,              // the framework op an XLA op came from ("model/dense/MatMul")
  ShapeWithLayout,   // a TPU op's result shape with its layout and memory space ("...S(5)}")
  DeviceDurationPs,  // a TPU op's time on the device's own clock
  // TraceMe context links (tsl/profiler/lib/context_types.h): a producer's type and id ("_pt", "_p")
  // and a consumer's ("_ct", "_c"); XProf joins the events of one launch across threads by them.
  ProducerType,
  ProducerId,
  ConsumerType,
  ConsumerId,
};
StatKey stat_key(std::string_view name);

// A plane's stat metadata ids as the keys above.
class StatKeys {
 public:
  explicit StatKeys(const Plane& plane);
  StatKey operator()(const Stat& s) const {
    auto it = keys_.find(s.metadata_id);
    return it == keys_.end() ? StatKey::Other : it->second;
  }

 private:
  std::unordered_map<std::int64_t, StatKey> keys_;
};

// An event's span in nanoseconds: its line's timestamp_ns plus its offset_ps, lasting duration_ps;
// false where a time is negative, a sum overflows, or the span is past the model's bounds.
bool event_span(const Line& line, const Event& e, TimeNs& start, TimeNs& end);

// A step on one device: the span of its "Steps" line's events of the step's number.
struct StepSpan {
  TimeNs start = 0;
  TimeNs end = 0;
};

class Builder {
 public:
  Builder(const std::string& path, std::uint64_t file_bytes, std::uint64_t max_memory);
  // `sparse_core`: the SparseCore's number where the plane is one of a TPU's SparseCores
  // ("/device:TPU:0 SparseCore 1"), else -1.
  void device_plane(const Plane& plane, std::int32_t device, bool tpu, std::int32_t sparse_core = -1);
  void host_plane(const Plane& plane);
  // `file`: the whole XSpace, which the HLO modules' bytes are views into.
  void metadata_plane(const Plane& plane, std::string_view file);
  Profile finish();
  // The groups of devices that step on their own, after finish (steps.cpp): empty where the devices
  // step together or the host marks the steps.
  const std::vector<DeviceGroup>& step_groups() const { return step_groups_; }
  // Throws InputMemoryError when what the profile holds, the plane being read (`plane_bytes`) and
  // `extra` bytes about to be made pass the limit.
  void check_memory(std::uint64_t extra = 0);
  // The structures of the plane whose events are being read (xspace.h, Plane::structure_bytes).
  void set_plane_bytes(std::uint64_t bytes) { plane_bytes_ = bytes; }

 private:
  // The event's span in nanoseconds; false (and counted) where it is out of the model's range.
  bool span(const Line& line, const Event& e, TimeNs& start, TimeNs& end);
  // The runs of each HLO instruction's launches as host ops (xla_ops.cpp).
  void xla_ops();
  // A TPU "XLA Ops" event's counts, category and framework op (tpu_ops.cpp), for the activity `a`
  // about to be added. False where the event is no activity of its own: a copy-start, whose
  // transfer is its copy-done's activity (tpu_copies.cpp).
  bool tpu_op(const Plane& plane, const EventMetadata* meta, const Event& e, const StatKeys& keys,
              GpuActivity& a);
  // A TPU's asynchronous copy (copy-start, copy-done): false for a copy-start, kept until its
  // copy-done; a copy-done becomes the transfer from its copy-start to its end, with its bytes and
  // direction (tpu_copies.cpp).
  bool tpu_copy(const EventMetadata* meta, std::string_view category, std::string_view shape, double bytes,
                GpuActivity& a);
  // A TPU plane's "XLA Modules" lines: each run of a program, for its ops' module (tpu_ops.cpp).
  void tpu_module_runs(const Plane& plane, const StatKeys& keys, std::int32_t device);
  void tpu_module_run_line(const Plane& plane, const Line& line, const StatKeys& keys, std::int32_t device,
                           Event& e);
  // A device plane that ran something: its device's description (a SparseCore's kept for a TPU
  // whose TensorCore plane ran nothing).
  void device_ran(const Plane& plane, std::int32_t device, bool tpu, bool sparse_core);
  // The host calls that ran compiled programs as the launches of the TPU ops, and each TPU op as an
  // op of its own inside its call (tpu_launches.cpp).
  void tpu_programs();
  // Each program run's launching Execute call by the TraceMe context links (tpu_launches.cpp):
  // the call's index in `calls` (host events by start) per entry of module_launches_, kNone where
  // the links do not reach one.
  std::vector<std::uint32_t> linked_launches(const std::vector<std::uint32_t>& calls) const;
  // A program a call launched: its device, its correlation id (0: the call launched none) and its
  // op that ended last.
  struct TpuProgram {
    TimeNs device_end = 0;
    std::int32_t device = 0;
    std::int64_t correlation = 0;
    std::uint32_t last = kNone;
  };
  // The calls that launched programs as runtime calls, with what each waited for, and the callers
  // that waited for them (tpu_launches.cpp); `next`: the last correlation id in use.
  void tpu_waits(const std::vector<std::uint32_t>& calls, const std::vector<TpuProgram>& programs,
                 std::int64_t& next);
  // A device's "Steps" line: each event a step, by its group id (steps.cpp).
  void device_steps(const Plane& plane, const Line& line, const StatKeys& keys, std::int32_t device);
  // The devices' steps as step ranges, where no host event has a step number (steps.cpp): a
  // thread of ranges for each group of devices that step together.
  void steps_from_devices();
  // The kernels of command buffers given back to their instructions (command_buffers.cpp).
  void command_buffer_ops();
  // An XLA op's details under a new External id, with its instruction's operands (kNone: not in
  // a module the profile holds), and the op in the model's XLA ops with its instruction and XLA's
  // own counts (-1: none); returns the details' index in the profile's op details.
  std::uint32_t xla_op_details(std::uint32_t instruction, double flops, double bytes);

  Profile p_;
  std::string path_;
  std::uint64_t file_bytes_;
  std::uint64_t max_memory_;
  std::uint64_t plane_bytes_ = 0;
  StructureCheck event_check_ = [this](std::uint64_t bytes) { check_memory(bytes); };
  TimeNs durations_ = 0;  // of the events kept: below kMaxTimeNs (profile.h)
  std::uint64_t events_ = 0;
  std::uint64_t bad_times_ = 0;
  std::uint64_t aggregated_ = 0;
  std::uint64_t instants_ = 0;
  std::uint64_t derived_lines_ = 0;
  std::string first_derived_line_;

  // What each XLA kernel ran for, by its correlation id: the HLO module, instruction and kernel, and
  // XLA's own counts where the kernel carries them (-1: none).
  struct XlaLaunch {
    StringId module = kNoString;
    StringId op = kNoString;
    StringId kernel = kNoString;
    std::int64_t program = -1;
    double flops = -1;
    double bytes = -1;
  };
  std::unordered_map<std::int64_t, XlaLaunch> xla_launches_;
  // Every activity an XLA op ran, with its op as the profile names it (command_buffers.cpp).
  struct XlaActivity {
    std::uint32_t activity = 0;  // index into the profile's GPU activities, as read
    StringId module = kNoString;
    StringId op = kNoString;
    std::int64_t program = -1;
  };
  std::vector<XlaActivity> xla_activities_;
  std::int64_t next_external_id_ = 1;  // XSpace runtime calls have no External id of their own
  HloIndex hlo_{p_.strings};
  // Each instruction's operands as an op's Input Dims and Input type, interned.
  std::unordered_map<std::uint32_t, std::pair<StringId, StringId>> operand_text_;
  // Each TPU op as read, by its activity (tpu_ops.cpp); counts -1 where the profile has none.
  struct TpuOp {
    std::uint32_t activity = 0;
    StringId name = kNoString;  // the op of the op tables: its framework op (tf_op), else the instruction
    // A copy's own time on the TPU core (its copy-done's, XProf's op time), where its activity spans
    // the transfer from its copy-start; -1 for every other op, whose activity is its own time.
    TimeNs own_ns = -1;
    double flops = -1;
    double model_flops = -1;
    double bytes = -1;
    bool matrix = false;       // its hlo_category is matrix-unit work
    bool categorised = false;  // it has an hlo_category
    bool copy = false;         // a transfer (copy-done): launched by its program, not costed in it
    // The module that ran it, where the op or its plane's "XLA Modules" line says: by program id
    // (-1: none stated) or name.
    std::int64_t program = -1;
    StringId module = kNoString;
  };
  std::vector<TpuOp> tpu_ops_;
  // A TPU op's details and its XLA op with XLA's own counts of it, or its module's instruction
  // (counted in `from_module`; in `uncosted` where neither is known).
  std::uint32_t tpu_op_details(const TpuOp& op, const GpuActivity& g, std::uint64_t& from_module,
                               std::uint64_t& uncosted);
  // The plane being read's copy-starts not yet done, by instruction name: their start.
  std::unordered_map<std::string_view, TimeNs> copy_starts_;
  // Each device's transfer lines: the end of the last transfer on each.
  std::unordered_map<std::int32_t, std::vector<TimeNs>> transfer_lines_;
  // The plane being read's program runs ("XLA Modules"), by start.
  struct ModuleRun {
    TimeNs start = 0;
    TimeNs end = 0;
    std::int64_t program = -1;
    StringId module = kNoString;
  };
  std::vector<ModuleRun> module_runs_;
  // A TraceMe context link's end: a host event that produced or consumed a context (its type and
  // id), on its thread over its span (tpu_launches.cpp).
  struct ContextEnd {
    std::int64_t type = 0;
    std::int64_t id = 0;
    std::uint32_t thread = 0;
    TimeNs start = 0;
    TimeNs end = 0;
  };
  std::vector<ContextEnd> producers_;  // the host plane's
  std::vector<ContextEnd> consumers_;
  // Every TPU plane's program runs that consumed a launch context (their `_c`), on their device
  // (`thread` holds the device).
  std::vector<ContextEnd> module_launches_;
  // SparseCore planes with ops, their ops, and each TPU's description from them, for a TPU whose
  // TensorCore plane has no ops of its own.
  std::uint64_t sparse_planes_ = 0;
  std::uint64_t sparse_ops_ = 0;
  std::map<std::int32_t, DeviceInfo> sparse_devices_;
  // Each device's "Steps" line: by step number, the span of its events of that number (steps.cpp).
  std::map<std::int32_t, std::map<std::int64_t, StepSpan>> device_steps_;
  // The devices that step together, each group with its step ranges' thread (steps.cpp): one group
  // where every device's steps overlap the others' of the same number.
  std::vector<DeviceGroup> step_groups_;
  std::set<std::int32_t> tpu_devices_;  // the devices whose planes are TPUs'
  bool host_steps_ = false;             // a host event has a step number
  std::uint64_t xla_ops_ = 0;
  std::uint64_t xla_native_ = 0;  // of them, XLA's own host events
  std::uint64_t xla_costed_ = 0;
};

}  // namespace perfgate::xplane
