#include "analyse/gpu/flops.h"

#include <algorithm>

#include <map>
#include <optional>
#include <unordered_map>

#include <fmt/format.h>

#include "analyse/gpu/serving_models.h"
#include "analyse/ops/op_shapes.h"

namespace perfgate {

namespace {

// A compiled kernel's range: the FLOPs of its GEMM template from its launch's input shapes, else 0.
float template_flops(const Profile& p, const HostEvent& e, ArgumentCache& args, FusedNameCache& fused,
                     TemplateCalls& templates) {
  const FusedKernel* k = fused(e.name);
  if (!k || !k->pattern || k->pattern->model != "gemm") return 0;
  if (auto f = template_gemm_flops(*k, args.dims(p.details(e).input_dims))) {
    ++templates.counted;
    return static_cast<float>(*f);
  }
  if (templates.without_shapes++ == 0) templates.first_without_shapes = std::string(p.str(e.name));
  return 0;
}

// The ops that do matrix work, bottom-most: TC-eligible (by name, or they launched a Tensor Core
// kernel) or of a matrix op type (matmul, convolution, attention, mixture of experts), with no such
// op below them. The op type is read once per name.
std::vector<bool> bottom_matrix_ops(const Profile& p, const OpStats& stats, const CompiledClassification& c) {
  std::size_t n = p.host_events.size();
  std::unordered_map<StringId, bool> typed;
  std::vector<bool> below(n, false), out(n, false);
  for (std::size_t i = n; i-- > 0;) {
    const HostEvent& e = p.host_events[i];
    bool matrix = false;
    if (stats.is_op(i)) {
      auto [it, added] = typed.try_emplace(e.name, false);
      if (added) {
        const std::string& type = c.op_type(p.str(e.name));
        it->second =
            type == "matmul" || type == "convolution" || type == "attention" || type == "mixture of experts";
      }
      matrix = stats.eligible(i) || it->second;
    }
    out[i] = matrix && !below[i];
    if (e.parent != kNone && (matrix || below[i])) below[e.parent] = true;
  }
  return out;
}

// The FLOPs of the ops whose models read more than their own arguments (serving_models.h).
class ServingFlops {
 public:
  ServingFlops(const Profile& p, const OpStats& stats, ArgumentCache& args, const CompiledClassification& c)
      : p_(p), args_(args), classification_(c), reader_(p, stats, args) {}
  std::optional<double> operator()(std::size_t e) {
    StringId name = p_.host_events[e].name;
    auto [it, added] = models_.try_emplace(name, nullptr);
    if (added) {
      const OpModelPattern* m = classification_.op_model(p_.str(name));
      if (m && reads_serving_context(*m)) it->second = m;
    }
    if (!it->second) return std::nullopt;
    const OpDetails& d = p_.details(e);
    ServingContext context = reader_.read(e, *it->second);
    OpCall call{p_.str(name), args_.dims(d.input_dims), args_.strings(d.input_types),
                args_.strings(d.concrete_inputs), &context};
    auto cost = op_cost(*it->second, call);
    return cost ? std::optional(cost->flop) : std::nullopt;
  }

 private:
  const Profile& p_;
  ArgumentCache& args_;
  const CompiledClassification& classification_;
  ServingContextReader reader_;
  std::unordered_map<StringId, const OpModelPattern*> models_;
};

}  // namespace

std::vector<float> counted_flops(const Profile& p, const OpStats& stats, ArgumentCache& args,
                                 NameClasses& classes, const CompiledClassification& classification,
                                 XlaCosts& xla, TemplateCalls& templates) {
  std::size_t n = p.host_events.size();
  std::vector<float> flops(n, 0);
  std::vector<bool> counted_below(n, false);
  FusedNameCache fused(classification.fused_names, p);
  ServingFlops serving(p, stats, args, classification);
  std::unordered_map<CallKey, std::optional<double>, CallKeyHash> by_shape;
  auto flops_of_shapes = [&](StringId name, const OpDetails& d) {
    auto [it, added] = by_shape.try_emplace({name, d.input_dims, kNoString, d.concrete_inputs}, std::nullopt);
    if (added)
      it->second = shape_flops(p.str(name), args.dims(d.input_dims), args.strings(d.concrete_inputs));
    return it->second;
  };
  for (std::size_t i = n; i-- > 0;) {
    const HostEvent& e = p.host_events[i];
    if (stats.is_op(i) && stats.in_window(i) && !counted_below[i]) {
      const OpDetails& d = p.details(e);
      if (d.flops >= 0) {
        flops[i] = d.flops;
      } else if (double x = xla.mfu_flops(i); x >= 0) {
        flops[i] = static_cast<float>(x);
      } else if (classes.compiled_kernel(e.name)) {
        flops[i] = template_flops(p, e, args, fused, templates);
      } else if (auto f = flops_of_shapes(e.name, d)) {
        flops[i] = static_cast<float>(*f);
      } else if (auto s = serving(i)) {
        flops[i] = static_cast<float>(*s);
      }
    }
    if (e.parent != kNone && (counted_below[i] || flops[i] > 0)) counted_below[e.parent] = true;
  }
  return flops;
}

std::optional<double> op_peak_tflops(const GpuPeak& peak, Precision precision, bool tc_eligible) {
  // A float32 matmul or convolution can run on TF32 Tensor Cores where the GPU has them (Ampere and
  // newer; torch.backends.cuda.matmul.allow_tf32): that is the peak it falls short of.
  if (precision == Precision::Fp32 && tc_eligible)
    if (auto tf32 = peak.peak("tf32")) return tf32;
  return peak.peak(precision_name(precision));
}

bool name_refines_types(Precision inputs, const KernelPrecisionPattern& ran) {
  if (inputs == Precision::Unknown || !ran.formats.empty()) return true;
  const std::string& named = ran.precision;
  switch (inputs) {
    case Precision::Fp32:
      return named == "fp32" || named == "tf32";
    case Precision::Int8:
      return named == "int8" || named.find("fp8") != std::string::npos ||
             named.find("fp6") != std::string::npos || named.find("fp4") != std::string::npos;
    default:
      return named == precision_name(inputs);
  }
}

OpPeak op_peak(const GpuPeak* peak, Precision inputs, bool tc_eligible, const KernelPrecisionPattern* ran) {
  std::string named;
  if (ran && !name_refines_types(inputs, *ran)) {
    named = ran->precision;
    ran = nullptr;
  }
  if (ran) {
    if (!peak) return {std::nullopt, ran->peak, ""};
    if (auto tflops = peak->peak(ran->peak)) return {tflops, ran->peak, ""};
    // A GPU without the named rate (CDNA 4 lists no TF32) runs it at the FP32 one.
    if (ran->peak == "tf32")
      if (auto fp32 = peak->peak("fp32")) return {fp32, "fp32", ""};
  }
  if (inputs == Precision::Unknown && !ran && peak && !peak->untyped_precision.empty())
    return {peak->peak(peak->untyped_precision), peak->untyped_precision, named, true};
  bool tf32 = inputs == Precision::Fp32 && tc_eligible && peak && peak->peak("tf32");
  std::string name = tf32 ? "tf32" : inputs == Precision::Unknown ? "" : precision_name(inputs);
  return {peak ? op_peak_tflops(*peak, inputs, tc_eligible) : std::nullopt, name, named};
}

const GpuMetrics* main_gpu(const std::vector<GpuMetrics>& gpus) {
  const GpuMetrics* best = nullptr;
  for (const GpuMetrics& g : gpus)
    if (!best || g.kernel_ns > best->kernel_ns) best = &g;
  return best;
}

ComputeSums compute_sums(const Profile& p, const OpStats& stats, ArgumentCache& args,
                         const std::vector<float>& flops, const CompiledClassification& classification,
                         const std::vector<GpuMetrics>& gpus, PrecisionOverrides& overrides) {
  ComputeSums sums;
  sums.gpus = gpus.size();
  sums.min_coverage_pct = classification.mfu_min_flops_coverage_pct;
  const GpuMetrics* gpu = main_gpu(gpus);
  const GpuPeak* peak = gpu ? classification.gpu_peak(gpu->name) : nullptr;
  if (peak) {
    sums.peak_name = peak->name.empty() ? peak->match : peak->name;
    sums.peak_source = peak->source;
    sums.peak_measured = peak->measured;
    sums.peak_has_memory = peak->memory_gbps.has_value();
  }
  std::vector<bool> matrix = bottom_matrix_ops(p, stats, classification);
  std::map<StringId, TimeNs> unmodelled;
  for (std::size_t i = 0; i < flops.size(); ++i) {
    if (!stats.in_window(i)) continue;
    if (TimeNs device = matrix[i] ? stats.total_device(i) : 0; device > 0) {
      sums.eligible_device += device;
      // Known when the op, an op it calls or an op that encloses it has a count (issue 72, item 7:
      // aten::_flash_attention_forward under _scaled_dot_product_flash_attention, whose model
      // counts its FLOPs, is covered, as in the roofline's rows).
      bool known = false;
      for (std::size_t k = i; k < stats.subtree_end(i) && !known; ++k) known = flops[k] > 0;
      for (std::uint32_t k = p.host_events[i].parent; k != kNone && !known; k = p.host_events[k].parent)
        known = flops[k] > 0;
      if (known)
        sums.eligible_device_counted += device;
      else
        unmodelled[p.host_events[i].name] += device;
    }
    if (flops[i] <= 0) continue;
    sums.flops += flops[i];
    if (!peak) continue;
    Precision precision = precision_of(first_tensor_type(args.strings(p.details(i).input_types)));
    OpPeak at = op_peak(peak, precision, stats.eligible(i), stats.kernel_precision(i));
    if (!at.named.empty())
      overrides.flops[fmt::format("{} (their kernels' names read {})", at.precision, at.named)] += flops[i];
    if (at.untyped && at.tflops) {
      overrides.untyped_flops += flops[i];
      overrides.untyped_precision = at.precision;
      overrides.untyped_device = sums.peak_name;
      overrides.untyped_source = peak->untyped_source;
    }
    if (at.tflops) {
      sums.flops_at_known_peak += flops[i];
      sums.ideal_seconds += flops[i] / (*at.tflops * 1e12);
      sums.ideal_seconds_by_precision[at.precision] += flops[i] / (*at.tflops * 1e12);
    }
  }
  for (const auto& [name, device] : unmodelled)
    if (device > sums.largest_unmodelled_ns) {
      sums.largest_unmodelled_ns = device;
      sums.largest_unmodelled = std::string(p.str(name));
    }
  return sums;
}

std::optional<Note> precision_source_note(const PrecisionOverrides& overrides, double all_flops) {
  if (overrides.flops.empty() || all_flops <= 0) return std::nullopt;
  std::string parts;
  for (const auto& [which, counted] : overrides.flops)
    parts += fmt::format("{}{:.3g} FLOPs ({:.1f}%) at {}", parts.empty() ? "" : "; ", counted,
                         100 * counted / all_flops, which);
  return note<NoteId::precision_from_ops>(arg<"parts">(parts));
}

std::optional<Note> untyped_precision_note(const PrecisionOverrides& overrides, double all_flops) {
  if (overrides.untyped_flops <= 0 || all_flops <= 0) return std::nullopt;
  return note<NoteId::precision_untyped_ops>(
      arg<"flops">(fmt::format("{:.3g}", overrides.untyped_flops)),
      arg<"pct">(fmt::format("{:.1f}", 100 * overrides.untyped_flops / all_flops)),
      arg<"device">(overrides.untyped_device), arg<"precision">(overrides.untyped_precision),
      arg<"why">(overrides.untyped_source));
}

ComputeSums& ComputeSums::operator+=(const ComputeSums& from) {
  flops += from.flops;
  flops_at_known_peak += from.flops_at_known_peak;
  ideal_seconds += from.ideal_seconds;
  for (const auto& [precision, seconds] : from.ideal_seconds_by_precision)
    ideal_seconds_by_precision[precision] += seconds;
  add_time(eligible_device, from.eligible_device);
  add_time(eligible_device_counted, from.eligible_device_counted);
  if (from.largest_unmodelled_ns > largest_unmodelled_ns) {
    largest_unmodelled_ns = from.largest_unmodelled_ns;
    largest_unmodelled = from.largest_unmodelled;
  }
  if (peak_name.empty()) {
    peak_name = from.peak_name;
    peak_source = from.peak_source;
    peak_measured = from.peak_measured;
    peak_has_memory = from.peak_has_memory;
  }
  gpus += from.gpus;
  // A run of several workers once summed without it (0: MFU shown whatever the coverage).
  min_coverage_pct = std::max(min_coverage_pct, from.min_coverage_pct);
  return *this;
}

}  // namespace perfgate
