// XLA's command buffers: the kernels of a module's instructions recorded into a CUDA/HIP graph and
// replayed by one launch (on by default in recent JAX: --xla_gpu_enable_command_buffer). The
// profile names every kernel of such a launch after the thunk that ran it ("command_buffer_1"), not
// after its HLO instruction, so without this step the ops tables hold one op for the whole step and
// the roofline, MFU and the Tensor Core judgement know no instruction. Each kernel is given back to
// its instruction where the profile shows which (docs/formats.md, "Command buffers"):
// - by name: XLA names the kernel of a fusion after the instruction, its name sanitised as
//   llvm_ir::SanitizeFunctionName does (fusion.93 → fusion_93);
// - by place: a kernel named by a library (cuBLAS's nvjet_*, cuDNN), and its memsets, belongs to the
//   one instruction of the same computation that lies between the instructions of the named kernels
//   before and after it and launched no named kernel itself; where two or more could have, the
//   kernel stays with the command buffer (a graph may run its nodes in another order than the
//   schedule, so nothing nearer is certain).
// Each instruction that ran becomes an op inside its launch's span, as a captured graph's ops are
// placed in a replay (analyse/ops/graph_capture.cpp): the kernels name it by External id and the
// attribution follows (graph_replay.cpp). Its host time is a slice of the launch, not a measurement.
#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "load/xplane/builder.h"

namespace perfgate::xplane {
namespace {

// A launch's kernels, in the order they ran, and what each was given to.
struct Replayed {
  std::uint32_t activity = 0;
  std::uint32_t instruction = kNone;  // index into HloSchedule::instructions; kNone: not known
};

// The instruction each kernel ran for: first by name, then by place (see the file's comment). Linear
// in kernels and instructions: the schedule lists each computation's instructions in order, so the
// candidates between two bounds are a stretch of it, counted by a prefix sum.
std::uint64_t attribute(const HloSchedule& schedule, const Profile& p, std::vector<Replayed>& kernels,
                        std::uint64_t& by_place) {
  const std::size_t n = schedule.instructions.size();
  std::vector<bool> named(n, false);
  std::uint64_t by_name = 0;
  for (Replayed& k : kernels) {
    const GpuActivity& a = p.gpu_activities[k.activity];
    if (a.kind != GpuActivityKind::Kernel) continue;
    auto it = schedule.by_kernel_name.find(std::string(p.str(a.name)));
    if (it == schedule.by_kernel_name.end() || it->second == kNoInstruction) continue;  // none, or two
    k.instruction = it->second;
    named[it->second] = true;
    ++by_name;
  }
  // unnamed[k]: instructions before index k that ran no named kernel.
  std::vector<std::uint32_t> unnamed(n + 1, 0);
  for (std::size_t k = 0; k < n; ++k) unnamed[k + 1] = unnamed[k] + (named[k] ? 0 : 1);
  // The instruction of the named kernel before and after each kernel.
  std::vector<std::uint32_t> before(kernels.size(), kNone), after(kernels.size(), kNone);
  std::uint32_t last = kNone;
  for (std::size_t i = 0; i < kernels.size(); ++i) {
    before[i] = last;
    if (kernels[i].instruction != kNone) last = kernels[i].instruction;
  }
  last = kNone;
  for (std::size_t i = kernels.size(); i-- > 0;) {
    after[i] = last;
    if (kernels[i].instruction != kNone) last = kernels[i].instruction;
  }
  for (std::size_t i = 0; i < kernels.size(); ++i) {
    if (kernels[i].instruction != kNone || before[i] == kNone || after[i] == kNone)
      continue;  // an end: unbounded
    if (schedule.instructions[before[i]].computation != schedule.instructions[after[i]].computation) continue;
    std::uint32_t low = std::min(before[i], after[i]), high = std::max(before[i], after[i]);
    if (high - low < 2 || unnamed[high] - unnamed[low + 1] != 1) continue;  // none, or two or more
    // The one: the first index in (low, high) past which the count rises.
    auto rise = std::upper_bound(unnamed.begin() + low + 2, unnamed.begin() + high + 1, unnamed[low + 1]);
    kernels[i].instruction = static_cast<std::uint32_t>(rise - unnamed.begin()) - 1;
    ++by_place;
  }
  return by_name;
}

// Strictly inside the launch where it lasts over 2 ns, so that no op encloses the launch itself;
// the k-th of n equal slices.
std::pair<TimeNs, TimeNs> slice(const RuntimeCall& launch, std::size_t k, std::size_t n) {
  TimeNs inset = launch.end - launch.start > 2 ? 1 : 0;
  TimeNs first = launch.start + inset, span = launch.end - inset - first;
  auto at = [&](std::size_t i) {
    return first +
           static_cast<TimeNs>(static_cast<double>(span) * static_cast<double>(i) / static_cast<double>(n));
  };
  return {at(k), at(k + 1)};
}

}  // namespace

void Builder::command_buffer_ops() {
  if (xla_activities_.empty() || hlo_.empty()) return;
  // The launches whose kernels name something their module does not hold as an instruction: a
  // thunk such as command_buffer_1. Keyed by device and correlation id, in the order read.
  std::map<std::pair<std::int32_t, std::int64_t>, std::vector<const XlaActivity*>> launches;
  std::unordered_map<std::uint64_t, bool> instruction;  // by module and op name, as StringIds
  for (const XlaActivity& x : xla_activities_) {
    const GpuActivity& a = p_.gpu_activities[x.activity];
    auto [known, added] = instruction.try_emplace((std::uint64_t{x.module} << 32) | x.op, false);
    if (added) known->second = hlo_.instruction(p_.str(x.module), x.program, p_.str(x.op)) != kNone;
    if (a.correlation != 0 && !known->second) launches[{a.device, a.correlation}].push_back(&x);
  }
  // A graph: one launch that ran several activities (a kernel launch runs one).
  std::erase_if(launches, [](const auto& entry) { return entry.second.size() < 2; });
  if (launches.empty()) return;
  std::unordered_map<std::int64_t, std::uint32_t> call_of;  // correlation → runtime call
  for (std::uint32_t r = 0; r < p_.runtime_calls.size(); ++r)
    call_of.try_emplace(p_.runtime_calls[r].correlation, r);
  std::uint64_t graphs = 0, kernels_seen = 0, by_name = 0, by_place = 0;
  TimeNs time_seen = 0, time_given = 0;
  std::vector<Replayed> kernels;
  for (const auto& [key, list] : launches) {
    const XlaActivity& head = *list.front();
    const HloSchedule* schedule = hlo_.schedule(p_.str(head.module), head.program);
    auto call = call_of.find(key.second);
    if (!schedule || call == call_of.end()) continue;
    kernels.clear();
    for (const XlaActivity* x : list) kernels.push_back({x->activity, kNone});
    std::stable_sort(kernels.begin(), kernels.end(), [&](const Replayed& a, const Replayed& b) {
      return p_.gpu_activities[a.activity].start < p_.gpu_activities[b.activity].start;
    });
    std::uint64_t placed = 0;
    by_name += attribute(*schedule, p_, kernels, placed);
    by_place += placed;
    ++graphs;
    kernels_seen += kernels.size();
    // One op per instruction, in the order of its first kernel (op_of: its place in `order`).
    std::vector<std::uint32_t> order, op_of(schedule->instructions.size(), kNone);
    for (const Replayed& k : kernels) {
      const GpuActivity& a = p_.gpu_activities[k.activity];
      time_seen += a.end - a.start;
      if (k.instruction == kNone) continue;
      time_given += a.end - a.start;
      if (op_of[k.instruction] == kNone) {
        op_of[k.instruction] = static_cast<std::uint32_t>(order.size());
        order.push_back(k.instruction);
      }
    }
    std::vector<std::int64_t> external_ids(order.size());
    const RuntimeCall launch = p_.runtime_calls[call->second];
    for (std::size_t n = 0; n < order.size(); ++n) {
      const std::string& name = schedule->instructions[order[n]].name;
      std::uint32_t details =
          xla_op_details(hlo_.instruction(p_.str(head.module), head.program, name), -1, -1);
      auto [start, end] = slice(launch, n, order.size());
      HostEvent h;
      h.start = start;
      h.end = end;
      h.thread = launch.thread;
      h.name = p_.strings.intern(name);
      h.kind = HostKind::Op;
      h.details = details;
      p_.host_events.push_back(h);
      external_ids[n] = p_.op_details[details].external_id;
    }
    for (const Replayed& k : kernels)
      if (k.instruction != kNone)
        p_.gpu_activities[k.activity].external_id = external_ids[op_of[k.instruction]];
  }
  if (graphs == 0) return;
  double unplaced_pct =
      time_seen > 0 ? 100.0 * static_cast<double>(time_seen - time_given) / static_cast<double>(time_seen)
                    : 0.0;
  p_.notes.push_back(note<NoteId::xspace_command_buffers>(
      arg<"launches">(graphs), arg<"kernels">(kernels_seen), arg<"by_name">(by_name),
      arg<"by_place">(by_place), arg<"unplaced">(kernels_seen - by_name - by_place),
      arg<"unplaced_pct">(unplaced_pct)));
}

}  // namespace perfgate::xplane
