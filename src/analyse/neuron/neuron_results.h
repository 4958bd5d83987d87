// A Neuron device profile: its metrics, each with what a run of several profiles makes of it, and
// its tables (neuron_metrics.h, neuron_tables.h, neuron_throttle.h).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analyse/timeline/timeline_results.h"
#include "model/profile.h"

namespace perfgate {

// A Neuron device profile's metrics (docs/metrics.md, "Neuron"), each with what a run of several
// profiles makes of it: the values of its profiles are kept as sum, count, lowest and highest.
enum class NeuronMetric : std::uint8_t {
  TotalTimeUs,
  ActivePct,
  TensorActivePct,
  VectorActivePct,
  ScalarActivePct,
  GpSimdActivePct,
  SyncActivePct,
  TensorInstructions,
  VectorInstructions,
  ScalarInstructions,
  GpSimdInstructions,
  SyncInstructions,
  MfuPct,
  HfuPct,
  MbuPct,
  DmaActivePct,
  DmaBytes,
  HbmReadBytes,
  HbmWriteBytes,
  SpillSaveBytes,
  SpillReloadBytes,
  ThrottleActivePct,
  ThrottleUtilLimitPct,
  MissingDataWarnings,
  Warnings,
  LeadingWaitUs,
  LeadingWaitPct,
  SbufPeakPct,
  SbufMeanPct,
  PsumPeakPct,
  PsumMeanPct,
  DeviceMemoryBytes,
};
inline constexpr std::size_t kNeuronMetrics = 32;

struct NeuronValue {
  double sum = 0;
  double min = 0;
  double max = 0;
  std::uint64_t count = 0;  // profiles that have the value
  void add(double value);
  NeuronValue& operator+=(const NeuronValue& from);
};

struct NeuronSums {
  std::uint64_t profiles = 0;      // Neuron profiles summed; 0: not a Neuron profile
  std::uint64_t summary_only = 0;  // of which summary-json (no instruction rows)
  std::array<NeuronValue, kNeuronMetrics> values{};
  NeuronSums& operator+=(const NeuronSums& from);  // neuron_metrics.cpp
};

// One HLO op: its instructions on each engine (NeuronEngine order) and the DMA transfers that name
// it. Times are sums of instruction durations.
struct NeuronOpRow {
  std::string name;
  std::array<TimeNs, kNeuronEngines> time{};
  std::array<std::uint64_t, kNeuronEngines> instructions{};
  // Its share of each engine's instruction time (the sum over every op's instructions on it).
  std::array<std::optional<double>, kNeuronEngines> share_pct{};
  TimeNs total = 0;           // semaphore waits aside
  TimeNs semaphore_wait = 0;  // its semaphore-wait instructions' durations, every engine
  std::uint64_t dma_transfers = 0;
  std::uint64_t dma_bytes = 0;
};

// One engine of the NeuronCore: the profiler's active time (its active_time rows), the
// instruction rows with the semaphore waits apart, and the summary's own active share.
struct NeuronEngineRow {
  std::string engine;              // "tensor", "vector", "scalar", "gpsimd", "sync", "other"
  std::string lanes;               // the Device Viewer rows it gathers: "Tensor, TensorMatrix"
  std::uint64_t instructions = 0;  // every row, waits included (the summary's instruction count)
  TimeNs instruction_time = 0;     // sum of durations, semaphore waits aside
  // The sum of its active_time rows' duration_ns; without such rows, the union of its
  // instructions' intervals, semaphore waits aside.
  TimeNs active = 0;
  std::optional<double> active_pct;  // active / total time
  std::uint64_t semaphore_waits = 0;
  TimeNs semaphore_wait_time = 0;            // sum of the waits' durations
  std::optional<double> semaphore_wait_pct;  // union of the waits' intervals / total time
  std::optional<double> summary_active_pct;  // the summary's <engine>_engine_active_time_percent x 100
};

// One DMA queue (dma_queue).
struct NeuronDmaQueueRow {
  std::string queue;
  std::uint64_t transfers = 0;
  std::uint64_t bytes = 0;
  TimeNs time = 0;                   // sum of durations
  TimeNs active = 0;                 // union of the transfers' intervals
  std::optional<double> active_pct;  // active / total time
  std::optional<double> gb_per_s;    // bytes / active
  bool collective = false;           // any transfer is a collective's (is_cc_dma)
};

// One source of throttling (throttle_<k>_...): the utilization limit it applied, while it applied.
struct NeuronThrottleRow {
  std::string source;                // <k>, e.g. "activity_0"
  std::string core;                  // "nc0"
  std::optional<double> limit_pct;   // throttle_<k>_avg_util_limit_<core>_percent x 100
  std::optional<double> active_pct;  // throttle_<k>_active_time_<core>_percent x 100
};

// One layer_summary row, in the report's units: microseconds and percentages.
struct NeuronLayerRow {
  std::string name;
  std::array<std::optional<double>, kNeuronEngines - 1> active_us{};
  std::array<std::optional<double>, kNeuronEngines - 1> instructions{};
  std::optional<double> mfu_pct;
  std::optional<double> hfu_pct;
  std::optional<double> model_flops;
  std::optional<double> hardware_flops;
};

// The profile's warnings, one row per category and message.
struct NeuronNoteRow {
  std::string category;
  std::string message;
  std::uint64_t count = 0;
  std::string remedy;         // the message's own advice ("Try capturing ..."), empty when it gives none
  bool missing_data = false;  // category Missing Data (any case)
};

// One instruction_usage row (SBUF or PSUM occupancy), on the device timeline's clock.
struct NeuronBufferRow {
  TimeNs start = 0;  // from the device timeline's start (its first instruction or DMA row); < 0: before it
  // Until the next row of its buffer; the last row until the timeline's end (0 where it has none).
  TimeNs duration = 0;
  NeuronBuffer buffer = NeuronBuffer::Sbuf;
  std::optional<double> average_pct;                                  // usage_avg x 100
  std::array<std::optional<double>, kNeuronBufferParts> parts_pct{};  // partitions or banks, x 100
};

// One nc_mem_usage row: the device memory one use holds on one core.
struct NeuronMemoryRow {
  std::int64_t device = 0;  // nd
  std::int64_t core = 0;    // nc
  std::string use;          // usage_type
  std::uint64_t bytes = 0;
  std::optional<double> share_pct;  // of its core's Total row; empty without one
};

struct NeuronTables {
  std::vector<NeuronOpRow> ops;  // most instruction time first
  std::vector<NeuronEngineRow> engines;
  std::vector<NeuronDmaQueueRow> dma_queues;  // most bytes first
  std::vector<NeuronLayerRow> layers;
  std::vector<NeuronNoteRow> notes;
  std::vector<NeuronThrottleRow> throttles;
  std::vector<NeuronBufferRow> buffers;  // in time order
  std::vector<NeuronMemoryRow> memory;   // by core, then most bytes first
  // The device timeline: a lane per engine row and DMA queue (device kNeuronEngineLane or
  // kNeuronDmaLane, stream: the lane's index), boxes named by their HLO op.
  std::vector<TimelineBox> timeline;
  std::vector<std::string> timeline_lanes;  // engine rows, then DMA queues
};

}  // namespace perfgate
