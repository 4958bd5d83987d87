// A TPU's XLA ops in the device's own terms (docs/formats.md, "XSpace profile"; docs/metrics.md,
// "XLA ops"). Each "XLA Ops" event is an op the TPU ran: named by its event metadata's display name
// (the HLO instruction, `fusion.12`; the metadata's name is its long form), with XLA's own counts
// and facts as XProf reads them (op_metrics_db_utils.cc, SetOpMetadataFromHloEventMetadata): the
// metadata's stats `flops`, `model_flops`, `bytes_accessed`, `hlo_category`, `tf_op`, and the
// event's own stats of the same names over them. The host call that ran the compiled program
// (`TfrtTpuLoadedExecutable::Execute`, `PjRt…LoadedExecutable::Execute`) becomes a runtime call that
// launched its ops, and what it waited for a synchronisation (tpu_launches.cpp). Each op the TPU ran
// is an op of the op tables, as
// XProf's op metrics count it (xplane_to_op_metrics_db.cc): named by its framework op (`tf_op`) or
// else its instruction, with its own counts and time (a copy's: its copy-done's, the time the core
// waited for the transfer), an instant inside the call on its thread whose External id the op's
// activity carries, as the ops of a captured graph are placed in its launch (attribution.h): the
// host spends no time of its own on it, and the call's op holds its ops' time as its callees'.
// An op whose events carry neither `flops` nor `bytes_accessed` takes its costs from the HLO
// module that ran it, as XProf's EnterOpMetadataFromHloModuleMap does: the module by the op's
// `program_id` (or `hlo_module`) stat, else by the "XLA Modules" run around it, and the
// instruction by the op's name.
#include <algorithm>
#include <charconv>
#include <cmath>

#include "load/xplane/builder.h"

namespace perfgate::xplane {
namespace {

// XProf's high-FLOPs categories, the ops that run on the matrix units (MXU): profile_time_breakdown.h,
// HighFlopsComputeTimePs (convolution and its dilated forms, convolution fusion, output fusion; a TPU
// lowers a dot as a convolution).
bool matrix_category(std::string_view category) {
  return category == "convolution" || category == "convolution base-dilated" ||
         category == "convolution window-dilated" || category == "convolution fusion" ||
         category == "output fusion";
}

// XLA's asynchronous copy ops (copy-start, copy-done): HloOpcode kCopyStart, kCopyDone.
bool is_copy_category(std::string_view category) {
  return category == "copy-start" || category == "copy-done";
}

// An "XLA Modules" event's name, "jit_step(1234)": the module's name and program id; the whole
// name and -1 where it has no such suffix.
std::pair<std::string_view, std::int64_t> module_and_program(std::string_view name) {
  std::size_t open = name.rfind('(');
  if (open == std::string_view::npos || !name.ends_with(')')) return {name, -1};
  std::string_view digits = name.substr(open + 1, name.size() - open - 2);
  std::int64_t id = -1;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), id);
  if (ec != std::errc() || end != digits.data() + digits.size() || id < 0) return {name, -1};
  return {name.substr(0, open), id};
}

}  // namespace

bool Builder::tpu_op(const Plane& plane, const EventMetadata* meta, const Event& e, const StatKeys& keys,
                     GpuActivity& a) {
  TpuOp op;
  op.activity = static_cast<std::uint32_t>(p_.gpu_activities.size());
  std::string_view category, tf_op, module, shape;
  double device_ps = -1;
  // Counts: whole and not negative, else not read.
  auto count = [](const Stat& s, double& out) {
    std::int64_t v = 0;
    if (s.integer(v) && v >= 0) out = static_cast<double>(v);
  };
  auto read = [&](const std::vector<Stat>& stats) {
    for (const Stat& s : stats) {
      StatKey key = keys(s);
      if (key == StatKey::Flops) count(s, op.flops);
      if (key == StatKey::ModelFlops) count(s, op.model_flops);
      if (key == StatKey::BytesAccessed) count(s, op.bytes);
      if (key == StatKey::HloCategory) category = plane.text(s);
      if (key == StatKey::TfOp) tf_op = plane.text(s);
      if (key == StatKey::ProgramId && !s.integer(op.program)) op.program = -1;
      if (key == StatKey::HloModule) module = plane.text(s);
      if (key == StatKey::ShapeWithLayout) shape = plane.text(s);
      if (key == StatKey::DeviceDurationPs) count(s, device_ps);
    }
  };
  if (meta) read(meta->stats);
  read(e.stats);
  bool copy = is_copy_category(category);
  // A copy-done's own span on the core, before its activity becomes the transfer.
  TimeNs own_start = a.start;
  TimeNs own_end = device_ps >= 0 && device_ps / 1000 < static_cast<double>(kMaxTimeNs - a.start)
                       ? a.start + static_cast<TimeNs>(std::llround(device_ps / 1000))
                       : a.end;
  if (copy && !tpu_copy(meta, category, shape, op.bytes, a)) return false;
  if (copy) op.own_ns = own_end - own_start;
  // An op lasts what the device measured of it (device_duration_ps), from where the host's clock
  // places it, as XProf's op metrics time it: on the shared v6e profile 58 fusions of about 8 ms each
  // are placed with no length, and 143 ops' lengths differ from the device's.
  if (!copy) a.end = own_end;
  if (op.program < 0 && module.empty()) {
    // The program run around the op on its plane's "XLA Modules" line.
    auto run = std::upper_bound(module_runs_.begin(), module_runs_.end(), a.start,
                                [](TimeNs t, const ModuleRun& r) { return t < r.start; });
    if (run != module_runs_.begin() && std::prev(run)->end >= a.end) {
      op.program = std::prev(run)->program;
      op.module = std::prev(run)->module;
    }
  } else if (!module.empty()) {
    op.module = p_.strings.intern(module);
  }
  op.matrix = matrix_category(category);
  op.categorised = !category.empty();
  op.copy = copy;
  if (!category.empty() && !copy) a.units = op.matrix ? ComputeUnits::Matrix : ComputeUnits::Vector;
  // The framework op it came from where the profile says (`tf_op`, "jit(f)/jit(main)/add:", less
  // what follows its last ':', the op's type, as XProf's top ops group it), else the instruction.
  std::string_view framework = tf_op.substr(0, std::min(tf_op.rfind(':'), tf_op.size()));
  op.name = framework.empty() ? a.name : p_.strings.intern(framework);
  tpu_ops_.push_back(op);
  // That op as a range over the op's own time on its line: the regions table's time per op.
  p_.gpu_ranges.push_back({.start = own_start,
                           .end = copy ? own_end : a.end,
                           .name = op.name,
                           .device = a.device,
                           .stream = a.stream});
  return true;
}

void Builder::tpu_module_runs(const Plane& plane, const StatKeys& keys, std::int32_t device) {
  Event e;
  for (const Line& line : plane.lines) {
    if (line.name == "XLA Modules") tpu_module_run_line(plane, line, keys, device, e);
  }
  std::sort(module_runs_.begin(), module_runs_.end(),
            [](const ModuleRun& x, const ModuleRun& y) { return x.start < y.start; });
}

void Builder::tpu_module_run_line(const Plane& plane, const Line& line, const StatKeys& keys,
                                  std::int32_t device, Event& e) {
  for (const wire::Field& field : line.events) {
    read_event(field, e, &event_check_);
    ModuleRun run;
    if (e.aggregated || !event_span(line, e, run.start, run.end)) continue;
    const EventMetadata* meta = plane.event(e.metadata_id);
    std::string_view name =
        meta ? (meta->name.empty() ? meta->display_name : meta->name) : std::string_view();
    auto [module, program] = module_and_program(name);
    run.program = program;
    ContextEnd launch{.thread = static_cast<std::uint32_t>(device), .start = run.start, .end = run.end};
    bool launched = false;
    for (const Stat& s : e.stats) {
      StatKey key = keys(s);
      if (key == StatKey::ProgramId && !s.integer(run.program)) run.program = -1;
      if (key == StatKey::ConsumerType) s.integer(launch.type);
      if (key == StatKey::ConsumerId) launched = s.integer(launch.id);
    }
    run.module = p_.strings.intern(module);
    module_runs_.push_back(run);
    if (launched) module_launches_.push_back(launch);
  }
}

std::uint32_t Builder::tpu_op_details(const TpuOp& op, const GpuActivity& g, std::uint64_t& from_module,
                                      std::uint64_t& uncosted) {
  // A transfer between the host's memory and the device's crosses the host link: its bytes are not
  // the device's memory traffic (no HBM roofline, no MBU), and it has the FLOPs XLA states (none).
  if (op.copy) {
    std::uint32_t details = xla_op_details(kNone, op.flops, -1);
    hlo_.model().ops.back().own_ns = op.own_ns;
    return details;
  }
  if (op.flops < 0 && op.bytes < 0) {
    // No cost stats: the instruction of the module that ran it, whose cost the analysis works out.
    std::uint32_t instruction = op.program >= 0 || op.module != kNoString
                                    ? hlo_.instruction(p_.str(op.module), op.program, p_.str(g.name))
                                    : kNone;
    ++(instruction != kNone ? from_module : uncosted);
    std::uint32_t details = xla_op_details(instruction, -1, -1);
    if (instruction == kNone) return details;
    // Its cost as a program op's (xla_cost.cpp): all its FLOPs count in MFU, and its category, where
    // it has one, says whether they are matrix-unit work.
    XlaHlo& model = hlo_.model();
    model.ops.back().instruction = kNone;
    model.ops.back().program_ops = {static_cast<std::uint32_t>(model.program_ops.size()), 1};
    model.program_ops.push_back(
        {.instruction = instruction, .matrix = static_cast<std::int8_t>(op.categorised ? op.matrix : -1)});
    return details;
  }
  std::uint32_t details = xla_op_details(kNone, op.flops, op.bytes);
  double model_flops = op.model_flops >= 0 ? op.model_flops : op.flops;
  XlaOp& x = hlo_.model().ops.back();
  x.model_flops = model_flops;
  if (op.matrix) x.matrix_flops = model_flops;
  return details;
}

}  // namespace perfgate::xplane
