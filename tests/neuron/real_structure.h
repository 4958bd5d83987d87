// A Neuron full JSON with the structure of real neuron-profile 2.27 files (issue 39): the 21
// top-level sections in any order, semaphore waits among the instruction rows, the `active_time`
// rows, the throttle fields as the profiler writes them (a time-weighted product beside each
// source's limit and active share), layer_summary in integer nanoseconds with FLOP counts, and a
// Missing Data warning that names its remedy. The numbers are those of profile_128x128x1024 where
// the issue gives them; the tests carry the arithmetic.
#pragma once

#include <algorithm>
#include <array>
#include <string>
#include <utility>

namespace perfgate::testing {

// The sections in the order of `keys` (a permutation of real_structure_keys()).
inline const std::array<std::string, 21>& real_structure_keys() {
  static const std::array<std::string, 21> keys = {"semaphore_update",
                                                   "neff_node",
                                                   "dma_queues_info",
                                                   "terminology",
                                                   "pending_dma",
                                                   "summary",
                                                   "summary_group_order",
                                                   "layer_summary",
                                                   "warnings",
                                                   "profile_info",
                                                   "dma_throughput",
                                                   "instruction_usage",
                                                   "active_time",
                                                   "neff_header",
                                                   "model_info",
                                                   "metadata",
                                                   "instruction",
                                                   "dma",
                                                   "ham",
                                                   "summary_groups",
                                                   "nc_mem_usage"};
  return keys;
}

// Total time 1.87 ms = 1,870,000 ns. Tensor: one MultiplyMoving of 1,343 ns; Vector: a semaphore
// wait of 1,866,000 ns and one instruction of 450 ns; Sync: a semaphore range clear of 1,869,000 ns.
// active_time: Tensor 1,343 ns, Vector 200 + 250 = 450 ns. Throttling: source "activity_0" limits
// to 87.5% during 0.416% of the time, "activity_1" to 100% during 0.00118%; the product field is
// 0.875 x 0.00416 + 1 x 0.0000118 = 0.0036518; throttle_active_nc0_time_ns 7,854 = 0.42% of the time.
inline std::string real_structure_section(const std::string& key) {
  if (key == "summary")
    return R"([{"total_time": 0.00187, "total_active_time_percent": 0.00096,
      "tensor_engine_active_time": 1.3435e-06, "tensor_engine_active_time_percent": 0.00071845,
      "vector_engine_active_time": 4.5e-07, "vector_engine_active_time_percent": 0.00024064,
      "sync_engine_active_time_percent": 0.0, "tensor_engine_instruction_count": 1,
      "vector_engine_instruction_count": 2, "sync_engine_instruction_count": 1,
      "model_flops": 33554432, "hardware_flops": 37748736, "transpose_flops": 4194304,
      "mfu_estimated_percent": 0.0002, "hfu_estimated_percent": 0.000225, "peak_flops_bandwidth_ratio": 230.5,
      "throttle_avg_util_limit_nc0_percent": 0.0036518,
      "throttle_activity_0_avg_util_limit_nc0_percent": 0.875,
      "throttle_activity_0_active_time_nc0_percent": 0.00416,
      "throttle_activity_1_avg_util_limit_nc0_percent": 1.0,
      "throttle_activity_1_active_time_nc0_percent": 0.0000118,
      "throttle_active_nc0_time_ns": 7854, "instance_type": "inf2.xlarge"}])";
  if (key == "instruction")
    return R"([
      {"timestamp": 0, "duration": 1866000, "label": "Vector", "opcode": "EVENT_SEMAPHORE", "hlo_name": ""},
      {"timestamp": 0, "duration": 1869000, "label": "Sync", "opcode": "EVENT_SEMAPHORE_RANGE_CLEAR"},
      {"timestamp": 1000, "duration": 1343, "label": "Tensor", "opcode": "MultiplyMoving", "hlo_name": "%dot.1"},
      {"timestamp": 2400, "duration": 450, "label": "Vector", "opcode": "TensorTensorOp", "hlo_name": "%add.2"}])";
  if (key == "active_time")
    return R"([{"engine": "Tensor", "start_ts": 1000, "end_ts": 2343, "duration_ns": 1343},
      {"engine": "Vector", "start_ts": 2400, "end_ts": 2600, "duration_ns": 200},
      {"engine": "Vector", "start_ts": 2600, "end_ts": 2850, "duration_ns": 250}])";
  if (key == "dma")
    return R"([{"timestamp": 500, "duration": 400, "transfer_size": 32768, "dma_queue": "qSyncIO",
      "hlo_name": "%dot.1", "is_cc_dma": "false"}])";
  if (key == "layer_summary")
    return R"([{"layer": "/sg00", "tensor_engine_active_time": 1343, "vector_engine_active_time": 450,
      "tensor_engine_instruction_count": 1, "tensor_engine_model_flop_count": 33554432,
      "tensor_engine_flop_count": 37748736}])";
  if (key == "warnings")
    return R"([{"category": "Missing Data", "message": "Missing additional dynamic DMA metadata, reported DMA values may be inaccurate. Try capturing the profile with --enable-dge-notifs or NEURON_RT_ENABLE_DGE_NOTIFICATIONS=1 env flag."}])";
  if (key == "metadata")
    // A list of one object, as neuron-profile 2.27 writes it (issue 54).
    return R"([{"pe_clock_freq": 1400000000, "hbm_ddr_bandwidth": 410, "ticks_per_nanosec": 1.4,
      "ntff_version": 5, "data_version": 8, "is_simulation": false, "num_subgraphs": 1,
      "first_hw_timestamp": 1000, "last_hw_timestamp": 1871000, "vnc_enabled": "false"}])";
  // SBUF at 25% (partitions 50/25/12.5/12.5%) from 1,000 ns, then the issue's row at 1,860,482 ns;
  // PSUM at 50% from 2,000 ns (four banks), then the issue's empty row (three banks) at 1,867,741 ns.
  // Keys in several orders, as real rows have them.
  if (key == "instruction_usage")
    return R"([{"type": "sb", "timestamp": 1000, "usage_avg": 0.25, "partition_0_usage": 0.5,
      "partition_32_usage": 0.25, "partition_64_usage": 0.125, "partition_96_usage": 0.125},
      {"timestamp": 2000, "bank_0_usage": 1, "type": "psum", "bank_1_usage": 0.5, "bank_2_usage": 0,
      "bank_3_usage": 0.5, "usage_avg": 0.5},
      {"usage_avg": 0.0012919109, "partition_96_usage": 0.0012919109, "type": "sb", "timestamp": 1860482,
      "partition_0_usage": 0.0012919109, "partition_64_usage": 0.0012919109, "partition_32_usage": 0.0012919109},
      {"type": "psum", "timestamp": 1867741, "usage_avg": 0, "bank_0_usage": 0, "bank_1_usage": 0,
      "bank_2_usage": 0}])";
  // Four uses of nd 0, nc 0 and their Total: 25,600 + 4,194,304 + 1,048,576 + 65,536 = 5,334,016 bytes.
  if (key == "nc_mem_usage")
    return R"([{"nd": 0, "nc": 0, "usage_type": "Generic", "amount_bytes": 25600},
      {"usage_type": "Tensor Instructions", "amount_bytes": 0, "nc": 0, "nd": 0},
      {"amount_bytes": 65536, "nd": 0, "nc": 0, "usage_type": "DMA Rings IO"},
      {"nd": 0, "nc": 0, "usage_type": "Weights", "amount_bytes": 4194304},
      {"nc": 0, "usage_type": "Tensors", "nd": 0, "amount_bytes": 1048576},
      {"nd": 0, "nc": 0, "usage_type": "Total", "amount_bytes": 5334016}])";
  if (key == "semaphore_update") return R"([{"timestamp": 10, "semaphore": "S[3]", "value": 1}])";
  if (key == "terminology") return R"({"Tensor": "the matrix engine"})";
  if (key == "summary_group_order") return R"(["Overview", "Engines"])";
  if (key == "profile_info") return R"({"profiler_version": "2.27.0"})";
  return "[]";
}

inline std::string real_structure_json(const std::array<std::string, 21>& order) {
  std::string json = "{";
  for (const std::string& key : order)
    json += (json.size() > 1 ? ",\n\"" : "\n\"") + key + "\": " + real_structure_section(key);
  return json + "\n}";
}

// The sections rotated so that keys[first] comes first.
inline std::string real_structure_json(std::size_t first = 0) {
  std::array<std::string, 21> order = real_structure_keys();
  std::rotate(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(first % order.size()), order.end());
  return real_structure_json(order);
}

}  // namespace perfgate::testing
