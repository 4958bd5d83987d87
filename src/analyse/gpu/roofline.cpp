#include "analyse/gpu/roofline.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>
#include <unordered_map>

#include "analyse/gpu/flops.h"
#include "analyse/gpu/perf_model.h"
#include "analyse/gpu/serving_models.h"
#include "analyse/ops/op_shapes.h"

namespace perfgate {
namespace {

std::uint64_t picoseconds(double seconds) {
  return seconds > 0 ? static_cast<std::uint64_t>(std::llround(seconds * 1e12)) : 0;
}

bool is_matrix_type(const std::string& op_type) {
  return op_type == "matmul" || op_type == "convolution" || op_type == "attention" ||
         op_type == "mixture of experts";
}

// A matrix op in a Tensor Core type whose kernels ran off Tensor Cores with a dimension that
// keeps them off: a GEMM's K or N (the leading dimensions of B and C in row-major storage; M, the
// row count, does not), a convolution's input or output channels, not a multiple of 8.
bool misaligned(std::string_view op, const std::vector<Dims>& dims, const std::vector<std::string>& scalars,
                Precision precision) {
  if (precision != Precision::Fp16 && precision != Precision::Bf16 && precision != Precision::Fp8 &&
      precision != Precision::Int8)
    return false;
  auto off = [](std::int64_t v) { return v % 8 != 0; };
  if (auto g = gemm_shape(op, dims)) return off(g->n) || off(g->k);
  if (auto c = conv_shape(op, dims, scalars)) return off(c->in_channels) || off(c->out_channels);
  return false;
}

// The ceilings one call of a row is measured against.
struct Ceilings {
  std::optional<double> tflops;
  std::optional<double> memory_gbps;
  std::string precision;
};

Ceilings ceilings_of(const GpuPeak* peak, Precision precision, bool matrix, bool tc_eligible,
                     const KernelPrecisionPattern* ran) {
  Ceilings c;
  if (matrix) {
    OpPeak at = op_peak(peak, precision, tc_eligible, ran);
    c.precision = at.precision;
    c.tflops = at.tflops;
  } else {
    // Elementwise work runs on the vector units: FP64 for doubles, else the FP32 rate; the column
    // names the op's own type (a BF16 copy is bf16), not the ceiling's.
    c.precision = precision == Precision::Unknown ? "" : precision_name(precision);
    if (peak) c.tflops = peak->peak(precision == Precision::Fp64 ? "fp64" : "fp32");
  }
  if (peak) c.memory_gbps = peak->memory_gbps;
  return c;
}

using RowKey = std::tuple<StringId, StringId, StringId, bool>;  // name, dims, types, modelled

class RowBuilder {
 public:
  explicit RowBuilder(const Profile& p) : p_(p) {}

  RooflineRow& row(std::size_t e, bool modelled) {
    const HostEvent& ev = p_.host_events[e];
    const OpDetails& d = p_.details(ev);
    auto [it, added] =
        index_.try_emplace(RowKey{ev.name, d.input_dims, d.input_types, modelled}, rows_.size());
    if (added) {
      RooflineRow r;
      r.name = std::string(p_.str(ev.name));
      r.input_dims = std::string(p_.str(d.input_dims));
      r.input_types = std::string(p_.str(d.input_types));
      rows_.push_back(std::move(r));
    }
    return rows_[it->second];
  }
  static void add_call(RooflineRow& r, TimeNs kernel) {
    r.kernel_min_ns = r.calls == 0 ? kernel : std::min(r.kernel_min_ns, kernel);
    r.kernel_max_ns = std::max(r.kernel_max_ns, kernel);
    ++r.calls;
    add_time(r.kernel_ns, kernel);
  }
  std::vector<RooflineRow> take() { return std::move(rows_); }

 private:
  const Profile& p_;
  std::map<RowKey, std::size_t> index_;
  std::vector<RooflineRow> rows_;
};

class Roofline {
 public:
  explicit Roofline(const RooflineInputs& in)
      : in_(in),
        n_(in.profile.host_events.size()),
        rows_(in.profile),
        serving_(in.profile, in.stats, in.args) {
    const GpuMetrics* gpu = main_gpu(in.gpus);
    peak_ = gpu ? in.classification.gpu_peak(gpu->name) : nullptr;
  }

  RooflineResult build() {
    choose_rows();
    fill_rows();
    RooflineResult out{rows_.take(), sums_};
    for (const RooflineRow& r : out.rows) {
      if (r.family.empty()) continue;
      sums_.flop += r.flop;
      sums_.bytes += r.bytes;
      // A row with host transfers among its calls has no saving: part of its time is the host
      // link's, which no memory or compute ceiling bounds (issue 91: a TPU's program runs, each
      // one row, held 796 s of "saving" on a 97.6 s capture).
      if (r.host_transfer) sums_.memory_ps += r.memory_ps;  // its device-memory side (add_modelled)
      if (r.has_roofline && !r.host_transfer && r.kernel_ns > 0) {
        add_time(sums_.peaked_kernel_ns, r.kernel_ns);
        sums_.roofline_ps += r.roofline_ps;
        sums_.memory_ps += r.memory_ps;
        sums_.target_saving_ps += saving_at(r, in_.classification.roofline_target_pct);
      }
    }
    out.sums = sums_;
    order_roofline_rows(out.rows);
    return out;
  }

 private:
  // By name (op_models), else, for an XLA op with a cost (xla_cost.h), the xla model; per name:
  // every op of a name is one instruction.
  const OpModelPattern* model_of(std::size_t e) {
    StringId name = in_.profile.host_events[e].name;
    auto [it, added] = models_.try_emplace(name, nullptr);
    if (added) {
      it->second = in_.classification.op_model(in_.profile.str(name));
      if (!it->second && in_.xla.costed(e)) it->second = &xla_op_model();
    }
    return it->second;
  }

  // Per name, not per call: the op type is an RE2 set match.
  bool is_matrix_op(StringId name) {
    auto [it, added] = matrix_ops_.try_emplace(name, false);
    if (added) it->second = is_matrix_type(in_.classification.op_type(in_.profile.str(name)));
    return it->second;
  }

  OpCall call_of(std::size_t e) {
    const OpDetails& d = in_.profile.details(e);
    return {in_.profile.str(in_.profile.host_events[e].name), in_.args.dims(d.input_dims),
            in_.args.strings(d.input_types), in_.args.strings(d.concrete_inputs), nullptr};
  }

  // The model's cost of op e's call; cached by its name and argument texts (which also decide its
  // model), except for the models that read more than the call's own arguments (the xla model's
  // costs are cached by instruction).
  std::optional<OpCost> cost_of(std::size_t e, const OpModelPattern& m) {
    if (&m == &xla_op_model()) return in_.xla.roofline_cost(e);
    if (reads_serving_context(m)) {
      ServingContext serving = serving_.read(e, m);
      OpCall call = call_of(e);
      call.serving = &serving;
      return op_cost(m, call);
    }
    const OpDetails& d = in_.profile.details(e);
    auto [it, added] = call_costs_.try_emplace(
        {in_.profile.host_events[e].name, d.input_dims, d.input_types, d.concrete_inputs}, std::nullopt);
    if (added) {
      ServingContext none;
      OpCall call = call_of(e);
      call.serving = &none;
      it->second = op_cost(m, call);
    }
    return it->second;
  }

  // Bottom-up: the bottom-most modelled ops, and every op MFU counts.
  void choose_rows() {
    std::vector<bool> row_below(n_, false);
    candidate_.assign(n_, false);
    for (std::size_t i = n_; i-- > 0;) {
      const HostEvent& e = in_.profile.host_events[i];
      if (in_.stats.is_op(i) && in_.stats.in_window(i)) {
        std::optional<OpCost> cost;
        if (const OpModelPattern* m = model_of(i); m && (in_.flops[i] > 0 || !row_below[i]))
          cost = cost_of(i, *m);
        if (in_.flops[i] > 0 || cost) {
          candidate_[i] = true;
          if (cost) costs_.push_back({i, *cost, model_of(i)});
        }
      }
      if (e.parent != kNone && (row_below[i] || candidate_[i])) row_below[e.parent] = true;
    }
    std::reverse(costs_.begin(), costs_.end());  // found in the order of their ops
  }

  // Top-down: a candidate inside another row is that row's; ops outside every row with GPU work
  // of their own are unmodelled.
  void fill_rows() {
    std::vector<bool> covered(n_, false);  // a row encloses it or it is one
    for (std::size_t i = 0; i < n_; ++i) {
      const HostEvent& e = in_.profile.host_events[i];
      bool under = e.parent != kNone && covered[e.parent];
      bool row = candidate_[i] && !under;
      covered[i] = under || row;
      if (!in_.stats.is_op(i) || !in_.stats.in_window(i)) continue;
      count_matrix_time(i, covered[i]);
      if (row)
        add_modelled(i);
      else if (!under && in_.stats.self_device(i) > 0)
        add_unmodelled(i);
    }
  }

  void count_matrix_time(std::size_t i, bool covered) {
    TimeNs self = in_.stats.self_device(i);
    if (self <= 0 || !is_matrix_op(in_.profile.host_events[i].name)) return;
    add_time(sums_.matrix_kernel_ns, self);
    if (covered) add_time(sums_.matrix_modelled_kernel_ns, self);
  }

  void add_unmodelled(std::size_t i) {
    TimeNs self = in_.stats.self_device(i);
    RowBuilder::add_call(rows_.row(i, false), self);
    add_time(sums_.unmodelled_kernel_ns, self);
  }

  void add_modelled(std::size_t i) {
    auto found = std::lower_bound(costs_.begin(), costs_.end(), i,
                                  [](const ModelledCost& entry, std::size_t op) { return entry.op < op; });
    const OpCost* cost = found == costs_.end() || found->op != i ? nullptr : &found->cost;
    bool counted = in_.flops[i] > 0;
    double flop = counted ? in_.flops[i] : cost->flop;
    OpCall call = call_of(i);
    Precision precision = precision_of(first_tensor_type(call.types));
    // MFU counts a PyTorch op's FLOPs for matrix work only, and a TPU program's all (xla_cost.h):
    // an XLA op's instruction or categories say whether it is matrix work.
    bool matrix = cost && found->model == &xla_op_model() ? cost->matrix : counted || cost->matrix;
    Ceilings ceilings = ceilings_of(peak_, precision, matrix, in_.stats.eligible(i),
                                    matrix ? in_.stats.kernel_precision(i) : nullptr);
    RooflineRow& r = rows_.row(i, true);
    TimeNs kernel = in_.stats.total_device(i);
    RowBuilder::add_call(r, kernel);
    add_time(sums_.modelled_kernel_ns, kernel);
    r.family = cost ? found->model->model : "counted";
    r.precision = ceilings.precision;
    r.counted_in_mfu = counted;
    r.flop += static_cast<std::uint64_t>(std::llround(flop));
    r.bytes_known = cost && cost->bytes;
    if (r.bytes_known) r.bytes += static_cast<std::uint64_t>(std::llround(*cost->bytes));
    r.misaligned = r.misaligned || (matrix && in_.stats.total_tc(i) == 0 &&
                                    misaligned(call.op, call.dims, call.scalars, precision));
    // A copy between host and device runs at the link's speed, not the memory's: no memory
    // roofline applies, and its remedy is the transfer's, never fusion (issue 89); it is measured
    // against the host link instead, its bytes counted once (issue 91).
    if (HostCopies copies = host_copies(i); !matrix && 2 * copies.ns > kernel) {
      r.host_transfer = true;
      add_host_copies(r, copies);
      // Its bytes on the device's side count in MBU: a copy model's (read and written) less what
      // crossed the host link (an H2D copy writes HBM once); an XLA op's own bytes_accessed are the
      // device's accesses already (a TPU program's fusions beside its host-offload copies).
      double device_bytes = !r.bytes_known ? 0
                            : found->model == &xla_op_model()
                                ? *cost->bytes
                                : *cost->bytes - static_cast<double>(copies.bytes);
      if (ceilings.memory_gbps && device_bytes > 0)
        r.memory_ps += picoseconds(device_bytes / (*ceilings.memory_gbps * 1e9));
      return;
    }
    add_roofline(r, flop, r.bytes_known ? cost->bytes : std::nullopt, matrix, ceilings);
  }

  // The host-to-device and device-to-host copies op e and its callees launched.
  struct HostCopies {
    TimeNs ns = 0;
    std::uint64_t bytes = 0;
    std::uint64_t pinned = 0;
    std::uint64_t pageable = 0;
  };
  HostCopies host_copies(std::size_t e) const {
    HostCopies out;
    for (std::size_t c = e; c < in_.stats.subtree_end(e); ++c)
      for (std::uint32_t act : in_.stats.launched(c)) {
        const GpuActivity& g = in_.profile.gpu_activities[act];
        if (g.kind != GpuActivityKind::Memcpy ||
            (g.copy_kind != CopyKind::HostToDevice && g.copy_kind != CopyKind::DeviceToHost))
          continue;
        out.ns += g.end - g.start;
        out.bytes += g.bytes;
        out.pinned += g.pinned;
        out.pageable += g.pageable;
      }
    return out;
  }

  // A transfer's copies against the GPU's host link (rules: gpu_peaks host_link).
  void add_host_copies(RooflineRow& r, const HostCopies& copies) const {
    ++r.transfer_calls;
    add_time(r.copy_ns, copies.ns);
    r.copy_bytes += copies.bytes;
    r.pinned_copies += copies.pinned;
    r.pageable_copies += copies.pageable;
    if (!peak_ || !peak_->host_link_gbps) return;
    r.link = peak_->host_link;
    r.link_gbps = *peak_->host_link_gbps;
    r.link_ps += picoseconds(static_cast<double>(copies.bytes) / (r.link_gbps * 1e9));
  }

  // Matrix ops compare with both ceilings. Elementwise, norm, reduce and copy ops always with the
  // memory ceiling (a copy has no FLOPs; elementwise work stays far below the ridge point), and
  // with the vector compute peak too where gpu_peaks has it.
  static void add_roofline(RooflineRow& r, double flop, std::optional<double> bytes, bool matrix,
                           const Ceilings& c) {
    bool memory_only = !matrix && bytes && c.memory_gbps && (flop == 0 || !c.tflops);
    r.has_roofline = (c.tflops && c.memory_gbps) || memory_only;
    if (!r.has_roofline) return;
    r.peak_tflops = memory_only ? 0 : *c.tflops;
    r.memory_gbps = *c.memory_gbps;
    double compute = memory_only ? 0 : flop / (*c.tflops * 1e12);
    double memory = bytes.value_or(0) / (*c.memory_gbps * 1e9);
    r.compute_ps += picoseconds(compute);
    r.memory_ps += picoseconds(memory);
    r.roofline_ps += picoseconds(std::max(compute, memory));
  }

  const RooflineInputs& in_;
  std::size_t n_;
  const GpuPeak* peak_ = nullptr;
  RowBuilder rows_;
  ServingContextReader serving_;
  RooflineSums sums_;
  std::vector<bool> candidate_;
  // The modelled ops' costs by op, in one array: a hash node per op would stay resident after the
  // analysis and cost a cache miss each.
  struct ModelledCost {
    std::size_t op;
    OpCost cost;
    const OpModelPattern* model;
  };
  std::vector<ModelledCost> costs_;
  std::unordered_map<StringId, const OpModelPattern*> models_;
  std::unordered_map<CallKey, std::optional<OpCost>, CallKeyHash> call_costs_;
  std::unordered_map<StringId, bool> matrix_ops_;
};

std::uint64_t saving_ps(const RooflineRow& r) {
  std::uint64_t kernel = static_cast<std::uint64_t>(std::max<TimeNs>(r.kernel_ns, 0)) * 1000;
  return r.has_roofline && kernel > r.roofline_ps ? kernel - r.roofline_ps : 0;
}

}  // namespace

RooflineResult roofline_table(const RooflineInputs& in) {
  return Roofline(in).build();
}

std::uint64_t saving_at(const RooflineRow& r, double target_pct) {
  if (!r.has_roofline || r.host_transfer || target_pct <= 0) return 0;
  double kernel = static_cast<double>(std::max<TimeNs>(r.kernel_ns, 0)) * 1000;
  double at_target = static_cast<double>(r.roofline_ps) * 100.0 / target_pct;
  return kernel > at_target ? static_cast<std::uint64_t>(std::llround(kernel - at_target)) : 0;
}

void order_roofline_rows(std::vector<RooflineRow>& rows) {
  auto rank = [](const RooflineRow& r) { return r.family.empty() ? 2 : r.has_roofline ? 0 : 1; };
  std::sort(rows.begin(), rows.end(), [&](const RooflineRow& a, const RooflineRow& b) {
    if (rank(a) != rank(b)) return rank(a) < rank(b);
    if (rank(a) == 0 && saving_ps(a) != saving_ps(b)) return saving_ps(a) > saving_ps(b);
    if (a.kernel_ns != b.kernel_ns) return a.kernel_ns > b.kernel_ns;
    return std::tie(a.name, a.input_dims, a.input_types) < std::tie(b.name, b.input_dims, b.input_types);
  });
}

RooflineRow& RooflineRow::operator+=(const RooflineRow& from) {
  if (calls == 0) {
    kernel_min_ns = from.kernel_min_ns;
  } else if (from.calls > 0) {
    kernel_min_ns = std::min(kernel_min_ns, from.kernel_min_ns);
  }
  kernel_max_ns = std::max(kernel_max_ns, from.kernel_max_ns);
  calls += from.calls;
  add_time(kernel_ns, from.kernel_ns);
  flop += from.flop;
  bytes += from.bytes;
  bytes_known = bytes_known || from.bytes_known;
  counted_in_mfu = counted_in_mfu || from.counted_in_mfu;
  compute_ps += from.compute_ps;
  memory_ps += from.memory_ps;
  roofline_ps += from.roofline_ps;
  has_roofline = has_roofline || from.has_roofline;
  misaligned = misaligned || from.misaligned;
  host_transfer = host_transfer || from.host_transfer;
  transfer_calls += from.transfer_calls;
  copy_bytes += from.copy_bytes;
  add_time(copy_ns, from.copy_ns);
  pinned_copies += from.pinned_copies;
  pageable_copies += from.pageable_copies;
  link_ps += from.link_ps;
  // Workers on different links: the slower one's name; the share adds each worker's own link_ps.
  if (from.link_gbps > 0 && (link_gbps == 0 || from.link_gbps < link_gbps)) {
    link = from.link;
    link_gbps = from.link_gbps;
  }
  if (family.empty()) family = from.family;
  // Workers may have run one op in different precisions (kernels that name theirs, or not): the
  // smallest name and its peak, so that a run's row does not depend on the order workers fold in.
  if (!from.precision.empty() && (precision.empty() || from.precision < precision)) {
    precision = from.precision;
    if (from.peak_tflops != 0) peak_tflops = from.peak_tflops;
  }
  if (peak_tflops == 0) peak_tflops = from.peak_tflops;
  if (memory_gbps == 0) memory_gbps = from.memory_gbps;
  return *this;
}

RooflineSums& RooflineSums::operator+=(const RooflineSums& from) {
  add_time(modelled_kernel_ns, from.modelled_kernel_ns);
  add_time(unmodelled_kernel_ns, from.unmodelled_kernel_ns);
  add_time(matrix_kernel_ns, from.matrix_kernel_ns);
  add_time(matrix_modelled_kernel_ns, from.matrix_modelled_kernel_ns);
  add_time(peaked_kernel_ns, from.peaked_kernel_ns);
  roofline_ps += from.roofline_ps;
  memory_ps += from.memory_ps;
  target_saving_ps += from.target_saving_ps;
  flop += from.flop;
  bytes += from.bytes;
  return *this;
}

}  // namespace perfgate
