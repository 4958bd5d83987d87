// Kernel and op classes from the rules' classification patterns: compiled once per run,
// memoised per interned name for each profile.
#pragma once

#include "analyse/attribution.h"
#include "analyse/name_matcher.h"
#include "analyse/ops/compiled_kernels.h"
#include "analyse/tensor_core_rules.h"
#include "knowledge/classification.h"
#include "model/profile.h"

namespace perfgate {

struct CompiledClassification {
  explicit CompiledClassification(const Classification& c);
  // The op type of a name: the type of the first matching op_types entry, or "other".
  const std::string& op_type(std::string_view name) const;
  // The peak table entry of a device name, or nullptr.
  const GpuPeak* gpu_peak(std::string_view device_name) const;
  // The first gpu_architectures entry whose `devices` matches the name, or nullptr.
  const GpuArchitecture* architecture_of_device(std::string_view device_name) const;
  // The op_models entry whose pattern matches the whole op name first, or nullptr.
  const OpModelPattern* op_model(std::string_view name) const;
  // The step-range pattern for how a profile's format marks its steps.
  const std::string& step_ranges(StepMarking marking) const;

  TensorCoreRules tensor_core_rules;  // non_tensor_core_kernels, tensor_core_kernels, kernel_precisions
  PatternSet eligible_ops;
  PatternSet layout_conversion_kernels;
  PatternSet communication_kernels;
  PatternSet communication_ops;
  PatternSet dataloader_ops;
  PatternSet sync_calls;
  PatternSet device_sync_calls;
  PatternSet warmup_calls;
  PatternSet warmup_ranges;
  PatternSet teardown_calls;
  PatternSet profiler_events;
  PatternSet fused_attention_ops;
  PatternSet grad_scaler_ops;
  PatternSet tensorrt_kernels;
  PatternSet graph_launch_calls;
  PatternSet launch_calls;          // critical_path_launch_calls
  PatternSet blocking_calls;        // critical_path_blocking_calls
  PatternSet synchronous_launches;  // critical_path_synchronous_launches
  PatternSet data_parallel_ops;
  PatternSet distributed_data_parallel_ops;
  PatternSet nccl_ops;
  PatternSet library_frames;
  // Each list of step-range patterns as one RE2 pattern (whole-name matches, not a PatternSet:
  // the step number is a capture); empty where the list is.
  std::string profiler_step_ranges;
  std::string nvtx_step_ranges;
  std::string xspace_step_ranges;
  std::vector<std::string> serving_step_ranges;  // tried one by one (steps.cpp)
  PatternSet compiled_kernel_names;              // each compiled_kernels pattern anchored at both ends
  PatternSet compiled_regions;
  FusedNames fused_names;
  PatternSet op_types;
  PatternSet serving_phases;
  std::vector<std::string> serving_phase_names;
  // The phase of a serving step by its name: "decode", "prefill", "mixed", or "" (rules: serving_phases).
  std::string_view serving_phase(std::string_view step_name) const;
  // The capture profile's markers (rules: capture_frameworks, capture_workloads): a pattern per
  // entry, its type beside it (analyse/capture/capture_decision.h).
  PatternSet capture_frameworks;
  std::vector<std::string> capture_framework_names;
  PatternSet capture_workloads;
  std::vector<std::string> capture_workload_names;
  PatternSet gpu_peak_names;
  std::vector<std::string> op_type_names;
  std::vector<GpuPeak> gpu_peaks;
  PatternSet op_model_names;  // each op_models pattern anchored at both ends
  std::vector<OpModelPattern> op_models;
  std::vector<GpuArchitecture> gpu_architectures;
  PatternSet architecture_devices;                     // one pattern per entry with `devices`
  std::vector<std::size_t> architecture_device_entry;  // its entry in gpu_architectures
  std::vector<PatternSet> architecture_kernels;        // per entry; empty where it has no `kernels`
  AttributionRules attribution;
  double mfu_min_flops_coverage_pct = 50;
  double tc_min_judged_pct = 50;
  double roofline_target_pct = 50;
  double critical_path_max_kernel_gap_us = 1500;
  bool tc_share_counts_unlaunched_kernels = true;
  bool clock_offset_over_gpu_span = true;
  bool communication_host_time = false;
};

struct NameClasses {
  NameClasses(const CompiledClassification& c, const Profile& p)
      : answers_(std::make_unique<std::atomic<signed char>[]>(kMatchers * p.strings.size())),
        tensor_core_kernel(c.tensor_core_rules, p.strings),
        eligible_op(c.eligible_ops, p.strings, answers(p, 0)),
        layout_conversion_kernel(c.layout_conversion_kernels, p.strings, answers(p, 1)),
        communication_kernel(c.communication_kernels, p.strings, answers(p, 2)),
        communication_op(c.communication_ops, p.strings, answers(p, 3)),
        dataloader_op(c.dataloader_ops, p.strings, answers(p, 4)),
        sync_call(c.sync_calls, p.strings, answers(p, 5)),
        device_sync_call(c.device_sync_calls, p.strings, answers(p, 6)),
        warmup_call(c.warmup_calls, p.strings, answers(p, 7)),
        warmup_range(c.warmup_ranges, p.strings, answers(p, 8)),
        teardown_call(c.teardown_calls, p.strings, answers(p, 9)),
        profiler_event(c.profiler_events, p.strings, answers(p, 10)),
        fused_attention_op(c.fused_attention_ops, p.strings, answers(p, 11)),
        grad_scaler_op(c.grad_scaler_ops, p.strings, answers(p, 12)),
        tensorrt_kernel(c.tensorrt_kernels, p.strings, answers(p, 13)),
        graph_launch(c.graph_launch_calls, p.strings, answers(p, 14)),
        launch_call(c.launch_calls, p.strings, answers(p, 15)),
        blocking_call(c.blocking_calls, p.strings, answers(p, 16)),
        data_parallel_op(c.data_parallel_ops, p.strings, answers(p, 17)),
        distributed_data_parallel_op(c.distributed_data_parallel_ops, p.strings, answers(p, 18)),
        nccl_op(c.nccl_ops, p.strings, answers(p, 19)),
        compiled_kernel(c.compiled_kernel_names, p.strings, answers(p, 20)),
        compiled_region(c.compiled_regions, p.strings, answers(p, 21)),
        synchronous_launch(c.synchronous_launches, p.strings, answers(p, 22)) {}

 private:
  static constexpr std::size_t kMatchers = 23;  // the NameMatchers below, each a slice of answers_
  std::atomic<signed char>* answers(const Profile& p, std::size_t matcher) const {
    return answers_.get() + matcher * p.strings.size();
  }
  std::unique_ptr<std::atomic<signed char>[]> answers_;  // made before the matchers, which use it

 public:
  TensorCoreMatcher tensor_core_kernel;
  NameMatcher eligible_op;
  NameMatcher layout_conversion_kernel;
  NameMatcher communication_kernel;
  NameMatcher communication_op;
  NameMatcher dataloader_op;
  NameMatcher sync_call;
  NameMatcher device_sync_call;
  NameMatcher warmup_call;
  NameMatcher warmup_range;
  NameMatcher teardown_call;
  NameMatcher profiler_event;
  NameMatcher fused_attention_op;
  NameMatcher grad_scaler_op;
  NameMatcher tensorrt_kernel;
  NameMatcher graph_launch;
  NameMatcher launch_call;
  NameMatcher blocking_call;
  NameMatcher data_parallel_op;
  NameMatcher distributed_data_parallel_op;
  NameMatcher nccl_op;
  NameMatcher compiled_kernel;  // a TorchInductor kernel (or the range around its launch), by name
  NameMatcher compiled_region;
  NameMatcher synchronous_launch;  // critical_path_synchronous_launches
};

}  // namespace perfgate
