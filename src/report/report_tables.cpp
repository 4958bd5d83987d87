// Every report table: its columns (name, unit, description) and how each cell is read from an
// analysis row. The column lists are the tables' documentation (docs/metrics.md, "Tables").
#include <algorithm>
#include <map>
#include <span>
#include <utility>

#include <fmt/format.h>

#include "perfgate/analysis.h"
#include "perfgate/baseline.h"
#include "perfgate/build_report.h"
#include "report/neuron_report_tables.h"
#include "report/precision_table.h"
#include "report/report_cells.h"
#include "report/roofline_table.h"
#include "report/run_tables.h"
#include "report/table_columns.h"
#include "report_model/table_limits.h"

namespace perfgate {

bool row_per_step(std::string_view table) {
  return table == "iterations" || table == "critical_path" || table == "job_critical_path";
}

bool row_per_name(std::string_view table) {
  static constexpr std::string_view kTables[] = {"run_ops",
                                                 "run_kernels",
                                                 "run_regions",
                                                 "ops",
                                                 "ops_by_shape",
                                                 "op_types",
                                                 "kernels",
                                                 "kernels_by_op",
                                                 "kernels_by_iteration",
                                                 "kernels_by_op_top",
                                                 "regions",
                                                 "tc_shapes",
                                                 "roofline",
                                                 "run_roofline",
                                                 "gpu_gaps",
                                                 "memory_ops"};
  return std::find(std::begin(kTables), std::end(kTables), table) != std::end(kTables);
}

namespace {

// The tables of a worker that is not detailed (AnalysisOptions::detailed_workers).
bool in_every_worker(std::string_view table) {
  static constexpr std::string_view kTables[] = {"system",         "gpus",         "iterations",
                                                 "step_breakdown", "collectives",  "neuron_engines",
                                                 "neuron_notes",   "critical_path"};
  return std::find(std::begin(kTables), std::end(kTables), table) != std::end(kTables);
}

ReportCell launch_dims(const std::array<std::int32_t, 3>& d) {
  if (d[0] < 0) return {};
  return fmt::format("{}x{}x{}", d[0], d[1], d[2]);
}

constexpr std::array<Column<OpRow>, 20> kOpColumns = {{
    {"name", "", "Op name; (no op): GPU work launched outside any operator (calls: its activities)",
     [](const OpRow& r) { return ReportCell{r.name}; }},
    {"op_type", "", "Op class (rules: op_types)", [](const OpRow& r) { return ReportCell{r.op_type}; }},
    {"direction", "", "fprop, bprop (run by the autograd engine) or both",
     [](const OpRow& r) { return ReportCell{std::string(direction_name(r.direction))}; }},
    {"calls", "count", "Calls made during the window's steps (on the host)",
     [](const OpRow& r) { return count(r.calls); }},
    {"host_total_us", "us", "Host time of the calls", [](const OpRow& r) { return us(r.host_total); }},
    {"host_self_us", "us", "Host time minus callee ops and the op's own runtime calls",
     [](const OpRow& r) { return us(r.host_self); }},
    {"device_total_us", "us",
     "GPU time (whole durations) of the kernels, memcpy and memset the calls and their callees launched",
     [](const OpRow& r) { return us(r.device_total); }},
    {"device_self_us", "us",
     "GPU time of what the calls launched themselves: their kernels (the op's rows in kernels by op), "
     "memcpy and memset",
     [](const OpRow& r) { return us(r.device_self); }},
    {"tc_device_us", "us", "Tensor Core kernel time in device_total_us",
     [](const OpRow& r) { return us(r.tc_device); }},
    {"eligible_no_tc_us", "us",
     "GPU time of the calls that were bottom-most Tensor-Core-eligible ops and launched no Tensor Core "
     "kernel (the ops tensor_core.eligible_ops_not_using_tc counts)",
     [](const OpRow& r) { return us(r.eligible_without_tc); }},
    {"kernel_calls", "count", "Kernels the op launched itself",
     [](const OpRow& r) { return count(r.kernel_calls); }},
    {"tc_eligible", "", "Could run on Tensor Cores (rules: tensor_core_eligible_ops)",
     [](const OpRow& r) { return ReportCell{r.tc_eligible}; }},
    {"uses_tc", "", "Launched a Tensor Core kernel", [](const OpRow& r) { return ReportCell{r.uses_tc}; }},
    {"data_types", "", "Tensor types of the inputs (first call)",
     [](const OpRow& r) { return text(r.data_types); }},
    {"flops", "flop", "FLOPs counted for the op (bottom-most ops only)",
     [](const OpRow& r) { return r.flops > 0 ? ReportCell{r.flops} : ReportCell{}; }},
    {"module", "", "nn.Module path of the first call", [](const OpRow& r) { return text(r.module); }},
    {"user_frame", "",
     "The innermost frame of that call stack in user code, not a library's (rules: library_frames)",
     [](const OpRow& r) { return text(r.user_frame); }},
    {"call_stack", "", "Call stack of the first call, innermost first",
     [](const OpRow& r) { return text(r.call_stack); }},
    // The last two, only where a row is a compiled kernel's (with_fused_columns).
    {"fused_ops", "",
     "A compiled (TorchInductor) kernel's range: the ATen ops its name lists (rules: aten_ops), and the "
     "parts that name none (unparsed); the column is there where some row has them",
     [](const OpRow& r) { return text(r.fused_ops); }},
    {"fused_as", "",
     "What those ops make (rules: fused_patterns): RMSNorm, softmax, GEMM, ...; there where fused_ops is",
     [](const OpRow& r) { return text(r.fused_as); }},
}};

// The by-shape table: the op columns with the input shapes after the name, less the by-name
// column behind tensor_core.eligible_ops_not_using_tc (it counts names; the shapes table
// tc_shapes lists the shapes that keep ops off Tensor Cores).
constexpr std::string_view kByNameOnlyColumn = "eligible_no_tc_us";
constexpr std::array<Column<OpRow>, kOpColumns.size()> kOpShapeColumns = [] {
  std::array<Column<OpRow>, kOpColumns.size()> columns{};
  columns[0] = kOpColumns[0];
  columns[1] = {"input_shapes", "", "Input Dims of the calls",
                [](const OpRow& r) { return text(r.input_shapes); }};
  std::size_t next = 2;
  for (std::size_t i = 1; i < kOpColumns.size(); ++i)
    if (std::string_view(kOpColumns[i].name) != kByNameOnlyColumn) columns[next++] = kOpColumns[i];
  return columns;
}();

constexpr std::array<Column<OpTypeRow>, 10> kOpTypeColumns = {{
    {"type", "", "Op class; each top-level op (no op above it) counts once",
     [](const OpTypeRow& r) { return ReportCell{r.type}; }},
    {"ops", "count", "Distinct op names", [](const OpTypeRow& r) { return count(r.ops); }},
    {"calls", "count", "Calls made during the window's steps (on the host)",
     [](const OpTypeRow& r) { return count(r.calls); }},
    {"cpu_total_us", "us", "Host time of the calls", [](const OpTypeRow& r) { return us(r.cpu_total); }},
    {"cpu_avg_us", "us", "Mean host time per call",
     [](const OpTypeRow& r) { return mean_us(r.cpu_total, r.calls); }},
    {"cpu_min_us", "us", "Shortest call", [](const OpTypeRow& r) { return us(r.cpu_min); }},
    {"cpu_max_us", "us", "Longest call", [](const OpTypeRow& r) { return us(r.cpu_max); }},
    {"gpu_us", "us", "GPU time of what the calls launched, callees included",
     [](const OpTypeRow& r) { return us(r.gpu); }},
    {"cpu_overhead_us", "us",
     "DLProf's CPU overhead: host time of the calls less that of the CUDA API calls they (or their callees) "
     "made",
     [](const OpTypeRow& r) { return us(r.cpu_overhead); }},
    {"gpu_idle_us", "us",
     "DLProf's GPU idle: per call, from its first GPU activity's start to its last's end, less the time "
     "they kept the GPU busy",
     [](const OpTypeRow& r) { return us(r.gpu_idle); }},
}};

// One part of the mean step's breakdown.
struct BreakdownShare {
  BreakdownPart part;
  TimeNs mean = 0;
  TimeNs step = 0;
};

bool on_gpu(BreakdownPart p) {
  return p == BreakdownPart::Kernel || p == BreakdownPart::Memcpy || p == BreakdownPart::Memset ||
         p == BreakdownPart::Communication;
}

constexpr std::array<Column<BreakdownShare>, 4> kBreakdownColumns = {{
    {"category", "", "Part of the step (the plugin's priority order)",
     [](const BreakdownShare& r) { return ReportCell{std::string(breakdown_part_name(r.part))}; }},
    {"mean_us", "us", "Mean time per window step", [](const BreakdownShare& r) { return us(r.mean); }},
    {"pct", "%", "Share of the mean step", [](const BreakdownShare& r) { return pct(r.mean, r.step); }},
    {"on_gpu", "", "GPU work (kernels, copies, memsets, communication) rather than host time",
     [](const BreakdownShare& r) { return ReportCell{on_gpu(r.part)}; }},
}};

std::vector<BreakdownShare> breakdown_shares(const Breakdown& mean) {
  TimeNs step = 0;
  for (TimeNs t : mean) step += t;
  std::vector<BreakdownShare> rows;
  for (std::size_t i = 0; i < kBreakdownParts; ++i)
    rows.push_back({static_cast<BreakdownPart>(i), mean[i], step});
  return rows;
}

struct TopOp {
  std::size_t rank;
  const OpRow* op;
  TimeNs all_device_self;
};
constexpr std::array<Column<TopOp>, 7> kTopOpColumns = {{
    {"rank", "count", "1 = most GPU time", [](const TopOp& r) { return count(r.rank); }},
    {"name", "", "Op name; (no op): GPU work launched outside any operator",
     [](const TopOp& r) { return ReportCell{r.op->name}; }},
    {"op_type", "", "Op class", [](const TopOp& r) { return ReportCell{r.op->op_type}; }},
    {"calls", "count", "Calls made during the window's steps (on the host)",
     [](const TopOp& r) { return count(r.op->calls); }},
    {"device_self_us", "us",
     "GPU time of what the calls launched themselves: their kernels (the op's rows in kernels by op), "
     "memcpy and memset",
     [](const TopOp& r) { return us(r.op->device_self); }},
    {"device_share_pct", "%", "Share of all GPU time launched in the window, (no op) included",
     [](const TopOp& r) { return pct(r.op->device_self, r.all_device_self); }},
    {"uses_tc", "", "Launched a Tensor Core kernel",
     [](const TopOp& r) { return ReportCell{r.op->uses_tc}; }},
}};

constexpr std::array<Column<KernelRow>, 19> kKernelColumns = {{
    {"op", "", "Launching op ((no op) when none is known)", [](const KernelRow& r) { return text(r.op); }},
    {"name", "", "Kernel name as recorded", [](const KernelRow& r) { return ReportCell{r.name}; }},
    {"short_name", "", "Demangled name without templates and arguments",
     [](const KernelRow& r) { return ReportCell{r.short_name}; }},
    {"calls", "count", "Kernels that started in the window",
     [](const KernelRow& r) { return count(r.calls); }},
    {"total_us", "us", "Total duration (whole, not clipped to the window)",
     [](const KernelRow& r) { return us(r.total); }},
    {"avg_us", "us", "Mean duration", [](const KernelRow& r) { return mean_us(r.total, r.calls); }},
    {"min_us", "us", "Shortest", [](const KernelRow& r) { return us(r.min); }},
    {"max_us", "us", "Longest", [](const KernelRow& r) { return us(r.max); }},
    {"uses_tc", "", "A Tensor Core kernel (rules: non_tensor_core_kernels, then tensor_core_kernels)",
     [](const KernelRow& r) { return ReportCell{r.uses_tc}; }},
    {"tc_rule", "",
     "The pattern that decided uses_tc (\"simt: ...\": a non_tensor_core_kernels entry); empty: none matched",
     [](const KernelRow& r) { return text(r.tc_rule); }},
    {"precision", "",
     "The precision the kernel computes in, from its name (rules: kernel_precisions), with the operand "
     "formats where the name gives them; empty: the name does not say",
     [](const KernelRow& r) { return text(r.precision); }},
    {"grid", "", "Grid of the longest call", [](const KernelRow& r) { return launch_dims(r.grid); }},
    {"block", "", "Block of the longest call", [](const KernelRow& r) { return launch_dims(r.block); }},
    {"registers_per_thread", "count", "Registers per thread",
     [](const KernelRow& r) {
       return r.registers_per_thread >= 0 ? count(static_cast<std::uint64_t>(r.registers_per_thread))
                                          : ReportCell{};
     }},
    {"shared_memory_bytes", "bytes", "Shared memory per block",
     [](const KernelRow& r) {
       return r.shared_memory >= 0 ? count(static_cast<std::uint64_t>(r.shared_memory)) : ReportCell{};
     }},
    {"occupancy_pct", "%", "Estimated achieved occupancy, weighted by duration",
     [](const KernelRow& r) { return number(r.occupancy_pct); }},
    {"launch_config_varies", "", "Calls differ in grid, block, registers or shared memory",
     [](const KernelRow& r) { return ReportCell{r.launch_config_varies}; }},
    // The last two, only where a row is a compiled kernel (with_fused_columns).
    {"fused_ops", "",
     "A compiled (TorchInductor) kernel: the ATen ops its name lists (rules: aten_ops), and the parts that "
     "name none (unparsed); the column is there where some row has them",
     [](const KernelRow& r) { return text(r.fused_ops); }},
    {"fused_as", "",
     "What those ops make (rules: fused_patterns): RMSNorm, softmax, GEMM, ...; there where fused_ops is",
     [](const KernelRow& r) { return text(r.fused_as); }},
}};

// The columns of a table of ops or kernels: without the last two (fused_ops, fused_as) where no row
// is a compiled kernel's, so that traces without compiled code keep their tables as they were.
template <typename Row>
std::span<const Column<Row>> with_fused_columns(std::span<const Column<Row>> columns,
                                                const std::vector<Row>& rows) {
  bool fused = std::any_of(rows.begin(), rows.end(), [](const Row& r) { return !r.fused_ops.empty(); });
  return fused ? columns : columns.first(columns.size() - 2);
}

// The by-kernel table has no op column.
ReportTable kernels_table(const std::vector<KernelRow>& rows) {
  return make_table("kernels", "Kernels", "Kernels that started in the window, by name",
                    with_fused_columns(std::span<const Column<KernelRow>>(kKernelColumns).subspan(1), rows),
                    rows);
}

constexpr std::array<Column<TopKernelRow>, 4> kTopKernelColumns = {{
    {"group", "", "The step or op", [](const TopKernelRow& r) { return ReportCell{r.group}; }},
    {"kernel", "", "Kernel short name, or (other kernels) for the rest",
     [](const TopKernelRow& r) { return ReportCell{r.kernel}; }},
    {"calls", "count", "Kernels", [](const TopKernelRow& r) { return count(r.calls); }},
    {"total_us", "us", "Total duration", [](const TopKernelRow& r) { return us(r.total); }},
}};

constexpr std::array<Column<IterationRow>, 18> kIterationColumns = {{
    {"name", "", "Step", [](const IterationRow& r) { return ReportCell{r.name}; }},
    {"number", "count", "N of ProfilerStep#N",
     [](const IterationRow& r) { return r.number ? ReportCell{*r.number} : ReportCell{}; }},
    {"start_us", "us", "Start on the trace clock", [](const IterationRow& r) { return us(r.start); }},
    {"duration_us", "us", "Step duration", [](const IterationRow& r) { return us(r.duration); }},
    {"kernels", "count", "Kernels that started in the step",
     [](const IterationRow& r) { return count(r.kernels); }},
    {"tc_kernels", "count", "Of which Tensor Core kernels",
     [](const IterationRow& r) { return count(r.tc_kernels); }},
    {"gpu_us", "us", "Union of kernel intervals in the step",
     [](const IterationRow& r) { return us(r.gpu); }},
    {"gpu_pct", "%", "gpu_us / duration", [](const IterationRow& r) { return pct(r.gpu, r.duration); }},
    {"tc_gpu_us", "us", "Union of Tensor Core kernel intervals in the step",
     [](const IterationRow& r) { return us(r.tc_gpu); }},
    {"tc_gpu_pct", "%", "tc_gpu_us / duration",
     [](const IterationRow& r) { return pct(r.tc_gpu, r.duration); }},
    {"kernel_us", "us", "Breakdown: compute kernels",
     [](const IterationRow& r) { return us(r.breakdown[0]); }},
    {"memcpy_us", "us", "Breakdown: memcpy", [](const IterationRow& r) { return us(r.breakdown[1]); }},
    {"memset_us", "us", "Breakdown: memset", [](const IterationRow& r) { return us(r.breakdown[2]); }},
    {"communication_us", "us", "Breakdown: communication",
     [](const IterationRow& r) { return us(r.breakdown[3]); }},
    {"runtime_us", "us", "Breakdown: runtime calls",
     [](const IterationRow& r) { return us(r.breakdown[4]); }},
    {"dataloader_us", "us", "Breakdown: data loader",
     [](const IterationRow& r) { return us(r.breakdown[5]); }},
    {"cpu_exec_us", "us", "Breakdown: other CPU ops",
     [](const IterationRow& r) { return us(r.breakdown[6]); }},
    {"other_us", "us", "Breakdown: nothing recorded",
     [](const IterationRow& r) { return us(r.breakdown[7]); }},
}};

struct RegionShare {
  const RegionRow* region;
  TimeNs window;  // the window's wall time
};
constexpr std::array<Column<RegionShare>, 7> kRegionColumns = {{
    {"name", "", "record_function / user annotation name",
     [](const RegionShare& r) { return ReportCell{r.region->name}; }},
    {"calls", "count", "Ranges opened during the window's steps (on the host)",
     [](const RegionShare& r) { return count(r.region->calls); }},
    {"cpu_total_us", "us", "Host time of the ranges",
     [](const RegionShare& r) { return us(r.region->cpu_total); }},
    {"cpu_avg_us", "us", "Mean host time per range",
     [](const RegionShare& r) { return mean_us(r.region->cpu_total, r.region->calls); }},
    {"gpu_us", "us", "GPU time of the work launched inside the ranges",
     [](const RegionShare& r) { return us(r.region->gpu); }},
    {"gpu_range_us", "us", "GPU-side ranges of the same name (gpu_user_annotation)",
     [](const RegionShare& r) { return us(r.region->gpu_range); }},
    {"window_share_pct", "%",
     "Share of the window with a range of this name open on any thread: the union of the ranges in the "
     "window / its wall time",
     [](const RegionShare& r) { return pct(r.region->window_union, r.window); }},
}};

constexpr std::array<Column<ShapeFindingRow>, 8> kShapeColumns = {{
    {"op", "", "TC-eligible op that ran in half precision without Tensor Cores",
     [](const ShapeFindingRow& r) { return ReportCell{r.op}; }},
    {"input_shapes", "", "Input Dims", [](const ShapeFindingRow& r) { return text(r.input_shapes); }},
    {"data_type", "", "Input tensor type", [](const ShapeFindingRow& r) { return ReportCell{r.data_type}; }},
    {"dims", "", "GEMM M, N, K or convolution C, K",
     [](const ShapeFindingRow& r) { return ReportCell{r.dims}; }},
    {"misaligned", "", "Dimensions that are not multiples of 8",
     [](const ShapeFindingRow& r) { return text(r.misaligned); }},
    {"aligned", "", "Every dimension is a multiple of 8 (false: a Tensor Core shape problem)",
     [](const ShapeFindingRow& r) { return ReportCell{r.misaligned.empty()}; }},
    {"calls", "count", "Calls", [](const ShapeFindingRow& r) { return count(r.calls); }},
    {"device_us", "us", "GPU time of the calls", [](const ShapeFindingRow& r) { return us(r.device); }},
}};

template <IdleCause C>
ReportCell cause_us(const GapRow& r) {
  return us(r.by_cause[static_cast<std::size_t>(C)]);
}

constexpr std::array<Column<GapRow>, 11> kGapColumns = {{
    {"device", "count", "GPU",
     [](const GapRow& r) { return ReportCell{static_cast<std::int64_t>(r.device)}; }},
    {"start_us", "us", "Start of the gap on the trace clock", [](const GapRow& r) { return us(r.start); }},
    {"duration_us", "us", "Gap length", [](const GapRow& r) { return us(r.duration); }},
    {"cause", "", "What the launching host threads did for most of the gap",
     [](const GapRow& r) { return ReportCell{std::string(idle_cause_name(r.main_cause))}; }},
    {"queued_us", "us", "With work queued on the GPU (launched, not started): not waiting for the host",
     cause_us<IdleCause::Queued>},
    {"dataloader_us", "us", "In a DataLoader op", cause_us<IdleCause::DataLoader>},
    {"sync_us", "us", "In a synchronising runtime call", cause_us<IdleCause::Sync>},
    {"launch_us", "us", "In another runtime call", cause_us<IdleCause::Launch>},
    {"cpu_op_us", "us", "In another op or Python function", cause_us<IdleCause::CpuOp>},
    {"nvtx_us", "us", "In an NVTX range (Nsight Systems exports), not in the above",
     cause_us<IdleCause::Nvtx>},
    {"unrecorded_us", "us", "Nothing recorded on the launching threads", cause_us<IdleCause::Unrecorded>},
}};

constexpr std::array<Column<CollectiveRow>, 8> kCollectiveColumns = {{
    {"op", "", "Outermost communication op", [](const CollectiveRow& r) { return text(r.op); }},
    {"collective", "", "The collective as PyTorch records it (record_param_comms), where it does",
     [](const CollectiveRow& r) { return text(r.collective); }},
    {"calls", "count", "Calls made during the window's steps (on the host)",
     [](const CollectiveRow& r) { return count(r.calls); }},
    {"bytes", "bytes", "Input bytes of the calls whose size the trace records",
     [](const CollectiveRow& r) { return r.sized_calls ? bytes(r.bytes) : ReportCell{}; }},
    {"host_us", "us", "Wall time of the calls on the host",
     [](const CollectiveRow& r) { return us(r.host); }},
    {"device_us", "us", "GPU time of the work the calls launched (their communication kernels)",
     [](const CollectiveRow& r) { return us(r.device); }},
    {"mean_device_us", "us", "device_us per call",
     [](const CollectiveRow& r) { return mean_us(r.device, r.calls); }},
    {"bandwidth", "GB/s",
     "Algorithm bandwidth (as nccl-tests' algbw): bytes of the sized calls / their GPU time, which includes "
     "waiting for other ranks (a lower bound; collective_bandwidth has the run's transfer bandwidths)",
     [](const CollectiveRow& r) {
       return r.sized_calls && r.sized_device > 0
                  ? ReportCell{static_cast<double>(r.bytes) / static_cast<double>(r.sized_device)}
                  : ReportCell{};
     }},
}};

constexpr std::array<Column<MemoryOpRow>, 8> kMemoryOpColumns = {{
    {"device", "count", "GPU",
     [](const MemoryOpRow& r) { return ReportCell{static_cast<std::int64_t>(r.device)}; }},
    {"op", "", "The op that ran the allocations and frees itself (innermost on its thread)",
     [](const MemoryOpRow& r) { return text(r.op); }},
    {"calls", "count", "Calls of the op that started in the window",
     [](const MemoryOpRow& r) { return count(r.calls); }},
    {"allocations", "count", "Allocations", [](const MemoryOpRow& r) { return count(r.allocations); }},
    {"allocated_bytes", "bytes", "Bytes allocated",
     [](const MemoryOpRow& r) { return bytes(r.allocated_bytes); }},
    {"frees", "count", "Frees", [](const MemoryOpRow& r) { return count(r.frees); }},
    {"freed_bytes", "bytes", "Bytes freed", [](const MemoryOpRow& r) { return bytes(r.freed_bytes); }},
    {"net_bytes", "bytes", "Allocated minus freed: what the op's calls left allocated",
     [](const MemoryOpRow& r) {
       return ReportCell{static_cast<double>(r.allocated_bytes) - static_cast<double>(r.freed_bytes)};
     }},
}};

constexpr std::array<Column<MemoryPoint>, 4> kMemoryCurveColumns = {{
    {"device", "count", "GPU",
     [](const MemoryPoint& r) { return ReportCell{static_cast<std::int64_t>(r.device)}; }},
    {"time_us", "us", "On the trace clock", [](const MemoryPoint& r) { return us(r.time); }},
    {"allocated_bytes", "bytes", "Allocated total (the highest of the stretch the point stands for)",
     [](const MemoryPoint& r) { return ReportCell{static_cast<double>(r.allocated)}; }},
    {"reserved_bytes", "bytes", "Reserved total (allocated plus cached), where the trace records it",
     [](const MemoryPoint& r) {
       return r.reserved < 0 ? ReportCell{} : ReportCell{static_cast<double>(r.reserved)};
     }},
}};

constexpr std::array<Column<ReportGpu>, 15> kGpuColumns = {{
    {"id", "count", "Device id",
     [](const ReportGpu& g) { return ReportCell{static_cast<std::int64_t>(g.device)}; }},
    {"name", "", "Device name", [](const ReportGpu& g) { return text(g.name); }},
    {"compute_capability", "", "Compute capability",
     [](const ReportGpu& g) { return text(g.compute_capability); }},
    {"architecture", "",
     "Architecture (rules: gpu_architectures); \"or newer (inferred)\": from kernel names, the least it can "
     "be",
     [](const ReportGpu& g) {
       return text(g.architecture.empty() || !g.architecture_inferred
                       ? g.architecture
                       : g.architecture + " or newer (inferred)");
     }},
    {"sm_count", "count", "Multiprocessors",
     [](const ReportGpu& g) {
       return g.sm_count > 0 ? count(static_cast<std::uint64_t>(g.sm_count)) : ReportCell{};
     }},
    {"memory_bytes", "bytes", "Device memory",
     [](const ReportGpu& g) { return g.memory_bytes ? count(g.memory_bytes) : ReportCell{}; }},
    {"kernel_count", "count", "Kernels in the window",
     [](const ReportGpu& g) { return count(g.kernel_count); }},
    {"kernel_us", "us", "Union of kernel intervals in the window",
     [](const ReportGpu& g) { return us(g.kernel_ns); }},
    {"busy_us", "us", "Union of kernel, memcpy and memset intervals in the window",
     [](const ReportGpu& g) { return us(g.busy_ns); }},
    {"utilization_pct", "%", "Union of kernel intervals / window",
     [](const ReportGpu& g) { return number(g.utilization_pct); }},
    {"busy_pct", "%", "Union of all GPU activity / window",
     [](const ReportGpu& g) { return number(g.busy_pct); }},
    {"idle_pct", "%", "100 - busy", [](const ReportGpu& g) { return number(g.idle_pct); }},
    {"sm_efficiency_pct", "%", "Estimated SM efficiency",
     [](const ReportGpu& g) { return number(g.sm_efficiency_pct); }},
    {"achieved_occupancy_pct", "%", "Estimated achieved occupancy",
     [](const ReportGpu& g) { return number(g.achieved_occupancy_pct); }},
    {"tensor_core_kernel_time_pct", "%", "Tensor Core share of kernel time",
     [](const ReportGpu& g) { return number(g.tensor_core_kernel_time_pct); }},
}};

constexpr std::array<Column<TimelineBox>, 7> kTimelineColumns = {{
    {"device", "count", "GPU; -1: host ops, -2: runtime calls (the host lanes)",
     [](const TimelineBox& b) { return ReportCell{static_cast<std::int64_t>(b.device)}; }},
    {"stream", "count", "Stream; the thread id for host lanes",
     [](const TimelineBox& b) { return ReportCell{static_cast<std::int64_t>(b.stream)}; }},
    {"start_us", "us", "Start, relative to the step's start",
     [](const TimelineBox& b) { return us(b.start); }},
    {"duration_us", "us", "Duration within the step", [](const TimelineBox& b) { return us(b.duration); }},
    {"name", "", "Kernel short name, op or call name, or N activities for merged short ones",
     [](const TimelineBox& b) { return ReportCell{b.name}; }},
    {"op", "", "Launching op (host boxes: the op or call itself)",
     [](const TimelineBox& b) { return text(b.op); }},
    {"kind", "",
     "kernel, tc_kernel, communication, memcpy, memset; host: cpu_op, dataloader, runtime, sync; or merged",
     [](const TimelineBox& b) { return ReportCell{b.kind}; }},
}};

struct SystemFact {
  std::string key;
  std::string value;
};
constexpr std::array<Column<SystemFact>, 2> kSystemColumns = {{
    {"key", "", "What", [](const SystemFact& f) { return ReportCell{f.key}; }},
    {"value", "", "Its value", [](const SystemFact& f) { return ReportCell{f.value}; }},
}};

std::vector<SystemFact> system_facts(const ReportWorker& w) {
  std::vector<SystemFact> facts;
  auto add = [&](std::string key, std::string value) {
    if (!value.empty()) facts.push_back({std::move(key), std::move(value)});
  };
  std::map<std::string, int> gpu_names;
  for (const ReportGpu& g : w.gpus) ++gpu_names[g.name.empty() ? "unknown model" : g.name];
  for (const auto& [name, n] : gpu_names) add("GPU", fmt::format("{} x {}", n, name));
  if (!w.gpus.empty()) add("compute capability", w.gpus.front().compute_capability);
  add("framework", w.system.trace_format == "kineto-json" ? "PyTorch (Kineto trace)" : w.system.trace_format);
  add("trace schema version", w.system.schema_version);
  add("trace file", w.input_path);
  add("trace name", w.system.trace_name);
  if (w.system.rank) add("rank", std::to_string(*w.system.rank));
  if (w.system.world_size) add("world size", std::to_string(*w.system.world_size));
  add("distributed backend", w.system.distributed_backend);
  for (const auto& [k, v] : w.system.attributes) add(k, v);
  return facts;
}

// A collectives row of one rank: the rank's columns, then the collectives table's.
struct RankCollective {
  const WorkerAnalysis* worker;
  std::int64_t rank;
  const CollectiveRow* row;
};

template <std::size_t I>
ReportCell collective_cell(const RankCollective& r) {
  return kCollectiveColumns[I].cell(*r.row);
}

template <std::size_t... I>
constexpr std::array<Column<RankCollective>, sizeof...(I) + 2> rank_collective_columns(
    std::index_sequence<I...>) {
  return {{{"worker", "", "Worker (trace file)",
            [](const RankCollective& r) { return ReportCell{r.worker->worker}; }},
           {"rank", "count", "Rank (distributedInfo, else worker index)",
            [](const RankCollective& r) { return ReportCell{r.rank}; }},
           {kCollectiveColumns[I].name, kCollectiveColumns[I].unit, kCollectiveColumns[I].description,
            collective_cell<I>}...}};
}
constexpr auto kRankCollectiveColumns =
    rank_collective_columns(std::make_index_sequence<kCollectiveColumns.size()>{});

}  // namespace

ReportTable rank_collectives_table(const RunAnalysis& analysis, const std::vector<std::int64_t>& ranks) {
  std::vector<RankCollective> rows;
  for (std::size_t i = 0; i < analysis.workers.size(); ++i)
    for (const CollectiveRow& c : analysis.workers[i].tables.collectives)
      rows.push_back({&analysis.workers[i], ranks[i], &c});
  // The same collective of every rank together, the ranks in order.
  std::stable_sort(rows.begin(), rows.end(),
                   [](const RankCollective& a, const RankCollective& b) { return a.row->op < b.row->op; });
  return make_table("rank_collectives", "Collectives by rank",
                    "Each rank's collectives by op, the ranks of one op together", kRankCollectiveColumns,
                    rows);
}

std::vector<ReportTable> worker_tables(const WorkerAnalysis& w, const ReportWorker& report) {
  const WorkerTables& t = w.tables;
  std::vector<ReportTable> out;
  auto add = [&out](ReportTable table) { out.push_back(std::move(table)); };
  add(make_table("system", "System configuration", "What the trace says about the machine and the run",
                 kSystemColumns, system_facts(report)));
  if (w.neuron.profiles > 0 && report.gpus.empty()) {  // a Neuron device profile: its own tables
    for (ReportTable& table : neuron_report_tables(t.neuron)) add(std::move(table));
    if (!w.detailed)
      std::erase_if(out, [](const ReportTable& table) { return !in_every_worker(table.name); });
    return out;
  }
  add(make_table("gpus", "GPUs", "Each GPU with activity", kGpuColumns, report.gpus));
  std::vector<TopOp> top;
  TimeNs all_self = 0;
  for (const OpRow& r : t.ops) all_self += r.device_self;
  for (std::size_t i = 0; i < t.top_gpu_ops.size(); ++i) top.push_back({i + 1, &t.top_gpu_ops[i], all_self});
  add(make_table("top_gpu_ops", "Top 10 GPU ops", "The ops that launched the most GPU time themselves",
                 kTopOpColumns, top));
  add(make_table("iterations", "Iterations", "Each window step", kIterationColumns, t.iterations));
  add(make_table("step_breakdown", "Step breakdown", "The mean window step, split as the plugin does",
                 kBreakdownColumns, breakdown_shares(w.mean_breakdown)));
  add(make_table("ops", "Ops", "Ops called during the window's steps, by name",
                 with_fused_columns(std::span<const Column<OpRow>>(kOpColumns), t.ops), t.ops));
  add(make_table("ops_by_shape", "Ops by input shapes", "Each op split by the input shapes of its calls",
                 with_fused_columns(std::span<const Column<OpRow>>(kOpShapeColumns), t.ops_by_shape),
                 t.ops_by_shape));
  add(make_table("op_types", "Op types", "Top-level ops by class", kOpTypeColumns, t.op_types));
  add(kernels_table(t.kernels));
  add(make_table("kernels_by_op", "Kernels by op", "Kernels by name and launching op",
                 with_fused_columns(std::span<const Column<KernelRow>>(kKernelColumns), t.kernels_by_op),
                 t.kernels_by_op));
  add(make_table("kernels_by_iteration", "Kernels by iteration", "The 10 longest kernels of each step",
                 kTopKernelColumns, t.kernels_by_iteration));
  add(make_table("kernels_by_op_top", "Kernels by op (top)", "The 5 longest kernels of each op",
                 kTopKernelColumns, t.kernels_by_op_top));
  std::vector<RegionShare> regions;
  for (const RegionRow& r : t.regions) regions.push_back({&r, w.window.length()});
  add(make_table("regions", "User regions", "record_function and user annotation ranges (not steps)",
                 kRegionColumns, regions));
  add(make_table("tc_shapes", "Tensor Core shape check",
                 "Half-precision eligible ops that ran without Tensor Cores, and their dimensions",
                 kShapeColumns, t.tc_shape_findings));
  add(tc_precision_table(w.tensor_cores));
  add(roofline_table(
      "roofline", "Roofline",
      "Each op by input dims and types: its modelled FLOPs and bytes, its kernel time against the "
      "GPU's ceilings, most time to save at the roofline first; ops without a model last",
      t.roofline));
  add(make_table(
      "gpu_gaps", "GPU gaps",
      "Idle stretches of 500 us or more of each GPU in the window (before its first activity, between "
      "two, after its last), longest first, split by what the launching host threads did",
      kGapColumns, t.gpu_gaps));
  add(make_table("collectives", "Collectives",
                 "Communication ops called during the window's steps, by name, most GPU time first",
                 kCollectiveColumns, t.collectives));
  add(make_table(
      "memory_ops", "Memory by op",
      "GPU allocations and frees in the window by the op that ran them, most bytes allocated first",
      kMemoryOpColumns, t.memory_ops));
  add(make_table("memory_curve", "Memory over the window",
                 "Each GPU's allocator totals over the window: the total entering it, the highest of each "
                 "of 300 equal stretches, the total leaving it",
                 kMemoryCurveColumns, t.memory_curve));
  add(make_table("timeline", "Step timeline",
                 "The median step (of an even count, the shorter of the two middle steps): GPU activities "
                 "per stream, and the outermost ops, DataLoader ops and runtime calls of the threads that "
                 "launch GPU work",
                 kTimelineColumns, t.timeline.boxes));
  for (ReportTable& table : critical_path_tables(w.critical_path)) add(std::move(table));
  for (ReportTable& table : memory_snapshot_tables(t)) add(std::move(table));
  if (!w.detailed) std::erase_if(out, [](const ReportTable& table) { return !in_every_worker(table.name); });
  return out;
}

}  // namespace perfgate
