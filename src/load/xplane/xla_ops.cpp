// XLA ops as host ops: each run of launches of one HLO instruction is an op on the launching thread
// named by the instruction (cudnn-conv.1.0, fusion.12) that owns its launches by External id: the
// host event XLA itself wrote for the instruction where one encloses the run (newer XLA's thunk
// annotations), else one made from the first launch to the last (older profiles). Its details are
// the instruction's operands, types and cost from the module's HLO (hlo.h), or XLA's own `flops` and
// `bytes_accessed` stats where the kernels carry them, so the ops tables, MFU and the roofline read
// a JAX/TensorFlow profile as they read a PyTorch trace (docs/formats.md, "XSpace profile";
// docs/metrics.md, "XLA ops").
#include <algorithm>
#include <numeric>

#include <fmt/format.h>

#include "load/json_text.h"
#include "load/xplane/builder.h"

namespace perfgate::xplane {
namespace {

// The op's Concrete Inputs: ["<opcode>", "<result>", "flops=N", "bytes=N", "matrix"|"vector"], what
// the roofline's xla model reads (perf_model.cpp); an entry is left out where it is unknown.
std::string xla_concrete_inputs(const HloCost* cost, double flops, double bytes, bool matrix) {
  std::string out = "[";
  auto add = [&](std::string_view item) { out += (out.size() > 1 ? "," : "") + json_string(item); };
  if (cost) {
    add(cost->opcode);
    add(cost->output);
  }
  if (flops >= 0) add(fmt::format("flops={:.0f}", flops));
  if (bytes >= 0) add(fmt::format("bytes={:.0f}", bytes));
  add(matrix ? "matrix" : "vector");
  return out + "]";
}

std::uint64_t thread_name_key(std::uint32_t thread, StringId name) {
  return (std::uint64_t{thread} << 32) | name;
}

}  // namespace

std::uint32_t Builder::xla_op_details(const HloCost* cost, double flops, double bytes) {
  OpDetails d;
  d.external_id = next_external_id_++;
  if (flops < 0 && cost && cost->flops) flops = *cost->flops;
  if (bytes < 0 && cost && cost->bytes) bytes = *cost->bytes;
  // Counts past 2^62 are not an op's (dimensions a malformed file made up): unknown, so that no
  // later conversion (to float for MFU, to integers for the tables) runs out of range.
  constexpr double kMaxCount = 0x1p62;
  if (!(flops <= kMaxCount)) flops = -1;
  if (!(bytes <= kMaxCount)) bytes = -1;
  bool matrix = cost && cost->matrix;
  if (cost) {
    d.input_dims = p_.strings.intern(cost->input_dims);
    d.input_types = p_.strings.intern(cost->input_types);
  }
  if (cost || flops >= 0 || bytes >= 0)
    d.concrete_inputs = p_.strings.intern(xla_concrete_inputs(cost, flops, bytes, matrix));
  // The trace's own count, as with_flops=True gives a PyTorch op: MFU counts matrix work only.
  if (matrix && flops >= 0) d.flops = static_cast<float>(flops);
  auto details = static_cast<std::uint32_t>(p_.op_details.size());
  p_.op_details.push_back(d);
  return details;
}

void Builder::xla_ops() {
  if (xla_launches_.empty() || p_.runtime_calls.empty()) return;
  // XLA's own host events named by an instruction that ran, by thread and name.
  std::unordered_map<StringId, bool> op_names;
  for (const auto& [correlation, l] : xla_launches_) op_names.emplace(l.op, true);
  std::unordered_map<std::uint64_t, std::vector<std::uint32_t>> native;
  for (std::uint32_t i = 0; i < p_.host_events.size(); ++i) {
    const HostEvent& h = p_.host_events[i];
    if (h.kind == HostKind::Op && op_names.count(h.name))
      native[thread_name_key(h.thread, h.name)].push_back(i);
  }
  std::vector<std::uint32_t> order(p_.runtime_calls.size());
  std::iota(order.begin(), order.end(), 0u);
  std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
    const RuntimeCall &x = p_.runtime_calls[a], &y = p_.runtime_calls[b];
    if (x.thread != y.thread) return x.thread < y.thread;
    return x.start != y.start ? x.start < y.start : a < b;
  });
  std::vector<std::uint32_t> group;
  std::vector<StringId> kernels;
  const XlaLaunch* first = nullptr;
  // The innermost host event of the instruction's name around [start, end] on `thread`, or kNone.
  auto enclosing = [&](std::uint32_t thread, StringId name, TimeNs start, TimeNs end) {
    std::uint32_t best = kNone;
    auto it = native.find(thread_name_key(thread, name));
    if (it == native.end()) return best;
    for (std::uint32_t i : it->second) {
      const HostEvent& h = p_.host_events[i];
      if (h.start <= start && h.end >= end &&
          (best == kNone || h.end - h.start < p_.host_events[best].end - p_.host_events[best].start))
        best = i;
    }
    return best;
  };
  auto close = [&] {
    if (group.empty()) return;
    const RuntimeCall& head = p_.runtime_calls[group.front()];
    TimeNs end = head.end;
    for (std::uint32_t k : group) end = std::max(end, p_.runtime_calls[k].end);
    std::uint32_t op = enclosing(head.thread, first->op, head.start, end);
    if (op != kNone && p_.host_events[op].details != kNone) {
      // XLA's event already has its details (the instruction's launches ran as two runs in it).
      for (std::uint32_t k : group)
        p_.runtime_calls[k].external_id = p_.op_details[p_.host_events[op].details].external_id;
      group.clear();
      kernels.clear();
      first = nullptr;
      return;
    }
    const HloCost* cost = hlo_.cost(p_.str(first->module), first->program, p_.str(first->op));
    // XLA's own counts where its kernels carry them (one per instruction), else the HLO's.
    double flops = -1, bytes = -1;
    for (std::uint32_t k : group) {
      const XlaLaunch& l = xla_launches_.at(p_.runtime_calls[k].correlation);
      flops = std::max(flops, l.flops);
      bytes = std::max(bytes, l.bytes);
    }
    xla_costed_ += cost != nullptr;
    std::uint32_t details = xla_op_details(cost, flops, bytes);
    const OpDetails& d = p_.op_details[details];
    if (op != kNone) {
      p_.host_events[op].details = details;
      ++xla_native_;
    } else {
      HostEvent h;
      h.start = head.start;
      h.end = end;
      h.thread = head.thread;
      h.name = first->op;
      h.kind = HostKind::Op;
      h.details = details;
      p_.host_events.push_back(h);
    }
    for (std::uint32_t k : group) p_.runtime_calls[k].external_id = d.external_id;
    ++xla_ops_;
    group.clear();
    kernels.clear();
    first = nullptr;
  };
  for (std::uint32_t k : order) {
    const RuntimeCall& call = p_.runtime_calls[k];
    auto it = xla_launches_.find(call.correlation);
    if (it == xla_launches_.end()) {
      close();
      continue;
    }
    const XlaLaunch& l = it->second;
    // One instruction's run: the same thread, module and instruction, and no kernel twice (a loop
    // running the instruction again starts a new op).
    bool same = first && p_.runtime_calls[group.front()].thread == call.thread && first->module == l.module &&
                first->op == l.op && std::find(kernels.begin(), kernels.end(), l.kernel) == kernels.end();
    if (!same) close();
    if (!first) first = &l;
    group.push_back(k);
    kernels.push_back(l.kernel);
  }
  close();
  if (xla_ops_ > 0)
    p_.notes.push_back(fmt::format(
        "{} runs of XLA ops are host ops ({} of them XLA's own host events, {} with their HLO's shapes and "
        "cost){}",
        xla_ops_, xla_native_, xla_costed_, hlo_.error().empty() ? "" : fmt::format("; {}", hlo_.error())));
}

}  // namespace perfgate::xplane
