// What the analysis of one worker holds (each family's results, its tables) and the run's: plain
// data, the rows' names resolved to text, so that the report stage needs no profile. Times are
// nanoseconds.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analyse/analysis_fwd.h"
#include "analyse/communication/communication_results.h"
#include "analyse/critical_path/critical_path_results.h"
#include "analyse/gpu/gpu_results.h"
#include "analyse/memory/memory_results.h"
#include "analyse/neuron/neuron_results.h"
#include "analyse/ops/op_results.h"
#include "analyse/steps/step_results.h"
#include "analyse/timeline/timeline_results.h"
#include "common/capture_profile.h"
#include "common/metrics.h"
#include "common/notes.h"
#include "common/report_invariants.h"
#include "model/profile.h"

namespace perfgate {

struct WorkerTables {
  std::vector<OpRow> ops;           // by name
  std::vector<OpRow> ops_by_shape;  // by name and input shapes
  std::vector<OpTypeRow> op_types;
  std::vector<OpRow> top_gpu_ops;  // the 10 ops with the most device self time
  std::vector<KernelRow> kernels;
  // These three hold the rows the report keeps (AnalysisOptions::table_rows), the others set aside.
  std::vector<KernelRow> kernels_by_op;
  RowsSetAside kernels_by_op_set_aside;
  std::vector<TopKernelRow> kernels_by_iteration;
  RowsSetAside kernels_by_iteration_set_aside;
  std::vector<TopKernelRow> kernels_by_op_top;
  RowsSetAside kernels_by_op_top_set_aside;
  std::vector<IterationRow> iterations;
  std::vector<RegionRow> regions;
  std::vector<ShapeFindingRow> tc_shape_findings;
  std::vector<GapRow> gpu_gaps;            // gaps over 500 µs, longest first
  std::vector<CollectiveRow> collectives;  // most device time first
  std::vector<MemoryOpRow> memory_ops;     // most bytes allocated first
  std::vector<MemoryPoint> memory_curve;
  std::vector<SnapshotDeviceRow> memory_snapshot;           // a memory snapshot's devices
  std::vector<SnapshotSiteRow> memory_live_at_peak;         // by device, most bytes first
  std::vector<SnapshotCategoryRow> memory_peak_categories;  // by device, most bytes first
  std::vector<SnapshotBandRow> memory_timeline;             // the peak device's, by band then state
  std::vector<SnapshotOomRow> memory_ooms;                  // in trace order
  std::vector<RooflineRow> roofline;  // most time to save first, then unmodelled rows by kernel time
  Timeline timeline;
  NeuronTables neuron;
};

// One name summed over every worker of a run: its ops by name (gpu: device self time, cpu: host
// self time), kernels by name (gpu: total, cpu: 0) or user regions (gpu: launched work, cpu: host).
struct RunRow {
  std::string name;
  std::uint64_t workers = 0;  // workers that have the name
  std::uint64_t calls = 0;
  TimeNs gpu = 0;
  TimeNs cpu = 0;
};

struct RunTables {
  std::vector<RunRow> ops;
  std::vector<RunRow> kernels;
  std::vector<RunRow> regions;
  std::vector<RooflineRow> roofline;  // every worker's roofline rows summed by key
};

struct WorkerAnalysis {
  std::string worker;
  std::string source_path;
  ProfileInfo info;        // what the trace says about itself, for the report
  CaptureProfile capture;  // what the capture is, decided before any rule runs (issue 89)
  StepDetection steps;
  // The work inside each inferred unit (steps.inferred's units, in their order), set by the op stage
  // (analyse/ops/unit_work.h); empty where none is inferred.
  std::vector<UnitWork> unit_work;
  Window window;
  Breakdown mean_breakdown{};  // mean over window steps (ns); under a clock offset, see over_gpu_span
  // A clock offset (launch_delay.h) with rules: attribution.clock_offset_over_gpu_span: every time
  // figure is over the GPUs' span, not the host's window (docs/metrics.md, "Clock offsets"): MFU and
  // MBU over each GPU's span in the window (GpuMetrics::span_start), the steps, the window's wall
  // time, the breakdown, resources, host shares and the critical path's coverage over the steps on
  // the GPUs' clock (steps_on_gpu_clock, window.h): each window step's time there (one without
  // steps) and their span, first start to last end; empty and 0 where the host's window stands.
  bool over_gpu_span = false;
  std::vector<TimeNs> gpu_step_times;
  TimeNs gpu_steps_span = 0;
  ResourceSplit resources{};  // summed over window steps (ns)
  ServingPhases serving;
  std::vector<GpuMetrics> gpus;
  TensorCoreSums tensor_cores;
  ComputeSums compute;
  RooflineSums roofline;
  HostActivitySums host;
  IdleSums idle;
  CommunicationSums communication;
  // Its collectives for the matching across ranks: folded into the run by RunCombiner, which
  // then lets them go (they are in no report as they are).
  CollectiveCalls collective_calls;
  MemorySums memory;
  ParallelismSums parallelism;
  OpCallSums op_calls;
  CriticalPathSums critical_path;
  NeuronSums neuron;
  // The compiled program it ran, where its profile says: a full Neuron profile's NEFF by its
  // summary's figures (neuron_program); runs whose workers ran different ones are refused
  // (capture_check.cpp, run_programs_differ). Empty where unknown.
  std::string program;
  WorkerTables tables;
  bool has_runtime_calls = false;
  bool has_devices = false;  // the trace lists GPUs (deviceProperties, TARGET_INFO_GPU), used or not
  MetricValues metrics;
  // Report invariants its metrics and roofline rows broke (their numbers withheld): the reports'
  // "Data quality", not a warning.
  std::vector<InvariantViolation> invariants;
  std::vector<Note> warnings;
  // Whether the worker kept its whole tables in a run of more than AnalysisOptions::
  // detailed_workers workers, and why: "first", "slowest", "fastest" (empty for a lone worker).
  bool detailed = true;
  std::string detailed_as;
};

struct RunAnalysis {
  WorkerList workers;
  // About the run as a whole: files of a run folder skipped, workers that are not one capture
  // (GPU models, world sizes, times), ranks missing from the world size.
  std::vector<Note> warnings;
  MetricValues metrics;    // the run as a whole (see docs/metrics.md, "Several workers")
  CaptureProfile capture;  // the run's: its workers' profiles combined (issue 89)
  // Report invariants the run's metrics and run tables broke (a lone worker's: its own).
  std::vector<InvariantViolation> invariants;
  RunTables tables;  // every worker's ops, kernels and regions summed by name (2 workers or more)
  RunCollectives collectives;
  std::vector<JobPathStep> job_path;  // steps with matched collectives, in step order (2 ranks or more)
};

}  // namespace perfgate
