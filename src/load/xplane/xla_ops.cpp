// XLA ops as host ops: each run of launches of one HLO instruction is an op on the launching thread
// named by the instruction (cudnn-conv.1.0, fusion.12) that owns its launches by External id: the
// host event XLA itself wrote for the instruction where one encloses the run (newer XLA's thunk
// annotations), else one made from the first launch to the last (older profiles). Its details are
// the instruction's operands and types from the module's HLO (hlo.h); the op is kept in the model's
// XLA ops (model/xla_hlo.h) with its instruction and XLA's own `flops` and `bytes_accessed` stats
// where the kernels carry them, whose cost the analysis works out (analyse/gpu/xla_cost.h), so the
// ops tables, MFU and the roofline read a JAX/TensorFlow profile as they read a PyTorch trace
// (docs/formats.md, "XSpace profile"; docs/metrics.md, "XLA ops").
#include <algorithm>
#include <numeric>

#include <fmt/format.h>

#include "load/xplane/builder.h"

namespace perfgate::xplane {
namespace {

std::uint64_t thread_name_key(std::uint32_t thread, StringId name) {
  return (std::uint64_t{thread} << 32) | name;
}

}  // namespace

std::uint32_t Builder::xla_op_details(std::uint32_t instruction, double flops, double bytes) {
  OpDetails d;
  d.external_id = next_external_id_++;
  if (instruction != kNone) {
    auto [text, added] = operand_text_.try_emplace(instruction);
    if (added) {
      HloOperandText t = hlo_.operand_text(instruction);
      text->second = {p_.strings.intern(t.dims), p_.strings.intern(t.types)};
    }
    d.input_dims = text->second.first;
    d.input_types = text->second.second;
  }
  auto details = static_cast<std::uint32_t>(p_.op_details.size());
  p_.op_details.push_back(d);
  hlo_.model().ops.push_back({details, instruction, flops, bytes});
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
    std::uint32_t instruction = hlo_.instruction(p_.str(first->module), first->program, p_.str(first->op));
    // XLA's own counts where its kernels carry them (one per instruction).
    double flops = -1, bytes = -1;
    for (std::uint32_t k : group) {
      const XlaLaunch& l = xla_launches_.at(p_.runtime_calls[k].correlation);
      flops = std::max(flops, l.flops);
      bytes = std::max(bytes, l.bytes);
    }
    xla_costed_ += instruction != kNone;
    std::uint32_t details = xla_op_details(instruction, flops, bytes);
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
    p_.notes.push_back(
        hlo_.error() ? note<NoteId::xspace_hlo_undecoded>(
                           arg<"count">(xla_ops_), arg<"native">(xla_native_), arg<"costed">(xla_costed_),
                           arg<"byte">(hlo_.error()->byte), arg<"reason">(hlo_.error()->reason))
                     : note<NoteId::xspace_xla_host_ops>(arg<"count">(xla_ops_), arg<"native">(xla_native_),
                                                         arg<"costed">(xla_costed_)));
}

}  // namespace perfgate::xplane
