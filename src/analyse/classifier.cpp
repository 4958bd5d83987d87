#include "analyse/classifier.h"

namespace perfgate {
namespace {
std::vector<std::string> patterns_of(const std::vector<OpTypePattern>& types) {
  std::vector<std::string> out;
  for (const auto& t : types) out.push_back(t.pattern);
  return out;
}
std::vector<std::string> device_patterns(const std::vector<GpuArchitecture>& architectures) {
  std::vector<std::string> out;
  for (const auto& a : architectures)
    if (!a.devices.empty()) out.push_back(a.devices);
  return out;
}
std::vector<std::string> matches_of(const std::vector<GpuPeak>& peaks) {
  std::vector<std::string> out;
  for (const auto& p : peaks) out.push_back(p.match);
  return out;
}
// One pattern that matches where one of the patterns does. A single pattern stays as it is, so
// that --step-pattern naming it is known as the same pattern; alternatives keep their order: the
// first that matches the whole name gives the step number.
std::string any_of(const std::vector<std::string>& patterns) {
  if (patterns.size() == 1) return patterns.front();
  std::string joined;
  for (const std::string& p : patterns) joined += (joined.empty() ? "(?:" : "|(?:") + p + ")";
  return joined;
}
std::vector<std::string> whole_names(const std::vector<OpModelPattern>& models) {
  std::vector<std::string> out;
  for (const auto& m : models) out.push_back("^(?:" + m.pattern + ")$");
  return out;
}
std::vector<std::string> whole_names(const std::vector<std::string>& patterns) {
  std::vector<std::string> out;
  for (const auto& p : patterns) out.push_back("^(?:" + p + ")$");
  return out;
}

}  // namespace

CompiledClassification::CompiledClassification(const Classification& c)
    : tensor_core_rules(c),
      eligible_ops(c.tensor_core_eligible_ops, "tensor_core_eligible_ops"),
      layout_conversion_kernels(c.layout_conversion_kernels, "layout_conversion_kernels"),
      communication_kernels(c.communication_kernels, "communication_kernels"),
      communication_ops(c.communication_ops, "communication_ops"),
      dataloader_ops(c.dataloader_ops, "dataloader_ops"),
      sync_calls(c.sync_calls, "sync_calls"),
      device_sync_calls(c.device_sync_calls, "device_sync_calls"),
      warmup_calls(c.warmup_calls, "warmup_calls"),
      warmup_ranges(c.warmup_ranges, "warmup_ranges"),
      teardown_calls(c.teardown_calls, "teardown_calls"),
      profiler_events(c.profiler_events, "profiler_events"),
      fused_attention_ops(c.fused_attention_ops, "fused_attention_ops"),
      grad_scaler_ops(c.grad_scaler_ops, "grad_scaler_ops"),
      tensorrt_kernels(c.tensorrt_kernels, "tensorrt_kernels"),
      graph_launch_calls(c.graph_launch_calls, "graph_launch_calls"),
      launch_calls(c.critical_path_launch_calls, "critical_path_launch_calls"),
      blocking_calls(c.critical_path_blocking_calls, "critical_path_blocking_calls"),
      synchronous_launches(c.critical_path_synchronous_launches, "critical_path_synchronous_launches"),
      data_parallel_ops(c.data_parallel_ops, "data_parallel_ops"),
      distributed_data_parallel_ops(c.distributed_data_parallel_ops, "distributed_data_parallel_ops"),
      nccl_ops(c.nccl_ops, "nccl_ops"),
      library_frames(c.library_frames, "library_frames"),
      profiler_step_ranges(any_of(c.profiler_step_ranges)),
      nvtx_step_ranges(any_of(c.nvtx_step_ranges)),
      xspace_step_ranges(any_of(c.xspace_step_ranges)),
      serving_step_ranges(c.serving_step_ranges),
      compiled_kernel_names(whole_names(c.compiled_kernels), "compiled_kernels"),
      compiled_regions(c.compiled_regions, "compiled_regions"),
      fused_names(c),
      op_types(patterns_of(c.op_types), "op_types"),
      serving_phases(patterns_of(c.serving_phases), "serving_phases"),
      capture_frameworks(patterns_of(c.capture_frameworks), "capture_frameworks"),
      capture_workloads(patterns_of(c.capture_workloads), "capture_workloads"),
      gpu_peak_names(matches_of(c.gpu_peaks), "gpu_peaks"),
      gpu_peaks(c.gpu_peaks),
      op_model_names(whole_names(c.op_models), "op_models"),
      op_models(c.op_models),
      gpu_architectures(c.gpu_architectures),
      architecture_devices(device_patterns(c.gpu_architectures), "gpu_architectures devices"),
      attribution{c.attribute_by_time_containment, c.external_id_must_enclose},
      mfu_min_flops_coverage_pct(c.mfu_min_flops_coverage_pct),
      tc_min_judged_pct(c.tc_min_judged_pct),
      roofline_target_pct(c.roofline_target_pct),
      critical_path_max_kernel_gap_us(c.critical_path_max_kernel_gap_us),
      tc_share_counts_unlaunched_kernels(c.tc_share_counts_unlaunched_kernels),
      clock_offset_over_gpu_span(c.clock_offset_over_gpu_span),
      communication_host_time(c.communication_host_time) {
  for (const auto& t : c.op_types) op_type_names.push_back(t.type);
  for (const auto& t : c.serving_phases) serving_phase_names.push_back(t.type);
  for (const auto& t : c.capture_frameworks) capture_framework_names.push_back(t.type);
  for (const auto& t : c.capture_workloads) capture_workload_names.push_back(t.type);
  for (std::size_t i = 0; i < gpu_architectures.size(); ++i) {
    const GpuArchitecture& a = gpu_architectures[i];
    if (!a.devices.empty()) architecture_device_entry.push_back(i);
    architecture_kernels.emplace_back(a.kernels.empty() ? std::vector<std::string>{} : std::vector{a.kernels},
                                      "gpu_architectures kernels");
  }
}

const std::string& CompiledClassification::op_type(std::string_view name) const {
  static const std::string kOther = "other";
  int i = op_types.first_match(name);
  return i < 0 ? kOther : op_type_names[static_cast<std::size_t>(i)];
}

std::string_view CompiledClassification::serving_phase(std::string_view step_name) const {
  int i = serving_phases.first_match(step_name);
  return i < 0 ? std::string_view{} : std::string_view(serving_phase_names[static_cast<std::size_t>(i)]);
}

const GpuArchitecture* CompiledClassification::architecture_of_device(std::string_view device_name) const {
  if (device_name.empty()) return nullptr;
  int i = architecture_devices.first_match(device_name);
  return i < 0 ? nullptr : &gpu_architectures[architecture_device_entry[static_cast<std::size_t>(i)]];
}

const std::string& CompiledClassification::step_ranges(StepMarking marking) const {
  switch (marking) {
    case StepMarking::NvtxRanges:
      return nvtx_step_ranges;
    case StepMarking::XSpaceAnnotations:
      return xspace_step_ranges;
    case StepMarking::ProfilerStepRanges:
      break;
  }
  return profiler_step_ranges;
}

const OpModelPattern* CompiledClassification::op_model(std::string_view name) const {
  int i = op_model_names.first_match(name);
  return i < 0 ? nullptr : &op_models[static_cast<std::size_t>(i)];
}

const GpuPeak* CompiledClassification::gpu_peak(std::string_view device_name) const {
  int i = gpu_peak_names.first_match(device_name);
  return i < 0 ? nullptr : &gpu_peaks[static_cast<std::size_t>(i)];
}

}  // namespace perfgate
