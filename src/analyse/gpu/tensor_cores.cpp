#include "analyse/gpu/tensor_cores.h"

#include <algorithm>
#include <array>

#include "analyse/gpu/flops.h"
#include "analyse/intervals.h"
#include "analyse/ops/op_info.h"

namespace perfgate {
namespace {

// Kernel time an op launched itself (not through a child op), for the ops that launched any.
struct OwnedKernelTime {
  std::uint32_t owner = kNone;
  bool launched_tc = false;  // any Tensor Core kernel, in or out of the window
  TimeNs kernel = 0;         // window time of the kernels
  TimeNs tc_kernel = 0;
  TimeNs layout_kernel = 0;  // of layout-conversion kernels (never Tensor Core ones)
};

// Whether a Tensor Core kernel's name states operands of 8 bits or fewer (compute.narrow_weight_pct):
// FP8, FP6, FP4 or INT8, or a block-scaled format (rules: kernel_precisions formats: MX, NVFP4;
// "BF16 x MX weights" widens MXFP4 weights in registers). Only such a kernel's op types are read,
// to check that they do not contradict the name (flops.h, op_peak: a name reading FP8 under BF16
// ops ran in BF16), so that other kernels cost nothing more.
bool narrow_named(const KernelPrecisionPattern* ran) {
  static constexpr std::array<std::string_view, 8> kNarrow = {"fp8",   "fp6",   "fp4",   "int8",
                                                              "mxfp8", "mxfp6", "mxfp4", "nvfp4"};
  return ran && (!ran->formats.empty() ||
                 std::find(kNarrow.begin(), kNarrow.end(), ran->precision) != kNarrow.end());
}

// Sorted by owner, one entry per owner: far fewer than the host events.
std::vector<OwnedKernelTime> owned_kernel_times(const Profile& p, const Attribution& a, NameClasses& classes,
                                                Interval window, bool count_unlaunched,
                                                TensorCoreSums& sums) {
  std::vector<OwnedKernelTime> owned;
  ArgumentCache args(p);
  for (std::size_t i = 0; i < p.gpu_activities.size(); ++i) {
    const GpuActivity& k = p.gpu_activities[i];
    if (k.kind != GpuActivityKind::Kernel) continue;
    TensorCoreRules::Verdict verdict = classes.tensor_core_kernel.verdict(k.name);
    bool tc = verdict.tensor_core;
    bool layout = !tc && classes.layout_conversion_kernel(k.name);
    TimeNs inside = overlap({k.start, k.end}, window);
    std::uint32_t owner = a.activity_owner(i);
    // Whose op the trace cannot say: no launching call recorded, or a graph replay whose captured
    // op is unknown (no capture trace; its launch may sit in an annotation, not an op).
    bool by_op = owner != kNone && p.host_events[owner].kind == HostKind::Op;
    bool unowned = owner == kNone || (!by_op && a.is_graph_launch(a.activity_runtime[i]));
    if (count_unlaunched || a.activity_runtime[i] != kNone) {
      sums.kernel_ns += inside;
      if (classes.tensorrt_kernel(k.name)) sums.tensorrt_kernel_ns += inside;
      if (unowned) sums.unowned_kernel_ns += inside;
      if (unowned && tc) sums.unowned_tc_kernel_ns += inside;
      if (tc) {
        sums.tc_kernel_ns += inside;
        const KernelPrecisionPattern* precision = classes.tensor_core_kernel.precision(verdict);
        add_time(sums.tc_kernel_ns_by_precision[precision ? precision->precision : ""], inside);
        if (narrow_named(precision)) {
          Precision inputs =
              by_op
                  ? precision_of(first_tensor_type(args.strings(p.details(p.host_events[owner]).input_types)))
                  : Precision::Unknown;
          if (name_refines_types(inputs, *precision)) add_time(sums.narrow_tc_kernel_ns, inside);
        }
      }
    }
    if (k.units != ComputeUnits::Unstated) add_time(sums.units_stated_ns, inside);
    if (k.units == ComputeUnits::Matrix) add_time(sums.matrix_unit_ns, inside);
    if (owner != kNone) owned.push_back({owner, tc, inside, tc ? inside : 0, layout ? inside : 0});
  }
  std::stable_sort(owned.begin(), owned.end(),
                   [](const OwnedKernelTime& x, const OwnedKernelTime& y) { return x.owner < y.owner; });
  std::size_t kept = 0;
  for (const OwnedKernelTime& o : owned) {
    if (kept > 0 && owned[kept - 1].owner == o.owner) {
      OwnedKernelTime& sum = owned[kept - 1];
      sum.launched_tc = sum.launched_tc || o.launched_tc;
      sum.kernel += o.kernel;
      sum.tc_kernel += o.tc_kernel;
      sum.layout_kernel += o.layout_kernel;
    } else {
      owned[kept++] = o;
    }
  }
  owned.resize(kept);
  return owned;
}

// An open range on the current thread's ancestor chain, with what its subtree has so far.
struct OpenRange {
  std::uint32_t event;
  OwnedKernelTime self;
  TimeNs total_kernel;
  TimeNs total_tc;
  TimeNs total_layout;
  bool eligible_below;
};

// What an op's input types say about Tensor Cores: FP32/FP64 need a cast (autocast) first, the
// half-precision and 8-bit types are what Tensor Cores take.
enum class InputPrecision { Full, Half, Unknown };

InputPrecision input_precision(Precision p) {
  switch (p) {
    case Precision::Fp32:
    case Precision::Fp64:
      return InputPrecision::Full;
    case Precision::Fp16:
    case Precision::Bf16:
    case Precision::Fp8:
    case Precision::Int8:
      return InputPrecision::Half;
    case Precision::Unknown:
      break;
  }
  return InputPrecision::Unknown;
}

TimeNs& by_precision(InputPrecision p, TimeNs& full, TimeNs& half, TimeNs& unknown) {
  return p == InputPrecision::Full ? full : p == InputPrecision::Half ? half : unknown;
}

class TensorCoreWalk {
 public:
  TensorCoreWalk(const Profile& p, NameClasses& classes, TensorCoreSums& sums)
      : profile_(p), events_(p.host_events), classes_(classes), sums_(sums), args_(p) {}

  // Events come by thread in pre-order, so a range's parent is on the chain when it arrives and
  // its subtree is complete when it leaves the chain.
  void enter(std::uint32_t i, const OwnedKernelTime& self) {
    const HostEvent& e = events_[i];
    while (!chain_.empty() &&
           (events_[chain_.back().event].thread != e.thread || chain_.back().event != e.parent))
      leave();
    chain_.push_back({i, self, self.kernel, self.tc_kernel, self.layout_kernel, false});
  }
  void finish() {
    while (!chain_.empty()) leave();
  }

 private:
  void leave() {
    OpenRange r = chain_.back();
    chain_.pop_back();
    const HostEvent& e = events_[r.event];
    bool eligible = false;
    if (e.kind == HostKind::Op) {
      eligible = classes_.eligible_op(e.name) || r.self.launched_tc || r.eligible_below;
      sums_.op_kernel_ns += r.self.kernel;
      if (eligible && !r.eligible_below) add_bottom_eligible(r, e);
    }
    if (chain_.empty() || chain_.back().event != e.parent) return;
    OpenRange& parent = chain_.back();
    parent.eligible_below = parent.eligible_below || eligible || r.eligible_below;
    parent.total_kernel += r.total_kernel;
    parent.total_tc += r.total_tc;
    parent.total_layout += r.total_layout;
  }

  // A bottom-most eligible op's kernels: on Tensor Cores, layout conversions, and the rest by
  // its input types.
  void add_bottom_eligible(const OpenRange& r, const HostEvent& e) {
    sums_.eligible_self_kernel_ns += r.self.kernel;
    sums_.eligible_total_kernel_ns += r.total_kernel;
    sums_.eligible_tc_kernel_ns += r.total_tc;
    sums_.eligible_layout_kernel_ns += r.total_layout;
    InputPrecision p =
        input_precision(precision_of(first_tensor_type(args_.strings(profile_.details(e).input_types))));
    by_precision(p, sums_.eligible_fp32_kernel_ns, sums_.eligible_half_kernel_ns,
                 sums_.eligible_unknown_kernel_ns) += r.total_kernel - r.total_tc - r.total_layout;
    if (r.total_kernel == 0 || r.total_tc > 0) return;
    ++sums_.eligible_ops_without_tc;
    by_precision(p, sums_.without_tc_fp32_kernel_ns, sums_.without_tc_half_kernel_ns,
                 sums_.without_tc_unknown_kernel_ns) += r.total_kernel;
  }

  const Profile& profile_;
  const std::vector<HostEvent>& events_;
  NameClasses& classes_;
  TensorCoreSums& sums_;
  ArgumentCache args_;
  std::vector<OpenRange> chain_;
};

}  // namespace

TensorCoreSums tensor_core_sums(const Profile& p, const Attribution& a, NameClasses& classes,
                                const Window& window, bool count_unlaunched) {
  TensorCoreSums sums;
  std::vector<OwnedKernelTime> owned =
      owned_kernel_times(p, a, classes, {window.start, window.end}, count_unlaunched, sums);
  TensorCoreWalk walk(p, classes, sums);
  auto next_owned = owned.begin();
  for (std::uint32_t i = 0; i < p.host_events.size(); ++i) {
    OwnedKernelTime self;
    if (next_owned != owned.end() && next_owned->owner == i) self = *next_owned++;
    walk.enter(i, self);
  }
  walk.finish();
  return sums;
}

TensorCoreSums& TensorCoreSums::operator+=(const TensorCoreSums& from) {
  add_time(kernel_ns, from.kernel_ns);
  add_time(tc_kernel_ns, from.tc_kernel_ns);
  add_time(op_kernel_ns, from.op_kernel_ns);
  add_time(unowned_kernel_ns, from.unowned_kernel_ns);
  add_time(unowned_tc_kernel_ns, from.unowned_tc_kernel_ns);
  for (const auto& [precision, time] : from.tc_kernel_ns_by_precision)
    add_time(tc_kernel_ns_by_precision[precision], time);
  add_time(narrow_tc_kernel_ns, from.narrow_tc_kernel_ns);
  add_time(tensorrt_kernel_ns, from.tensorrt_kernel_ns);
  add_time(units_stated_ns, from.units_stated_ns);
  add_time(matrix_unit_ns, from.matrix_unit_ns);
  min_judged_pct = std::max(min_judged_pct, from.min_judged_pct);
  add_time(eligible_self_kernel_ns, from.eligible_self_kernel_ns);
  add_time(eligible_total_kernel_ns, from.eligible_total_kernel_ns);
  add_time(eligible_tc_kernel_ns, from.eligible_tc_kernel_ns);
  add_time(eligible_layout_kernel_ns, from.eligible_layout_kernel_ns);
  add_time(eligible_fp32_kernel_ns, from.eligible_fp32_kernel_ns);
  add_time(eligible_half_kernel_ns, from.eligible_half_kernel_ns);
  add_time(eligible_unknown_kernel_ns, from.eligible_unknown_kernel_ns);
  add_time(without_tc_fp32_kernel_ns, from.without_tc_fp32_kernel_ns);
  add_time(without_tc_half_kernel_ns, from.without_tc_half_kernel_ns);
  add_time(without_tc_unknown_kernel_ns, from.without_tc_unknown_kernel_ns);
  eligible_ops_without_tc += from.eligible_ops_without_tc;
  // Distinct names cannot be summed across workers: the largest worker count is a lower bound.
  eligible_op_names_without_tc = std::max(eligible_op_names_without_tc, from.eligible_op_names_without_tc);
  misaligned_shapes = std::max(misaligned_shapes, from.misaligned_shapes);
  return *this;
}

}  // namespace perfgate
