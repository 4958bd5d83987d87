// The rule set after every file and override, as one YAML file that needs nothing else.
#include <yaml-cpp/yaml.h>

#include <fmt/format.h>

#include "gate/rules.h"
#include "knowledge/classification.h"

namespace perfgate {
namespace {

void pattern_list(YAML::Emitter& out, const char* name, const std::vector<std::string>& patterns) {
  out << YAML::Key << name << YAML::Value << YAML::BeginMap << YAML::Key << "patterns" << YAML::Value
      << YAML::BeginSeq;
  for (const auto& p : patterns) out << YAML::SingleQuoted << p;
  out << YAML::EndSeq << YAML::EndMap;
}

// The knowledge's sections, with the gate's settings where the file format puts them among them.
void classification(YAML::Emitter& out, const Classification& c, const RuleSet& rules) {
  out << YAML::Key << "attribution" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "by_time_containment" << YAML::Value << c.attribute_by_time_containment;
  out << YAML::Key << "external_id_must_enclose" << YAML::Value << c.external_id_must_enclose;
  out << YAML::Key << "count_driver_api_calls" << YAML::Value << c.count_driver_api_calls;
  out << YAML::Key << "tensor_core_share_counts_unlaunched_kernels" << YAML::Value
      << c.tc_share_counts_unlaunched_kernels;
  out << YAML::Key << "fold_nested_nvtx_ops" << YAML::Value << c.fold_nested_nvtx_ops;
  out << YAML::Key << "clock_offset_over_gpu_span" << YAML::Value << c.clock_offset_over_gpu_span;
  out << YAML::Key << "communication_host_time" << YAML::Value << c.communication_host_time;
  out << YAML::EndMap;
  out << YAML::Key << "classification" << YAML::Value << YAML::BeginMap;
  pattern_list(out, "tensor_core_kernels", c.tensor_core_kernels);
  pattern_list(out, "non_tensor_core_kernels", c.non_tensor_core_kernels);
  pattern_list(out, "tensor_core_eligible_ops", c.tensor_core_eligible_ops);
  pattern_list(out, "layout_conversion_kernels", c.layout_conversion_kernels);
  pattern_list(out, "communication_kernels", c.communication_kernels);
  pattern_list(out, "communication_ops", c.communication_ops);
  pattern_list(out, "dataloader_ops", c.dataloader_ops);
  pattern_list(out, "sync_calls", c.sync_calls);
  pattern_list(out, "device_sync_calls", c.device_sync_calls);
  pattern_list(out, "warmup_calls", c.warmup_calls);
  pattern_list(out, "warmup_ranges", c.warmup_ranges);
  pattern_list(out, "teardown_calls", c.teardown_calls);
  pattern_list(out, "profiler_events", c.profiler_events);
  pattern_list(out, "fused_attention_ops", c.fused_attention_ops);
  pattern_list(out, "grad_scaler_ops", c.grad_scaler_ops);
  pattern_list(out, "tensorrt_kernels", c.tensorrt_kernels);
  pattern_list(out, "graph_launch_calls", c.graph_launch_calls);
  pattern_list(out, "critical_path_launch_calls", c.critical_path_launch_calls);
  pattern_list(out, "critical_path_blocking_calls", c.critical_path_blocking_calls);
  pattern_list(out, "critical_path_synchronous_launches", c.critical_path_synchronous_launches);
  pattern_list(out, "data_parallel_ops", c.data_parallel_ops);
  pattern_list(out, "distributed_data_parallel_ops", c.distributed_data_parallel_ops);
  pattern_list(out, "nccl_ops", c.nccl_ops);
  pattern_list(out, "library_frames", c.library_frames);
  pattern_list(out, "profiler_step_ranges", c.profiler_step_ranges);
  pattern_list(out, "nvtx_step_ranges", c.nvtx_step_ranges);
  pattern_list(out, "xspace_step_ranges", c.xspace_step_ranges);
  pattern_list(out, "serving_step_ranges", c.serving_step_ranges);
  pattern_list(out, "compiled_kernels", c.compiled_kernels);
  pattern_list(out, "compiled_regions", c.compiled_regions);
  for (const auto& [key, list] :
       {std::pair{"op_types", &c.op_types}, std::pair{"serving_phases", &c.serving_phases},
        std::pair{"capture_frameworks", &c.capture_frameworks},
        std::pair{"capture_workloads", &c.capture_workloads}}) {
    out << YAML::Key << key << YAML::Value << YAML::BeginMap << YAML::Key << "patterns" << YAML::Value
        << YAML::BeginSeq;
    for (const auto& t : *list)
      out << YAML::Flow << YAML::BeginMap << YAML::Key << "type" << YAML::Value << t.type << YAML::Key
          << "pattern" << YAML::Value << YAML::SingleQuoted << t.pattern << YAML::EndMap;
    out << YAML::EndSeq << YAML::EndMap;
  }
  out << YAML::EndMap;
  out << YAML::Key << "gpu_peaks" << YAML::Value << YAML::BeginMap << YAML::Key << "patterns" << YAML::Value
      << YAML::BeginSeq;
  for (const auto& g : c.gpu_peaks) {
    out << YAML::Flow << YAML::BeginMap << YAML::Key << "match" << YAML::Value << YAML::SingleQuoted
        << g.match;
    if (!g.name.empty()) out << YAML::Key << "name" << YAML::Value << g.name;
    out << YAML::Key << "tflops" << YAML::Value << YAML::BeginMap;
    for (const auto& [precision, tflops] : g.tflops) out << YAML::Key << precision << YAML::Value << tflops;
    out << YAML::EndMap;
    if (g.memory_gbps) out << YAML::Key << "memory_gbps" << YAML::Value << *g.memory_gbps;
    if (!g.source.empty()) out << YAML::Key << "source" << YAML::Value << g.source;
    if (g.measured) out << YAML::Key << "measured" << YAML::Value << true;
    if (!g.untyped_precision.empty())
      out << YAML::Key << "untyped_ops" << YAML::Value << YAML::BeginMap << YAML::Key << "precision"
          << YAML::Value << g.untyped_precision << YAML::Key << "source" << YAML::Value << g.untyped_source
          << YAML::EndMap;
    if (g.host_link_gbps)
      out << YAML::Key << "host_link" << YAML::Value << YAML::BeginMap << YAML::Key << "name" << YAML::Value
          << g.host_link << YAML::Key << "gbps" << YAML::Value << *g.host_link_gbps << YAML::Key << "source"
          << YAML::Value << g.host_link_source << YAML::EndMap;
    out << YAML::EndMap;
  }
  out << YAML::EndSeq << YAML::EndMap;
  out << YAML::Key << "op_models" << YAML::Value << YAML::BeginMap << YAML::Key << "patterns" << YAML::Value
      << YAML::BeginSeq;
  for (const auto& m : c.op_models) {
    out << YAML::Flow << YAML::BeginMap << YAML::Key << "pattern" << YAML::Value << YAML::SingleQuoted
        << m.pattern << YAML::Key << "model" << YAML::Value << m.model << YAML::Key << "flops_per_element"
        << YAML::Value << m.flops_per_element;
    for (auto [key, value] :
         {std::pair{"topk_ops", &m.topk_ops}, std::pair{"gated_kernels", &m.gated_kernels},
          std::pair{"fp4_weight_kernels", &m.fp4_weight_kernels}, std::pair{"batch", &m.batch}})
      if (!value->empty()) out << YAML::Key << key << YAML::Value << YAML::SingleQuoted << *value;
    if (m.model == "serving_attention")
      out << YAML::Key << "query" << YAML::Value << m.query << YAML::Key << "value" << YAML::Value << m.value;
    out << YAML::EndMap;
  }
  out << YAML::EndSeq << YAML::EndMap;
  out << YAML::Key << "kernel_precisions" << YAML::Value << YAML::BeginMap << YAML::Key << "patterns"
      << YAML::Value << YAML::BeginSeq;
  for (const auto& k : c.kernel_precisions) {
    out << YAML::Flow << YAML::BeginMap << YAML::Key << "pattern" << YAML::Value << YAML::SingleQuoted
        << k.pattern << YAML::Key << "precision" << YAML::Value << k.precision << YAML::Key << "peak"
        << YAML::Value << k.peak;
    if (!k.formats.empty()) out << YAML::Key << "formats" << YAML::Value << k.formats;
    out << YAML::EndMap;
  }
  out << YAML::EndSeq << YAML::EndMap;
  // Lists of names as one string of names separated by spaces, as the shipped file writes them: the
  // emitter checks each string it writes, and 214 of them cost a merge of partial reports 0.6%.
  auto joined = [](const std::vector<std::string>& list) {
    std::string text;
    for (const auto& n : list) text += (text.empty() ? "" : " ") + n;
    return text;
  };
  out << YAML::Key << "aten_ops" << YAML::Value << YAML::DoubleQuoted << joined(c.aten_ops);
  out << YAML::Key << "fused_patterns" << YAML::Value << YAML::BeginMap << YAML::Key << "patterns"
      << YAML::Value << YAML::BeginSeq;
  for (const auto& f : c.fused_patterns) {
    out << YAML::Flow << YAML::BeginMap << YAML::Key << "name" << YAML::Value << f.name;
    auto names = [&](const char* key, const std::vector<std::string>& list) {
      if (!list.empty()) out << YAML::Key << key << YAML::Value << YAML::DoubleQuoted << joined(list);
    };
    names("kinds", f.kinds);
    names("all", f.all);
    names("any", f.any);
    if (!f.model.empty()) out << YAML::Key << "model" << YAML::Value << f.model;
    out << YAML::EndMap;
  }
  out << YAML::EndSeq << YAML::EndMap;
  out << YAML::Key << "compute" << YAML::Value << YAML::BeginMap << YAML::Key << "mfu_min_flops_coverage_pct"
      << YAML::Value << c.mfu_min_flops_coverage_pct << YAML::Key << "tensor_core_min_judged_pct"
      << YAML::Value << c.tc_min_judged_pct << YAML::Key << "roofline_target_pct" << YAML::Value
      << c.roofline_target_pct << YAML::EndMap;
  out << YAML::Key << "advice" << YAML::Value << YAML::BeginMap << YAML::Key << "fix_first_min_gain_pct"
      << YAML::Value << rules.fix_first_min_gain_pct;
  if (!rules.idle_causes.empty()) {
    out << YAML::Key << "idle_causes" << YAML::Value << YAML::BeginSeq;
    for (const ClaimedCause& cause : rules.idle_causes)
      out << YAML::Flow << YAML::BeginMap << YAML::Key << "name" << YAML::Value << cause.name << YAML::Key
          << "host" << YAML::Value << cause.host << YAML::Key << "evidence" << YAML::Value << cause.evidence
          << YAML::Key << "source" << YAML::Value << cause.source << YAML::EndMap;
    out << YAML::EndSeq;
  }
  out << YAML::EndMap;
  out << YAML::Key << "critical_path" << YAML::Value << YAML::BeginMap << YAML::Key << "max_kernel_gap_us"
      << YAML::Value << c.critical_path_max_kernel_gap_us << YAML::Key << "min_coverage_pct" << YAML::Value
      << rules.critical_path_min_coverage_pct << YAML::EndMap;
  out << YAML::Key << "gpu_architectures" << YAML::Value << YAML::BeginMap << YAML::Key << "patterns"
      << YAML::Value << YAML::BeginSeq;
  for (const auto& a : c.gpu_architectures) {
    out << YAML::Flow << YAML::BeginMap;
    if (!a.name.empty()) out << YAML::Key << "name" << YAML::Value << a.name;
    out << YAML::Key << "vendor" << YAML::Value << a.vendor;
    if (a.compute_major >= 0)
      out << YAML::Key << "compute_capability" << YAML::Value << YAML::DoubleQuoted
          << fmt::format("{}.{}", a.compute_major, a.compute_minor);
    if (!a.devices.empty()) out << YAML::Key << "devices" << YAML::Value << YAML::SingleQuoted << a.devices;
    if (!a.kernels.empty()) out << YAML::Key << "kernels" << YAML::Value << YAML::SingleQuoted << a.kernels;
    out << YAML::EndMap;
  }
  out << YAML::EndSeq << YAML::EndMap;
  out << YAML::Key << "memory_categories" << YAML::Value << YAML::BeginMap << YAML::Key << "patterns"
      << YAML::Value << YAML::BeginSeq;
  for (const auto& m : c.memory_categories) {
    out << YAML::Flow << YAML::BeginMap << YAML::Key << "category" << YAML::Value << m.category;
    if (!m.file.empty()) out << YAML::Key << "file" << YAML::Value << YAML::SingleQuoted << m.file;
    if (!m.function.empty())
      out << YAML::Key << "function" << YAML::Value << YAML::SingleQuoted << m.function;
    out << YAML::EndMap;
  }
  out << YAML::EndSeq << YAML::EndMap;
}

void text(YAML::Emitter& out, const char* key, const std::string& value) {
  if (!value.empty()) out << YAML::Key << key << YAML::Value << value;
}

void rule(YAML::Emitter& out, const Rule& r) {
  out << YAML::BeginMap;
  text(out, "id", r.id);
  text(out, "title", r.title);
  if (!r.enabled) out << YAML::Key << "enabled" << YAML::Value << false;
  text(out, "metric", r.metric);
  text(out, "value", r.value);
  text(out, "unit", r.unit);
  text(out, "condition", r.condition);
  text(out, "applies_if", r.applies_if);
  if (!r.families.empty()) {
    out << YAML::Key << "family" << YAML::Value << YAML::Flow << YAML::BeginSeq;
    for (DeviceFamily f : r.families) out << std::string(device_family_name(f));
    out << YAML::EndSeq;
  }
  if (!r.frameworks.empty()) {
    out << YAML::Key << "frameworks" << YAML::Value << YAML::Flow << YAML::BeginSeq;
    for (const std::string& f : r.frameworks) out << f;
    out << YAML::EndSeq;
  }
  if (r.compare_baseline) out << YAML::Key << "compare" << YAML::Value << "baseline";
  if (r.better)
    out << YAML::Key << "better" << YAML::Value << (*r.better == Better::Lower ? "lower" : "higher");
  text(out, "warn", r.warn_text);
  text(out, "fail", r.fail_text);
  out << YAML::Key << "severity" << YAML::Value << (r.severity == Severity::Error ? "error" : "warning");
  if (r.test != StepTest::None) {
    out << YAML::Key << "test" << YAML::Value << (r.test == StepTest::RobustT ? "robust-t" : "mann-whitney");
    out << YAML::Key << "alpha" << YAML::Value << r.alpha;
    out << YAML::Key << "confidence" << YAML::Value << r.confidence;
    const char* as = r.inconclusive == InconclusiveAs::Error  ? "error"
                     : r.inconclusive == InconclusiveAs::Pass ? "pass"
                                                              : "warning";
    out << YAML::Key << "inconclusive" << YAML::Value << as;
  }
  text(out, "gain", r.gain);
  text(out, "saves", r.saves);
  text(out, "on_path", r.on_path);
  text(out, "claims", r.claims);
  text(out, "pass_needs", r.pass_needs);
  if (!r.values.empty()) {
    out << YAML::Key << "values" << YAML::Value << YAML::BeginMap;
    for (const auto& [name, expression] : r.values) out << YAML::Key << name << YAML::Value << expression;
    out << YAML::EndMap;
  }
  if (r.offenders) {
    const OffenderQuery& q = *r.offenders;
    out << YAML::Key << "offenders" << YAML::Value << YAML::BeginMap;
    text(out, "table", q.table);
    text(out, "where", q.where);
    text(out, "sort", q.sort);
    text(out, "label", q.label);
    text(out, "show", q.show);
    out << YAML::Key << "limit" << YAML::Value << q.limit << YAML::EndMap;
  }
  text(out, "problem", r.problem);
  text(out, "recommendation", r.recommendation);
  if (!r.recommendations.empty()) {
    out << YAML::Key << "recommendations" << YAML::Value << YAML::BeginSeq;
    for (const auto& c : r.recommendations) {
      out << YAML::BeginMap;
      if (!c.when.empty()) out << YAML::Key << "when" << YAML::Value << c.when;
      if (!c.formats.empty()) out << YAML::Key << "formats" << YAML::Value << YAML::Flow << c.formats;
      if (!c.vendors.empty()) out << YAML::Key << "vendors" << YAML::Value << YAML::Flow << c.vendors;
      if (!c.workload.empty()) out << YAML::Key << "workload" << YAML::Value << c.workload;
      if (!c.claims.empty()) out << YAML::Key << "claims" << YAML::Value << c.claims;
      if (!c.devices.empty()) out << YAML::Key << "devices" << YAML::Value << YAML::Flow << c.devices;
      if (!c.frameworks.empty())
        out << YAML::Key << "frameworks" << YAML::Value << YAML::Flow << c.frameworks;
      if (!c.workloads.empty()) out << YAML::Key << "workloads" << YAML::Value << YAML::Flow << c.workloads;
      if (!c.phases.empty()) out << YAML::Key << "phases" << YAML::Value << YAML::Flow << c.phases;
      if (!c.docs.empty()) out << YAML::Key << "docs" << YAML::Value << c.docs;
      out << YAML::Key << "text" << YAML::Value << c.text << YAML::EndMap;
    }
    out << YAML::EndSeq;
  }
  if (!r.see.empty()) {
    out << YAML::Key << "see" << YAML::Value << YAML::Flow << YAML::BeginSeq;
    for (const auto& name : r.see) out << name;
    out << YAML::EndSeq;
  }
  text(out, "docs", r.docs);
  text(out, "source", r.source);
  out << YAML::EndMap;
}

// `vocabulary:` as read, so that the file reads back the same words and terms.
void vocabulary(YAML::Emitter& out, const RuleSet& set) {
  if (set.words.empty() && set.framework_terms.empty()) return;
  out << YAML::Key << "vocabulary" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "words" << YAML::Value << YAML::BeginSeq;
  for (const VocabularyWords& w : set.words) {
    out << YAML::BeginMap << YAML::Key << "for" << YAML::Value << w.for_capture;
    for (const auto& [name, word] : w.words) out << YAML::Key << name << YAML::Value << word;
    out << YAML::Key << "source" << YAML::Value << w.source << YAML::EndMap;
  }
  out << YAML::EndSeq << YAML::Key << "framework_terms" << YAML::Value << YAML::BeginSeq;
  for (const FrameworkTerms& g : set.framework_terms) {
    out << YAML::BeginMap << YAML::Key << "terms" << YAML::Value << YAML::Flow << g.terms;
    for (const auto& [key, list] : {std::pair{"frameworks", &g.frameworks}, std::pair{"devices", &g.devices},
                                    std::pair{"workloads", &g.workloads}, std::pair{"formats", &g.formats}})
      if (!list->empty()) out << YAML::Key << key << YAML::Value << YAML::Flow << *list;
    out << YAML::Key << "source" << YAML::Value << g.source << YAML::EndMap;
  }
  out << YAML::EndSeq << YAML::EndMap;
}

// `capture:` as the files set it, so that the printed file overrides the same fields.
void capture(YAML::Emitter& out, const CaptureOverride& c) {
  if (!c.devices && !c.frameworks && !c.workload && !c.phases) return;
  out << YAML::Key << "capture" << YAML::Value << YAML::BeginMap;
  if (c.devices) {
    out << YAML::Key << "devices" << YAML::Value << YAML::BeginSeq;
    for (const CaptureDevices& d : *c.devices) {
      out << YAML::BeginMap << YAML::Key << "kind" << YAML::Value << std::string(device_kind_name(d.kind));
      out << YAML::Key << "vendor" << YAML::Value << std::string(device_vendor_name(d.vendor));
      if (!d.model.empty()) out << YAML::Key << "model" << YAML::Value << d.model;
      if (d.count > 0) out << YAML::Key << "count" << YAML::Value << d.count;
      out << YAML::EndMap;
    }
    out << YAML::EndSeq;
  }
  if (c.frameworks) {
    out << YAML::Key << "frameworks" << YAML::Value << YAML::Flow << YAML::BeginSeq;
    for (const CaptureFramework& f : *c.frameworks) out << f.name;
    out << YAML::EndSeq;
  }
  if (c.workload)
    out << YAML::Key << "workload" << YAML::Value << std::string(capture_workload_name(*c.workload));
  if (c.phases) {
    out << YAML::Key << "phases" << YAML::Value << YAML::BeginMap;
    for (const auto& [key, value] :
         {std::pair{"window_us", &c.phases->window_us}, std::pair{"setup_us", &c.phases->setup_us},
          std::pair{"teardown_us", &c.phases->teardown_us}, std::pair{"profiler_us", &c.phases->profiler_us},
          std::pair{"steady_us", &c.phases->steady_us}})
      if (*value) out << YAML::Key << key << YAML::Value << **value;
    out << YAML::EndMap;
  }
  out << YAML::EndMap;
}

}  // namespace

std::string effective_rules_yaml(const Classification& knowledge, const RuleSet& set) {
  YAML::Emitter out;
  out << YAML::BeginMap;
  out << YAML::Key << "schema" << YAML::Value << "perfgate-rules/1";
  out << YAML::Key << "extends" << YAML::Value << "none";
  classification(out, knowledge, set);
  vocabulary(out, set);
  capture(out, set.capture);
  out << YAML::Key << "rules" << YAML::Value << YAML::BeginSeq;
  for (const Rule& r : set.rules) rule(out, r);
  out << YAML::EndSeq << YAML::EndMap;
  std::string sources;
  for (const auto& s : set.sources) sources += (sources.empty() ? "" : ", ") + s;
  return fmt::format("# perfgate's effective rules: {}\n{}\n", sources, out.c_str());
}

}  // namespace perfgate
