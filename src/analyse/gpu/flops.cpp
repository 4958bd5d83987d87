#include "analyse/gpu/flops.h"

#include <algorithm>

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

}  // namespace

std::vector<float> counted_flops(const Profile& p, const OpStats& stats, ArgumentCache& args,
                                 NameClasses& classes, const FusedNames& names, TemplateCalls& templates) {
  std::size_t n = p.host_events.size();
  std::vector<float> flops(n, 0);
  std::vector<bool> counted_below(n, false);
  FusedNameCache fused(names, p);
  for (std::size_t i = n; i-- > 0;) {
    const HostEvent& e = p.host_events[i];
    if (stats.is_op(i) && stats.in_window(i) && !counted_below[i]) {
      const OpDetails& d = p.details(e);
      if (d.flops >= 0) {
        flops[i] = d.flops;
      } else if (classes.compiled_kernel(e.name)) {
        flops[i] = template_flops(p, e, args, fused, templates);
      } else if (auto f =
                     shape_flops(p.str(e.name), args.dims(d.input_dims), args.strings(d.concrete_inputs))) {
        flops[i] = static_cast<float>(*f);
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

const GpuMetrics* main_gpu(const std::vector<GpuMetrics>& gpus) {
  const GpuMetrics* best = nullptr;
  for (const GpuMetrics& g : gpus)
    if (!best || g.kernel_ns > best->kernel_ns) best = &g;
  return best;
}

ComputeSums compute_sums(const Profile& p, const OpStats& stats, ArgumentCache& args,
                         const std::vector<float>& flops, const CompiledClassification& classification,
                         const std::vector<GpuMetrics>& gpus) {
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
  for (std::size_t i = 0; i < flops.size(); ++i) {
    if (!stats.in_window(i)) continue;
    if (TimeNs device = stats.bottom_eligible(i) ? stats.total_device(i) : 0; device > 0) {
      sums.eligible_device += device;
      // Known when the op or an op it calls has a count.
      bool known = false;
      for (std::size_t k = i; k < stats.subtree_end(i) && !known; ++k) known = flops[k] > 0;
      if (known) sums.eligible_device_counted += device;
    }
    if (flops[i] <= 0) continue;
    sums.flops += flops[i];
    if (!peak) continue;
    Precision precision = precision_of(first_tensor_type(args.strings(p.details(i).input_types)));
    if (auto tflops = op_peak_tflops(*peak, precision, stats.eligible(i))) {
      sums.flops_at_known_peak += flops[i];
      sums.ideal_seconds += flops[i] / (*tflops * 1e12);
    }
  }
  return sums;
}

ComputeSums& ComputeSums::operator+=(const ComputeSums& from) {
  flops += from.flops;
  flops_at_known_peak += from.flops_at_known_peak;
  ideal_seconds += from.ideal_seconds;
  add_time(eligible_device, from.eligible_device);
  add_time(eligible_device_counted, from.eligible_device_counted);
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
