#include "knowledge/classification_section.h"

#include <algorithm>
#include <array>
#include <sstream>
#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace perfgate {
namespace {

constexpr std::array<std::string_view, 34> kPatternLists = {"tensor_core_kernels",
                                                            "non_tensor_core_kernels",
                                                            "tensor_core_eligible_ops",
                                                            "layout_conversion_kernels",
                                                            "communication_kernels",
                                                            "communication_ops",
                                                            "dataloader_ops",
                                                            "sync_calls",
                                                            "device_sync_calls",
                                                            "warmup_calls",
                                                            "warmup_ranges",
                                                            "teardown_calls",
                                                            "profiler_events",
                                                            "fused_attention_ops",
                                                            "grad_scaler_ops",
                                                            "tensorrt_kernels",
                                                            "graph_launch_calls",
                                                            "critical_path_launch_calls",
                                                            "critical_path_blocking_calls",
                                                            "critical_path_synchronous_launches",
                                                            "data_parallel_ops",
                                                            "distributed_data_parallel_ops",
                                                            "nccl_ops",
                                                            "library_frames",
                                                            "profiler_step_ranges",
                                                            "nvtx_step_ranges",
                                                            "xspace_step_ranges",
                                                            "serving_step_ranges",
                                                            "compiled_kernels",
                                                            "compiled_regions",
                                                            "op_types",
                                                            "serving_phases",
                                                            "capture_frameworks",
                                                            "capture_workloads"};
constexpr std::array<std::string_view, 2> kListKeys = {"patterns", "add"};
constexpr std::array<std::string_view, 3> kPatternKeys = {"pattern", "source", "note"};
constexpr std::array<std::string_view, 4> kOpTypeKeys = {"type", "pattern", "source", "note"};
constexpr std::array<std::string_view, 9> kPeakKeys = {
    "match", "name", "tflops", "memory_gbps", "source", "measured", "note", "untyped_ops", "host_link"};
constexpr std::array<std::string_view, 2> kUntypedKeys = {"precision", "source"};
constexpr std::array<std::string_view, 3> kHostLinkKeys = {"name", "gbps", "source"};
constexpr std::array<std::string_view, 11> kOpModelKeys = {
    "pattern",  "model",         "flops_per_element",  "source", "note",
    "topk_ops", "gated_kernels", "fp4_weight_kernels", "batch",  "query",
    "value"};
constexpr std::array<std::string_view, 17> kOpModels = {"gemm",
                                                        "conv",
                                                        "attention",
                                                        "unary",
                                                        "fill",
                                                        "binary",
                                                        "copy",
                                                        "reduce",
                                                        "softmax",
                                                        "softmax_backward",
                                                        "layer_norm",
                                                        "layer_norm_backward",
                                                        "batch_norm",
                                                        "batch_norm_backward",
                                                        "rms_norm",
                                                        "moe",
                                                        "serving_attention"};
constexpr std::array<std::string_view, 7> kFusedPatternKeys = {"name",  "kinds",  "all", "any",
                                                               "model", "source", "note"};
constexpr std::array<std::string_view, 8> kArchitectureKeys = {
    "name", "vendor", "compute_capability", "devices", "kernels", "source", "note", "example"};
constexpr std::array<std::string_view, 9> kPrecisions = {"fp64", "fp32", "tf32", "fp16", "bf16",
                                                         "fp8",  "fp6",  "fp4",  "int8"};
// A kernel's precision: the peak precisions and the block-scaled formats whose peak is their
// element type's (MXFP8: FP8; MXFP6: FP6; MXFP4 and NVFP4: FP4).
constexpr std::array<std::string_view, 13> kKernelPrecisions = {
    "fp64", "fp32", "tf32", "fp16", "bf16", "fp8", "fp6", "fp4", "int8", "mxfp8", "mxfp6", "mxfp4", "nvfp4"};
constexpr std::array<std::string_view, 6> kKernelPrecisionKeys = {"pattern", "precision", "peak",
                                                                  "formats", "source",    "note"};
constexpr std::array<std::string_view, 5> kMemoryCategoryKeys = {"category", "file", "function", "source",
                                                                 "note"};
constexpr std::array<std::string_view, 7> kAttributionKeys = {
    "by_time_containment",    "external_id_must_enclose",
    "count_driver_api_calls", "tensor_core_share_counts_unlaunched_kernels",
    "fold_nested_nvtx_ops",   "clock_offset_over_gpu_span",
    "communication_host_time"};

std::vector<std::string>& pattern_list(Classification& c, std::string_view name) {
  if (name == "tensor_core_kernels") return c.tensor_core_kernels;
  if (name == "non_tensor_core_kernels") return c.non_tensor_core_kernels;
  if (name == "tensor_core_eligible_ops") return c.tensor_core_eligible_ops;
  if (name == "layout_conversion_kernels") return c.layout_conversion_kernels;
  if (name == "communication_kernels") return c.communication_kernels;
  if (name == "communication_ops") return c.communication_ops;
  if (name == "sync_calls") return c.sync_calls;
  if (name == "device_sync_calls") return c.device_sync_calls;
  if (name == "warmup_calls") return c.warmup_calls;
  if (name == "warmup_ranges") return c.warmup_ranges;
  if (name == "teardown_calls") return c.teardown_calls;
  if (name == "profiler_events") return c.profiler_events;
  if (name == "fused_attention_ops") return c.fused_attention_ops;
  if (name == "grad_scaler_ops") return c.grad_scaler_ops;
  if (name == "tensorrt_kernels") return c.tensorrt_kernels;
  if (name == "graph_launch_calls") return c.graph_launch_calls;
  if (name == "critical_path_launch_calls") return c.critical_path_launch_calls;
  if (name == "critical_path_blocking_calls") return c.critical_path_blocking_calls;
  if (name == "critical_path_synchronous_launches") return c.critical_path_synchronous_launches;
  if (name == "data_parallel_ops") return c.data_parallel_ops;
  if (name == "distributed_data_parallel_ops") return c.distributed_data_parallel_ops;
  if (name == "nccl_ops") return c.nccl_ops;
  if (name == "library_frames") return c.library_frames;
  if (name == "profiler_step_ranges") return c.profiler_step_ranges;
  if (name == "nvtx_step_ranges") return c.nvtx_step_ranges;
  if (name == "xspace_step_ranges") return c.xspace_step_ranges;
  if (name == "serving_step_ranges") return c.serving_step_ranges;
  if (name == "compiled_kernels") return c.compiled_kernels;
  if (name == "compiled_regions") return c.compiled_regions;
  return c.dataloader_ops;
}

// The lists whose entries name what they match (type: and pattern:), or null.
std::vector<OpTypePattern>* typed_list(Classification& c, std::string_view name) {
  if (name == "op_types") return &c.op_types;
  if (name == "serving_phases") return &c.serving_phases;
  if (name == "capture_frameworks") return &c.capture_frameworks;
  if (name == "capture_workloads") return &c.capture_workloads;
  return nullptr;
}

std::optional<std::string> read_pattern(YamlCheck& check, const YAML::Node& item, std::string_view list) {
  if (!item.IsMap()) return check.pattern(item, list);
  check.known_keys(item, kPatternKeys, list);
  if (!item["pattern"]) {
    check.error(item, "a pattern entry needs 'pattern'");
    return std::nullopt;
  }
  return check.pattern(item["pattern"], "pattern");
}

// A Tensor Core list's entry with its `source:` ("" for a bare pattern or an entry without one): the
// kernels table names the source of the entry that decided (tc_rule_source).
std::optional<std::pair<std::string, std::string>> read_sourced_pattern(YamlCheck& check,
                                                                        const YAML::Node& item,
                                                                        std::string_view list) {
  std::optional<std::string> pattern = read_pattern(check, item, list);
  if (!pattern) return std::nullopt;
  std::string source;
  if (item.IsMap() && item["source"]) source = check.string(item["source"], "source").value_or("");
  return std::pair{std::move(*pattern), std::move(source)};
}

std::optional<OpTypePattern> read_op_type(YamlCheck& check, const YAML::Node& item, const std::string& list) {
  if (!check.is_map(item, list + " entry")) return std::nullopt;
  check.known_keys(item, kOpTypeKeys, list);
  if (!item["type"] || !item["pattern"]) {
    check.error(item, "an " + list + " entry needs 'type' and 'pattern'");
    return std::nullopt;
  }
  auto type = check.string(item["type"], "type");
  auto pattern = check.pattern(item["pattern"], "pattern");
  if (!type || !pattern) return std::nullopt;
  if (list == "serving_phases" && *type != "decode" && *type != "prefill" && *type != "mixed") {
    check.error(item["type"], "a serving_phases type is decode, prefill or mixed");
    return std::nullopt;
  }
  if (list == "capture_workloads" && *type != "training" && *type != "serving" &&
      *type != "offline-inference" && *type != "benchmark") {
    check.error(item["type"],
                "a capture_workloads type is training, serving, offline-inference or benchmark");
    return std::nullopt;
  }
  return OpTypePattern{*type, *pattern};
}

std::optional<GpuPeak> read_peak(YamlCheck& check, const YAML::Node& item) {
  if (!check.is_map(item, "gpu_peaks entry")) return std::nullopt;
  check.known_keys(item, kPeakKeys, "gpu_peaks");
  if (!item["match"] || !item["tflops"]) {
    check.error(item, "a gpu_peaks entry needs 'match' and 'tflops'");
    return std::nullopt;
  }
  GpuPeak peak;
  auto match = check.pattern(item["match"], "match");
  if (!match) return std::nullopt;
  peak.match = *match;
  if (item["name"]) peak.name = check.string(item["name"], "name").value_or("");
  if (!check.is_map(item["tflops"], "tflops")) return std::nullopt;
  check.known_keys(item["tflops"], kPrecisions, "tflops");
  for (const auto& entry : item["tflops"]) {
    auto value = check.number(entry.second, entry.first.Scalar());
    if (value && *value <= 0) check.error(entry.second, "a peak must be positive");
    if (value && *value > 0) peak.tflops.emplace_back(entry.first.Scalar(), *value);
  }
  if (YAML::Node bw = item["memory_gbps"]) {
    auto value = check.number(bw, "memory_gbps");
    if (value && *value <= 0) check.error(bw, "a bandwidth must be positive");
    if (value && *value > 0) peak.memory_gbps = *value;
  }
  if (item["source"]) peak.source = check.string(item["source"], "source").value_or("");
  if (item["measured"]) peak.measured = check.boolean(item["measured"], "measured").value_or(false);
  if (YAML::Node untyped = item["untyped_ops"]; untyped && check.is_map(untyped, "untyped_ops")) {
    check.known_keys(untyped, kUntypedKeys, "untyped_ops");
    if (!untyped["precision"] || !untyped["source"]) {
      check.error(untyped, "untyped_ops needs 'precision' and 'source'");
    } else {
      peak.untyped_precision = check.string(untyped["precision"], "precision").value_or("");
      peak.untyped_source = check.string(untyped["source"], "source").value_or("");
      if (!peak.peak(peak.untyped_precision))
        check.error(untyped["precision"], "untyped_ops: the entry has no tflops for this precision");
    }
  }
  if (YAML::Node link = item["host_link"]; link && check.is_map(link, "host_link")) {
    check.known_keys(link, kHostLinkKeys, "host_link");
    if (!link["name"] || !link["gbps"] || !link["source"]) {
      check.error(link, "host_link needs 'name', 'gbps' and 'source'");
    } else {
      peak.host_link = check.string(link["name"], "name").value_or("");
      auto gbps = check.number(link["gbps"], "gbps");
      if (gbps && *gbps <= 0) check.error(link["gbps"], "a bandwidth must be positive");
      if (gbps && *gbps > 0) peak.host_link_gbps = *gbps;
      peak.host_link_source = check.string(link["source"], "source").value_or("");
    }
  }
  return peak;
}

// What the moe and serving_attention models read beyond the op's own arguments (docs/rules.md).
void read_serving_keys(YamlCheck& check, const YAML::Node& item, OpModelPattern& m) {
  for (auto [key, field] :
       {std::pair{"topk_ops", &m.topk_ops}, std::pair{"gated_kernels", &m.gated_kernels},
        std::pair{"fp4_weight_kernels", &m.fp4_weight_kernels}, std::pair{"batch", &m.batch}})
    if (YAML::Node v = item[key]) *field = check.pattern(v, key).value_or("");
  for (auto [key, field] : {std::pair{"query", &m.query}, std::pair{"value", &m.value}})
    if (YAML::Node v = item[key]) {
      auto n = check.number(v, key);
      if (n && (*n < 0 || *n > 64 || *n != static_cast<int>(*n)))
        check.error(v, fmt::format("{} is an input position, 0 to 64", key));
      else if (n)
        *field = static_cast<int>(*n);
    }
  if (m.model == "moe" && m.topk_ops.empty()) check.error(item, "a moe model needs 'topk_ops'");
  if (m.model == "serving_attention" && m.batch.empty())
    check.error(item, "a serving_attention model needs 'batch'");
}

std::optional<OpModelPattern> read_op_model(YamlCheck& check, const YAML::Node& item) {
  if (!check.is_map(item, "op_models entry")) return std::nullopt;
  check.known_keys(item, kOpModelKeys, "op_models");
  if (!item["pattern"] || !item["model"]) {
    check.error(item, "an op_models entry needs 'pattern' and 'model'");
    return std::nullopt;
  }
  auto pattern = check.pattern(item["pattern"], "pattern");
  auto model = check.string(item["model"], "model");
  if (!pattern || !model) return std::nullopt;
  if (std::find(kOpModels.begin(), kOpModels.end(), *model) == kOpModels.end()) {
    check.error(item["model"],
                fmt::format("unknown model '{}' (one of: {})", *model, fmt::join(kOpModels, ", ")));
    return std::nullopt;
  }
  OpModelPattern m;
  m.pattern = *pattern;
  m.model = *model;
  if (YAML::Node f = item["flops_per_element"]) {
    auto value = check.number(f, "flops_per_element");
    if (value && *value < 0) check.error(f, "flops_per_element must not be negative");
    if (value && *value >= 0) m.flops_per_element = *value;
  }
  read_serving_keys(check, item, m);
  return m;
}

// The peak a block-scaled format runs at is its element type's; the others their own.
std::string default_peak(std::string_view precision) {
  if (precision == "mxfp8") return "fp8";
  if (precision == "mxfp6") return "fp6";
  if (precision == "mxfp4" || precision == "nvfp4") return "fp4";
  return std::string(precision);
}

std::optional<std::string> read_precision_name(YamlCheck& check, const YAML::Node& node,
                                               std::string_view key) {
  auto name = check.string(node, key);
  if (!name) return std::nullopt;
  if (std::find(kKernelPrecisions.begin(), kKernelPrecisions.end(), *name) != kKernelPrecisions.end())
    return name;
  check.error(node,
              fmt::format("unknown precision '{}' (one of: {})", *name, fmt::join(kKernelPrecisions, ", ")));
  return std::nullopt;
}

std::optional<KernelPrecisionPattern> read_kernel_precision(YamlCheck& check, const YAML::Node& item) {
  if (!check.is_map(item, "kernel_precisions entry")) return std::nullopt;
  check.known_keys(item, kKernelPrecisionKeys, "kernel_precisions");
  if (!item["pattern"] || !item["precision"]) {
    check.error(item, "a kernel_precisions entry needs 'pattern' and 'precision'");
    return std::nullopt;
  }
  auto pattern = check.pattern(item["pattern"], "pattern");
  auto precision = read_precision_name(check, item["precision"], "precision");
  if (!pattern || !precision) return std::nullopt;
  KernelPrecisionPattern k{*pattern, *precision, default_peak(*precision), ""};
  if (YAML::Node peak = item["peak"]) {
    auto name = read_precision_name(check, peak, "peak");
    if (name && std::find(kPrecisions.begin(), kPrecisions.end(), *name) == kPrecisions.end())
      check.error(peak, fmt::format("a peak is one of: {}", fmt::join(kPrecisions, ", ")));
    else if (name)
      k.peak = *name;
  }
  if (item["formats"]) k.formats = check.string(item["formats"], "formats").value_or("");
  return k;
}

// A list of plain names (aten_ops, a fused pattern's kinds and ops): a YAML list of names, or one
// string of names separated by spaces (what the shipped file writes: a list of 214 names read as
// as many YAML nodes cost 1.5% of a small trace's run).
std::vector<std::string> read_names(YamlCheck& check, const YAML::Node& node, std::string_view what) {
  std::vector<std::string> out;
  if (node.IsScalar()) {
    std::istringstream words(node.Scalar());
    for (std::string name; words >> name;) out.push_back(std::move(name));
    return out;
  }
  if (!check.is_list(node, what)) return out;
  for (const auto& item : node) {
    auto name = check.string(item, what);
    if (name && name->empty()) check.error(item, fmt::format("an empty name in '{}'", what));
    if (name && !name->empty()) out.push_back(*name);
  }
  return out;
}

// One pass over the entry's keys (a lookup by key walks the map each time).
std::optional<FusedPattern> read_fused_pattern(YamlCheck& check, const YAML::Node& item) {
  if (!check.is_map(item, "fused_patterns entry")) return std::nullopt;
  check.known_keys(item, kFusedPatternKeys, "fused_patterns");
  FusedPattern f;
  bool named = false, conditions = false;
  for (const auto& entry : item) {
    const std::string& key = entry.first.Scalar();
    if (key == "name") {
      f.name = check.string(entry.second, "name").value_or("");
      named = true;
    } else if (key == "kinds") {
      f.kinds = read_names(check, entry.second, "kinds");
    } else if (key == "all" || key == "any") {
      (key == "all" ? f.all : f.any) = read_names(check, entry.second, key);
      conditions = true;
    } else if (key == "model") {
      f.model = check.string(entry.second, "model").value_or("");
      if (f.model != "gemm")
        check.error(entry.second, fmt::format("unknown model '{}' (one of: gemm)", f.model));
    }
  }
  if (!named || !conditions) {
    check.error(item, "a fused_patterns entry needs 'name' and 'all' or 'any'");
    return std::nullopt;
  }
  return f;
}

// compute_capability: "8.6" (a string, so that 8.10 stays apart from 8.1).
std::optional<GpuArchitecture> read_architecture(YamlCheck& check, const YAML::Node& item) {
  if (!check.is_map(item, "gpu_architectures entry")) return std::nullopt;
  check.known_keys(item, kArchitectureKeys, "gpu_architectures");
  if (!item["vendor"] || (!item["devices"] && !item["kernels"])) {
    check.error(item, "a gpu_architectures entry needs 'vendor' and 'devices' or 'kernels'");
    return std::nullopt;
  }
  GpuArchitecture a;
  a.vendor = check.string(item["vendor"], "vendor").value_or("");
  if (item["name"]) a.name = check.string(item["name"], "name").value_or("");
  if (item["devices"]) a.devices = check.pattern(item["devices"], "devices").value_or("");
  if (item["kernels"]) a.kernels = check.pattern(item["kernels"], "kernels").value_or("");
  if (item["kernels"] && (a.name.empty() || !item["compute_capability"]))
    check.error(item, "an entry with 'kernels' needs 'name' and 'compute_capability'");
  if (YAML::Node cc = item["compute_capability"]) {
    std::string text = check.string(cc, "compute_capability").value_or("");
    int major = -1, minor = -1;
    char dot = 0;
    std::istringstream in(text);
    if (!(in >> major >> dot >> minor) || dot != '.' || !in.eof() || major < 1 || minor < 0)
      check.error(cc, fmt::format("compute_capability '{}' is not MAJOR.MINOR, e.g. \"8.6\"", text));
    a.compute_major = major;
    a.compute_minor = minor;
  }
  return a;
}

// A frame pattern of memory_categories: a category and a file or function pattern, or both.
std::optional<MemoryCategoryPattern> read_memory_category(YamlCheck& check, const YAML::Node& item) {
  if (!check.is_map(item, "memory_categories entry")) return std::nullopt;
  check.known_keys(item, kMemoryCategoryKeys, "memory_categories");
  if (!item["category"] || (!item["file"] && !item["function"])) {
    check.error(item, "a memory_categories entry needs 'category' and 'file' or 'function'");
    return std::nullopt;
  }
  MemoryCategoryPattern m;
  m.category = check.string(item["category"], "category").value_or("");
  if (m.category.empty()) check.error(item["category"], "a memory category needs a name");
  if (item["file"]) m.file = check.pattern(item["file"], "file").value_or("");
  if (item["function"]) m.function = check.pattern(item["function"], "function").value_or("");
  return m;
}

// A list section: `patterns:` replaces the inherited entries, `add:` puts entries before them
// (so they win where the first match counts).
template <typename T, typename Read>
void read_list(YamlCheck& check, const YAML::Node& node, std::string_view name, std::vector<T>& list,
               Read read) {
  if (!node.IsMap())
    return check.error(node, fmt::format("'{}' must be a mapping with 'patterns' or 'add'", name));
  check.known_keys(node, kListKeys, name);
  auto entries = [&](const YAML::Node& items) {
    std::vector<T> out;
    if (!check.is_list(items, name)) return out;
    for (const auto& item : items)
      if (auto value = read(item)) out.push_back(std::move(*value));
    return out;
  };
  if (YAML::Node replace = node["patterns"]) list = entries(replace);
  if (YAML::Node add = node["add"]) {
    std::vector<T> added = entries(add);
    list.insert(list.begin(), added.begin(), added.end());
  }
}

// A Tensor Core list read with its entries' sources, the two kept side by side (an inherited list
// replaced or added to as read_list does).
void read_sourced_list(YamlCheck& check, const YAML::Node& node, const std::string& name, Classification& c) {
  bool simt = name == "non_tensor_core_kernels";
  std::vector<std::string>& patterns = simt ? c.non_tensor_core_kernels : c.tensor_core_kernels;
  std::vector<std::string>& sources = simt ? c.non_tensor_core_kernel_sources : c.tensor_core_kernel_sources;
  std::vector<std::pair<std::string, std::string>> entries;
  for (std::size_t i = 0; i < patterns.size(); ++i)
    entries.emplace_back(patterns[i], i < sources.size() ? sources[i] : "");
  read_list(check, node, name, entries,
            [&](const YAML::Node& i) { return read_sourced_pattern(check, i, name); });
  patterns.clear();
  sources.clear();
  for (auto& [pattern, source] : entries) {
    patterns.push_back(std::move(pattern));
    sources.push_back(std::move(source));
  }
}

void read_classification(YamlCheck& check, const YAML::Node& node, Classification& out) {
  if (!node.IsMap()) return check.error(node, "'classification' must be a mapping of pattern lists");
  check.known_keys(node, kPatternLists, "classification");
  for (const auto& entry : node) {
    std::string name = entry.first.Scalar();
    if (std::vector<OpTypePattern>* typed = typed_list(out, name)) {
      read_list(check, entry.second, name, *typed,
                [&](const YAML::Node& i) { return read_op_type(check, i, name); });
    } else if (name == "tensor_core_kernels" || name == "non_tensor_core_kernels") {
      read_sourced_list(check, entry.second, name, out);
    } else if (std::find(kPatternLists.begin(), kPatternLists.end(), name) != kPatternLists.end()) {
      read_list(check, entry.second, name, pattern_list(out, name),
                [&](const YAML::Node& i) { return read_pattern(check, i, name); });
    }
  }
}

void read_attribution(YamlCheck& check, const YAML::Node& node, Classification& out) {
  if (!check.is_map(node, "attribution")) return;
  check.known_keys(node, kAttributionKeys, "attribution");
  if (YAML::Node v = node["by_time_containment"])
    if (auto b = check.boolean(v, "by_time_containment")) out.attribute_by_time_containment = *b;
  if (YAML::Node v = node["external_id_must_enclose"])
    if (auto b = check.boolean(v, "external_id_must_enclose")) out.external_id_must_enclose = *b;
  if (YAML::Node v = node["count_driver_api_calls"])
    if (auto b = check.boolean(v, "count_driver_api_calls")) out.count_driver_api_calls = *b;
  if (YAML::Node v = node["tensor_core_share_counts_unlaunched_kernels"])
    if (auto b = check.boolean(v, "tensor_core_share_counts_unlaunched_kernels"))
      out.tc_share_counts_unlaunched_kernels = *b;
  if (YAML::Node v = node["fold_nested_nvtx_ops"])
    if (auto b = check.boolean(v, "fold_nested_nvtx_ops")) out.fold_nested_nvtx_ops = *b;
  if (YAML::Node v = node["clock_offset_over_gpu_span"])
    if (auto b = check.boolean(v, "clock_offset_over_gpu_span")) out.clock_offset_over_gpu_span = *b;
  if (YAML::Node v = node["communication_host_time"])
    if (auto b = check.boolean(v, "communication_host_time")) out.communication_host_time = *b;
}

void read_gpu_peaks(YamlCheck& check, const YAML::Node& node, Classification& out) {
  read_list(check, node, "gpu_peaks", out.gpu_peaks,
            [&](const YAML::Node& i) { return read_peak(check, i); });
}

void read_op_models(YamlCheck& check, const YAML::Node& node, Classification& out) {
  read_list(check, node, "op_models", out.op_models,
            [&](const YAML::Node& i) { return read_op_model(check, i); });
}

void read_kernel_precisions(YamlCheck& check, const YAML::Node& node, Classification& out) {
  read_list(check, node, "kernel_precisions", out.kernel_precisions,
            [&](const YAML::Node& i) { return read_kernel_precision(check, i); });
}

void read_fused_patterns(YamlCheck& check, const YAML::Node& node, Classification& out) {
  read_list(check, node, "fused_patterns", out.fused_patterns,
            [&](const YAML::Node& i) { return read_fused_pattern(check, i); });
}

// A file's names are added to those it extends (a name is listed once).
void read_aten_ops(YamlCheck& check, const YAML::Node& node, Classification& out) {
  for (std::string& name : read_names(check, node, "aten_ops"))
    if (std::find(out.aten_ops.begin(), out.aten_ops.end(), name) == out.aten_ops.end())
      out.aten_ops.push_back(std::move(name));
}

void read_memory_categories(YamlCheck& check, const YAML::Node& node, Classification& out) {
  read_list(check, node, "memory_categories", out.memory_categories,
            [&](const YAML::Node& i) { return read_memory_category(check, i); });
}

void read_gpu_architectures(YamlCheck& check, const YAML::Node& node, Classification& out) {
  read_list(check, node, "gpu_architectures", out.gpu_architectures,
            [&](const YAML::Node& i) { return read_architecture(check, i); });
}

// A percentage setting, 0 to 100, of a section's map: `key` into `out` where it is given and valid.
void read_percentage(YamlCheck& check, const YAML::Node& node, const char* key, double& out) {
  if (std::optional<double> pct = check.percentage(node, key)) out = *pct;
}

void read_compute(YamlCheck& check, const YAML::Node& node, Classification& out) {
  static constexpr std::array<std::string_view, 3> kKeys = {
      "mfu_min_flops_coverage_pct", "roofline_target_pct", "tensor_core_min_judged_pct"};
  if (!check.is_map(node, "compute")) return;
  check.known_keys(node, kKeys, "compute");
  read_percentage(check, node, "mfu_min_flops_coverage_pct", out.mfu_min_flops_coverage_pct);
  read_percentage(check, node, "tensor_core_min_judged_pct", out.tc_min_judged_pct);
  if (YAML::Node v = node["roofline_target_pct"]) {
    auto pct = check.number(v, "roofline_target_pct");
    if (pct && (*pct <= 0 || *pct > 100))
      check.error(v, "roofline_target_pct is a percentage, above 0 and at most 100");
    else if (pct)
      out.roofline_target_pct = *pct;
  }
}

void read_critical_path(YamlCheck& check, const YAML::Node& node, Classification& out) {
  static constexpr std::array<std::string_view, 2> kKeys = {"max_kernel_gap_us", "min_coverage_pct"};
  if (!check.is_map(node, "critical_path")) return;
  check.known_keys(node, kKeys, "critical_path");
  if (YAML::Node v = node["max_kernel_gap_us"]) {
    auto us = check.number(v, "max_kernel_gap_us");
    if (us && (*us < 0 || *us > 1e9))
      check.error(v, "max_kernel_gap_us is a time in microseconds, 0 to 10^9");
    else if (us)
      out.critical_path_max_kernel_gap_us = *us;
  }
  // min_coverage_pct is the gate's setting (gate/rule_sections.h), read there.
}

}  // namespace

void read_classification_sections(YamlCheck& check, const YAML::Node& root, Classification& out) {
  if (YAML::Node c = root["classification"]) read_classification(check, c, out);
  if (YAML::Node a = root["attribution"]) read_attribution(check, a, out);
  if (YAML::Node g = root["gpu_peaks"]) read_gpu_peaks(check, g, out);
  if (YAML::Node m = root["op_models"]) read_op_models(check, m, out);
  if (YAML::Node k = root["kernel_precisions"]) read_kernel_precisions(check, k, out);
  if (YAML::Node a = root["aten_ops"]) read_aten_ops(check, a, out);
  if (YAML::Node f = root["fused_patterns"]) read_fused_patterns(check, f, out);
  if (YAML::Node g = root["gpu_architectures"]) read_gpu_architectures(check, g, out);
  if (YAML::Node m = root["memory_categories"]) read_memory_categories(check, m, out);
  if (YAML::Node c = root["compute"]) read_compute(check, c, out);
  if (YAML::Node c = root["critical_path"]) read_critical_path(check, c, out);
}

}  // namespace perfgate
