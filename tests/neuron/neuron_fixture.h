// Hand-built Neuron device profiles, written to the documented schema of
// `neuron-profile view --output-format json` and `summary-json` (docs/formats.md, "AWS Neuron").
// The numbers are chosen so that every metric and table cell has a known answer (the tests carry
// the arithmetic).
#pragma once

#include <string>

namespace perfgate::testing {

// The full JSON: a summary with the pitfalls of real files (fractions named *_percent, a number
// as a string, a bare NaN, a throttle limit above 100%), five instruction rows on four engines
// (an id of 9.2e18, numbers as strings), three DMA rows on two queues, one layer_summary row and
// three warnings (two of them Missing Data).
inline std::string neuron_full_json() {
  return R"json({
  "summary": [{
    "total_time": 0.0001, "total_active_time_percent": 0.6,
    "tensor_engine_active_time_percent": 0.25, "vector_engine_active_time_percent": "0.1",
    "scalar_engine_active_time_percent": 0.05, "gpsimd_engine_active_time_percent": NaN,
    "sync_engine_active_time_percent": 0.02, "tensor_engine_instruction_count": 99,
    "mfu_estimated_percent": 0.125, "hfu_estimated_percent": 0.15, "mbu_estimated_percent": 0.3,
    "dma_active_time_percent": 0.5, "dma_transfer_total_bytes": 4096,
    "hbm_read_bytes": 1000, "hbm_write_bytes": 2000, "spill_save_bytes": 512, "spill_reload_bytes": 256,
    "throttle_activity_0_active_time_nc0_percent": 0.02, "throttle_activity_1_active_time_nc0_percent": 0.05,
    "throttle_activity_0_avg_util_limit_nc0_percent": 0.875,
    "throttle_avg_util_limit_nc0_percent": 1.0967, "throttle_avg_util_limit_nc1_percent": 0.9,
    "instance_type": "trn1.32xlarge", "profiler_version": "2.20.0", "nc_idx": 1, "nd_idx": 3
  }],
  "instruction": [
    {"timestamp": 1000, "duration": 100, "label": "Tensor", "opcode": "LoadStationary",
     "hlo_name": "%dot.1 = dot(%p0, %p1)", "layer": "encoder/0", "id": 9223372036854775000, "pc": 16},
    {"timestamp": 1050, "duration": 100, "label": "TensorMatrix", "opcode": "MultiplyMoving",
     "hlo_name": "%dot.1 = dot(%p0, %p1)", "operands": {"nested": [1, 2]}, "id": 9223372036854775001},
    {"timestamp": 2000, "duration": 50, "label": "Vector", "hlo_name": "%add.2 = add(%dot.1, %c)"},
    {"timestamp": 3000, "duration": 30, "label": "Tensor", "hlo_name": "%add.2 = add(%dot.1, %c)"},
    {"timestamp": "4000", "duration": "20", "subgroup": "CC-core 0", "hlo_name": "NaN <script>"}
  ],
  "dma": [
    {"timestamp": 1000, "duration": 200, "transfer_size": 3000, "dma_queue": "qSyncIO",
     "hlo_name": "%dot.1 = dot(%p0, %p1)", "is_cc_dma": "false", "dma_engine": "2",
     "packet_aggregation_id": 9223372036854775807},
    {"timestamp": 1100, "duration": 200, "transfer_size": "1096", "dma_queue": "qSyncIO"},
    {"timestamp": 5000, "duration": 100, "transfer_size": 500, "dma_queue": "qCollective", "is_cc_dma": true}
  ],
  "active_time": [{"engine": "Tensor", "start_ts": 1000, "end_ts": 3030, "duration_ns": 180}],
  "layer_summary": [{"layer": "encoder/0", "tensor_engine_active_time": 20000,
                     "tensor_engine_instruction_count": 3, "tensor_engine_mfu": 0.2, "model_flops": 1e9}],
  "metadata": {"ntff_version": 2, "clock": {"freq": 1400}},
  "profile_info": {"profiler_version": "2.20.0", "name": "rank 0"},
  "warnings": [
    {"category": "Missing Data", "message": "DMA notifications were dropped"},
    {"category": "Missing Data", "message": "DMA notifications were dropped"},
    {"category": "Other", "message": "<b>not bold</b>"}
  ]
})json";
}

// summary-json of a first-execution capture: total_time in ms-scale while the engines were active
// for microseconds (total_active_time_percent 0.004), two nodes.
inline std::string neuron_summary_json() {
  return R"json({"n_fdc71a0b": {"total_time": 0.002, "total_active_time_percent": 0.004,
  "tensor_engine_active_time_percent": 0.003, "tensor_engine_instruction_count": 7,
  "spill_save_bytes": 0, "spill_reload_bytes": 0, "mfu_estimated_percent": 0.001, "instance_type": "inf2.xlarge"},
  "n_47cf9972": {"total_time": 0.001, "total_active_time_percent": 0.006, "tensor_engine_instruction_count": 5}})json";
}

}  // namespace perfgate::testing
