// A worker's report tables: how each cell of each declared column (common/table_catalog.def) is
// read from an analysis row.
#include <algorithm>
#include <span>
#include <string>
#include <string_view>
#include <utility>

#include <fmt/format.h>

#include "analyse/analysis.h"
#include "analyse/run/worker_hold.h"
#include "baseline/baseline.h"
#include "report/build_report.h"
#include "report/neuron_report_tables.h"
#include "report/precision_table.h"
#include "report/report_cells.h"
#include "report/roofline_table.h"
#include "report/run_tables.h"
#include "report/table_columns.h"
#include "report_model/table_limits.h"

namespace perfgate {

std::vector<ReportCell> set_aside_cells(const ReportTable& table, const RowsSetAside& set_aside) {
  std::vector<ReportCell> cells(table.columns.size());
  for (std::size_t c = 0; c < cells.size(); ++c) {
    if (table.columns[c].name == "calls")
      cells[c] = count(set_aside.calls);
    else if (table.columns[c].name == "total_us")
      cells[c] = set_aside.total_us;
    else if (table.columns[c].unit.empty())
      cells[c] = std::string();
  }
  return cells;
}

bool row_per_step(Table table) {
  return table == Table::Iterations || table == Table::CriticalPath || table == Table::JobCriticalPath;
}

bool row_per_name(Table table) {
  static constexpr Table kTables[] = {Table::RunOps,
                                      Table::RunKernels,
                                      Table::RunRegions,
                                      Table::Ops,
                                      Table::OpsByShape,
                                      Table::OpTypes,
                                      Table::Kernels,
                                      Table::KernelsByOp,
                                      Table::KernelsByIteration,
                                      Table::KernelsByOpTop,
                                      Table::Regions,
                                      Table::TcShapes,
                                      Table::Roofline,
                                      Table::RunRoofline,
                                      Table::GpuGaps,
                                      Table::MemoryOps};
  return std::find(std::begin(kTables), std::end(kTables), table) != std::end(kTables);
}

namespace {

// The tables of a worker that is not detailed (AnalysisOptions::detailed_workers).
constexpr Table kInEveryWorker[] = {Table::System,        Table::Gpus,        Table::Iterations,
                                    Table::StepBreakdown, Table::Collectives, Table::NeuronEngines,
                                    Table::NeuronNotes,   Table::CriticalPath};

bool in_every_worker(std::string_view name) {
  return std::any_of(std::begin(kInEveryWorker), std::end(kInEveryWorker),
                     [&](Table t) { return table_name(t) == name; });
}

ReportCell launch_dims(const std::array<std::int32_t, 3>& d) {
  if (d[0] < 0) return {};
  return fmt::format("{}x{}x{}", d[0], d[1], d[2]);
}

constexpr std::array<Column<OpRow>, 20> kOpCells = {{
    {"name", [](const OpRow& r) { return ReportCell{r.name}; }},
    {"op_type", [](const OpRow& r) { return ReportCell{r.op_type}; }},
    {"direction", [](const OpRow& r) { return ReportCell{std::string(direction_name(r.direction))}; }},
    {"calls", [](const OpRow& r) { return count(r.calls); }},
    {"host_total_us", [](const OpRow& r) { return us(r.host_total); }},
    {"host_self_us", [](const OpRow& r) { return us(r.host_self); }},
    {"device_total_us", [](const OpRow& r) { return us(r.device_total); }},
    {"device_self_us", [](const OpRow& r) { return us(r.device_self); }},
    {"tc_device_us", [](const OpRow& r) { return us(r.tc_device); }},
    {"eligible_no_tc_us", [](const OpRow& r) { return us(r.eligible_without_tc); }},
    {"kernel_calls", [](const OpRow& r) { return count(r.kernel_calls); }},
    {"tc_eligible", [](const OpRow& r) { return ReportCell{r.tc_eligible}; }},
    {"uses_tc", [](const OpRow& r) { return ReportCell{r.uses_tc}; }},
    {"data_types", [](const OpRow& r) { return text(r.data_types); }},
    {"flops", [](const OpRow& r) { return r.flops > 0 ? ReportCell{r.flops} : ReportCell{}; }},
    {"module", [](const OpRow& r) { return text(r.module); }},
    {"user_frame", [](const OpRow& r) { return text(r.user_frame); }},
    {"call_stack", [](const OpRow& r) { return text(r.call_stack); }},
    // The last two, only where a row is a compiled kernel's (with_fused_columns).
    {"fused_ops", [](const OpRow& r) { return text(r.fused_ops); }},
    {"fused_as", [](const OpRow& r) { return text(r.fused_as); }},
}};
constexpr auto kOpColumns = declared<Table::Ops>(kOpCells);

// The by-shape table: the op columns with the input shapes after the name, less the by-name
// column behind tensor_core.eligible_ops_not_using_tc (it counts names; the shapes table
// tc_shapes lists the shapes that keep ops off Tensor Cores).
constexpr std::string_view kByNameOnlyColumn = "eligible_no_tc_us";
constexpr auto kOpShapeColumns = declared<Table::OpsByShape>([] {
  std::array<Column<OpRow>, kOpCells.size()> columns{};
  columns[0] = kOpCells[0];
  columns[1] = {"input_shapes", [](const OpRow& r) { return text(r.input_shapes); }};
  std::size_t next = 2;
  for (std::size_t i = 1; i < kOpCells.size(); ++i)
    if (kOpCells[i].name != kByNameOnlyColumn) columns[next++] = kOpCells[i];
  return columns;
}());

constexpr auto kOpTypeColumns = declared<Table::OpTypes>(std::array<Column<OpTypeRow>, 10>{{
    {"type", [](const OpTypeRow& r) { return ReportCell{r.type}; }},
    {"ops", [](const OpTypeRow& r) { return count(r.ops); }},
    {"calls", [](const OpTypeRow& r) { return count(r.calls); }},
    {"cpu_total_us", [](const OpTypeRow& r) { return us(r.cpu_total); }},
    {"cpu_avg_us", [](const OpTypeRow& r) { return mean_us(r.cpu_total, r.calls); }},
    {"cpu_min_us", [](const OpTypeRow& r) { return us(r.cpu_min); }},
    {"cpu_max_us", [](const OpTypeRow& r) { return us(r.cpu_max); }},
    {"gpu_us", [](const OpTypeRow& r) { return us(r.gpu); }},
    {"cpu_overhead_us", [](const OpTypeRow& r) { return us(r.cpu_overhead); }},
    {"gpu_idle_us", [](const OpTypeRow& r) { return us(r.gpu_idle); }},
}});

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

constexpr auto kBreakdownColumns = declared<Table::StepBreakdown>(std::array<Column<BreakdownShare>, 4>{{
    {"category",
     [](const BreakdownShare& r) {
       return ReportCell{std::in_place_type<std::string>, breakdown_part_name(r.part)};
     }},
    {"mean_us", [](const BreakdownShare& r) { return us(r.mean); }},
    {"pct", [](const BreakdownShare& r) { return pct(r.mean, r.step); }},
    {"on_gpu", [](const BreakdownShare& r) { return ReportCell{on_gpu(r.part)}; }},
}});

std::vector<BreakdownShare> breakdown_shares(const Breakdown& mean) {
  TimeNs step = 0;
  for (TimeNs t : mean) step += t;
  std::vector<BreakdownShare> rows;
  rows.reserve(kBreakdownParts);
  for (std::size_t i = 0; i < kBreakdownParts; ++i)
    rows.push_back({static_cast<BreakdownPart>(i), mean[i], step});
  return rows;
}

struct TopOp {
  std::size_t rank;
  const OpRow* op;
  TimeNs all_device_self;
};
constexpr auto kTopOpColumns = declared<Table::TopGpuOps>(std::array<Column<TopOp>, 7>{{
    {"rank", [](const TopOp& r) { return count(r.rank); }},
    {"name", [](const TopOp& r) { return ReportCell{r.op->name}; }},
    {"op_type", [](const TopOp& r) { return ReportCell{r.op->op_type}; }},
    {"calls", [](const TopOp& r) { return count(r.op->calls); }},
    {"device_self_us", [](const TopOp& r) { return us(r.op->device_self); }},
    {"device_share_pct", [](const TopOp& r) { return pct(r.op->device_self, r.all_device_self); }},
    {"uses_tc", [](const TopOp& r) { return ReportCell{r.op->uses_tc}; }},
}});

constexpr std::array<Column<KernelRow>, 20> kKernelCells = {{
    {"op", [](const KernelRow& r) { return text(r.op); }},
    {"name", [](const KernelRow& r) { return ReportCell{r.name}; }},
    {"short_name", [](const KernelRow& r) { return ReportCell{r.short_name}; }},
    {"calls", [](const KernelRow& r) { return count(r.calls); }},
    {"total_us", [](const KernelRow& r) { return us(r.total); }},
    {"avg_us", [](const KernelRow& r) { return mean_us(r.total, r.calls); }},
    {"min_us", [](const KernelRow& r) { return us(r.min); }},
    {"max_us", [](const KernelRow& r) { return us(r.max); }},
    {"uses_tc", [](const KernelRow& r) { return ReportCell{r.uses_tc}; }},
    {"tc_rule", [](const KernelRow& r) { return text(r.tc_rule); }},
    {"tc_rule_source", [](const KernelRow& r) { return text(r.tc_rule_source); }},
    {"precision", [](const KernelRow& r) { return text(r.precision); }},
    {"grid", [](const KernelRow& r) { return launch_dims(r.grid); }},
    {"block", [](const KernelRow& r) { return launch_dims(r.block); }},
    {"registers_per_thread",
     [](const KernelRow& r) {
       return r.registers_per_thread >= 0 ? count(static_cast<std::uint64_t>(r.registers_per_thread))
                                          : ReportCell{};
     }},
    {"shared_memory_bytes",
     [](const KernelRow& r) {
       return r.shared_memory >= 0 ? count(static_cast<std::uint64_t>(r.shared_memory)) : ReportCell{};
     }},
    {"occupancy_pct", [](const KernelRow& r) { return number(r.occupancy_pct); }},
    {"launch_config_varies", [](const KernelRow& r) { return ReportCell{r.launch_config_varies}; }},
    // The last two, only where a row is a compiled kernel (with_fused_columns).
    {"fused_ops", [](const KernelRow& r) { return text(r.fused_ops); }},
    {"fused_as", [](const KernelRow& r) { return text(r.fused_as); }},
}};
constexpr auto kKernelByOpColumns = declared<Table::KernelsByOp>(kKernelCells);
// The by-kernel table has no op column.
constexpr auto kKernelColumns = declared<Table::Kernels>([] {
  std::array<Column<KernelRow>, kKernelCells.size() - 1> columns{};
  std::copy(kKernelCells.begin() + 1, kKernelCells.end(), columns.begin());
  return columns;
}());

// A table of ops or kernels: without its last two columns (fused_ops, fused_as, optional) where no
// row is a compiled kernel's, so that traces without compiled code keep their tables as they were.
template <typename Row, std::size_t N>
ReportTable with_fused_columns(const DeclaredColumns<Row, N>& columns, const std::vector<Row>& rows,
                               const RowsSetAside& set_aside = {}) {
  bool fused = set_aside.fused ||
               std::any_of(rows.begin(), rows.end(), [](const Row& r) { return !r.fused_ops.empty(); });
  return make_table(columns, rows, fused ? N : N - 2, set_aside);
}

constexpr std::array<Column<TopKernelRow>, 4> kTopKernelCells = {{
    {"group", [](const TopKernelRow& r) { return ReportCell{r.group}; }},
    {"kernel", [](const TopKernelRow& r) { return ReportCell{r.kernel}; }},
    {"calls", [](const TopKernelRow& r) { return count(r.calls); }},
    {"total_us", [](const TopKernelRow& r) { return us(r.total); }},
}};
constexpr auto kKernelsByIterationColumns = declared<Table::KernelsByIteration>(kTopKernelCells);
constexpr auto kKernelsByOpTopColumns = declared<Table::KernelsByOpTop>(kTopKernelCells);

constexpr auto kIterationColumns = declared<Table::Iterations>(std::array<Column<IterationRow>, 18>{{
    {"name", [](const IterationRow& r) { return ReportCell{r.name}; }},
    {"number", [](const IterationRow& r) { return r.number ? ReportCell{*r.number} : ReportCell{}; }},
    {"start_us", [](const IterationRow& r) { return us(r.start); }},
    {"duration_us", [](const IterationRow& r) { return us(r.duration); }},
    {"kernels", [](const IterationRow& r) { return count(r.kernels); }},
    {"tc_kernels", [](const IterationRow& r) { return count(r.tc_kernels); }},
    {"gpu_us", [](const IterationRow& r) { return us(r.gpu); }},
    {"gpu_pct", [](const IterationRow& r) { return pct(r.gpu, r.duration); }},
    {"tc_gpu_us", [](const IterationRow& r) { return us(r.tc_gpu); }},
    {"tc_gpu_pct", [](const IterationRow& r) { return pct(r.tc_gpu, r.duration); }},
    {"kernel_us", [](const IterationRow& r) { return us(r.breakdown[0]); }},
    {"memcpy_us", [](const IterationRow& r) { return us(r.breakdown[1]); }},
    {"memset_us", [](const IterationRow& r) { return us(r.breakdown[2]); }},
    {"communication_us", [](const IterationRow& r) { return us(r.breakdown[3]); }},
    {"runtime_us", [](const IterationRow& r) { return us(r.breakdown[4]); }},
    {"dataloader_us", [](const IterationRow& r) { return us(r.breakdown[5]); }},
    {"cpu_exec_us", [](const IterationRow& r) { return us(r.breakdown[6]); }},
    {"other_us", [](const IterationRow& r) { return us(r.breakdown[7]); }},
}});

struct RegionShare {
  const RegionRow* region;
  TimeNs window;  // the window's wall time
};
constexpr auto kRegionColumns = declared<Table::Regions>(std::array<Column<RegionShare>, 7>{{
    {"name", [](const RegionShare& r) { return ReportCell{r.region->name}; }},
    {"calls", [](const RegionShare& r) { return count(r.region->calls); }},
    {"cpu_total_us", [](const RegionShare& r) { return us(r.region->cpu_total); }},
    {"cpu_avg_us", [](const RegionShare& r) { return mean_us(r.region->cpu_total, r.region->calls); }},
    {"gpu_us", [](const RegionShare& r) { return us(r.region->gpu); }},
    {"gpu_range_us", [](const RegionShare& r) { return us(r.region->gpu_range); }},
    {"window_share_pct", [](const RegionShare& r) { return pct(r.region->window_union, r.window); }},
}});

constexpr auto kShapeColumns = declared<Table::TcShapes>(std::array<Column<ShapeFindingRow>, 8>{{
    {"op", [](const ShapeFindingRow& r) { return ReportCell{r.op}; }},
    {"input_shapes", [](const ShapeFindingRow& r) { return text(r.input_shapes); }},
    {"data_type", [](const ShapeFindingRow& r) { return ReportCell{r.data_type}; }},
    {"dims", [](const ShapeFindingRow& r) { return ReportCell{r.dims}; }},
    {"misaligned", [](const ShapeFindingRow& r) { return text(r.misaligned); }},
    {"aligned", [](const ShapeFindingRow& r) { return ReportCell{r.misaligned.empty()}; }},
    {"calls", [](const ShapeFindingRow& r) { return count(r.calls); }},
    {"device_us", [](const ShapeFindingRow& r) { return us(r.device); }},
}});

template <IdleCause C>
ReportCell cause_us(const GapRow& r) {
  return us(r.by_cause[static_cast<std::size_t>(C)]);
}

constexpr auto kGapColumns = declared<Table::GpuGaps>(std::array<Column<GapRow>, 12>{{
    {"device", [](const GapRow& r) { return ReportCell{static_cast<std::int64_t>(r.device)}; }},
    {"start_us", [](const GapRow& r) { return us(r.start); }},
    {"duration_us", [](const GapRow& r) { return us(r.duration); }},
    {"cause", [](const GapRow& r) { return ReportCell{std::string(idle_cause_name(r.main_cause))}; }},
    {"queued_us", cause_us<IdleCause::Queued>},
    {"dataloader_us", cause_us<IdleCause::DataLoader>},
    {"sync_us", cause_us<IdleCause::Sync>},
    {"launch_us", cause_us<IdleCause::Launch>},
    {"runtime_other_us", cause_us<IdleCause::RuntimeOther>},
    {"cpu_op_us", cause_us<IdleCause::CpuOp>},
    {"nvtx_us", cause_us<IdleCause::Nvtx>},
    {"unrecorded_us", cause_us<IdleCause::Unrecorded>},
}});

constexpr std::array<Column<CollectiveRow>, 8> kCollectiveCells = {{
    {"op", [](const CollectiveRow& r) { return text(r.op); }},
    {"collective", [](const CollectiveRow& r) { return text(r.collective); }},
    {"calls", [](const CollectiveRow& r) { return count(r.calls); }},
    {"bytes", [](const CollectiveRow& r) { return r.sized_calls ? bytes(r.bytes) : ReportCell{}; }},
    {"host_us", [](const CollectiveRow& r) { return us(r.host); }},
    {"device_us", [](const CollectiveRow& r) { return us(r.device); }},
    {"mean_device_us", [](const CollectiveRow& r) { return mean_us(r.device, r.calls); }},
    {"bandwidth",
     [](const CollectiveRow& r) {
       return r.sized_calls && r.sized_device > 0
                  ? ReportCell{static_cast<double>(r.bytes) / static_cast<double>(r.sized_device)}
                  : ReportCell{};
     }},
}};
constexpr auto kCollectiveColumns = declared<Table::Collectives>(kCollectiveCells);

constexpr auto kMemoryOpColumns = declared<Table::MemoryOps>(std::array<Column<MemoryOpRow>, 8>{{
    {"device", [](const MemoryOpRow& r) { return ReportCell{static_cast<std::int64_t>(r.device)}; }},
    {"op", [](const MemoryOpRow& r) { return text(r.op); }},
    {"calls", [](const MemoryOpRow& r) { return count(r.calls); }},
    {"allocations", [](const MemoryOpRow& r) { return count(r.allocations); }},
    {"allocated_bytes", [](const MemoryOpRow& r) { return bytes(r.allocated_bytes); }},
    {"frees", [](const MemoryOpRow& r) { return count(r.frees); }},
    {"freed_bytes", [](const MemoryOpRow& r) { return bytes(r.freed_bytes); }},
    {"net_bytes", [](const MemoryOpRow& r) {
       return ReportCell{static_cast<double>(r.allocated_bytes) - static_cast<double>(r.freed_bytes)};
     }},
}});

constexpr auto kMemoryCurveColumns = declared<Table::MemoryCurve>(std::array<Column<MemoryPoint>, 4>{{
    {"device", [](const MemoryPoint& r) { return ReportCell{static_cast<std::int64_t>(r.device)}; }},
    {"time_us", [](const MemoryPoint& r) { return us(r.time); }},
    {"allocated_bytes", [](const MemoryPoint& r) { return ReportCell{static_cast<double>(r.allocated)}; }},
    {"reserved_bytes",
     [](const MemoryPoint& r) {
       return r.reserved < 0 ? ReportCell{} : ReportCell{static_cast<double>(r.reserved)};
     }},
}});

constexpr auto kGpuColumns = declared<Table::Gpus>(std::array<Column<ReportGpu>, 15>{{
    {"id", [](const ReportGpu& g) { return ReportCell{static_cast<std::int64_t>(g.device)}; }},
    {"name", [](const ReportGpu& g) { return text(g.name); }},
    {"compute_capability", [](const ReportGpu& g) { return text(g.compute_capability); }},
    {"architecture", [](const ReportGpu& g) {
       return text(g.architecture.empty() || !g.architecture_inferred
                       ? g.architecture
                       : g.architecture + " or newer (inferred)");
     }},
    {"sm_count", [](const ReportGpu& g) {
       return g.sm_count > 0 ? count(static_cast<std::uint64_t>(g.sm_count)) : ReportCell{};
     }},
    {"memory_bytes", [](const ReportGpu& g) { return g.memory_bytes ? count(g.memory_bytes) : ReportCell{}; }},
    {"kernel_count", [](const ReportGpu& g) { return count(g.kernel_count); }},
    {"kernel_us", [](const ReportGpu& g) { return us(g.kernel_ns); }},
    {"busy_us", [](const ReportGpu& g) { return us(g.busy_ns); }},
    {"utilization_pct", [](const ReportGpu& g) { return number(g.utilization_pct); }},
    {"busy_pct", [](const ReportGpu& g) { return number(g.busy_pct); }},
    {"idle_pct", [](const ReportGpu& g) { return number(g.idle_pct); }},
    {"sm_efficiency_pct", [](const ReportGpu& g) { return number(g.sm_efficiency_pct); }},
    {"achieved_occupancy_pct", [](const ReportGpu& g) { return number(g.achieved_occupancy_pct); }},
    {"tensor_core_kernel_time_pct", [](const ReportGpu& g) { return number(g.tensor_core_kernel_time_pct); }},
}});

constexpr auto kTimelineColumns = declared<Table::Timeline>(std::array<Column<TimelineBox>, 8>{{
    {"device", [](const TimelineBox& b) { return ReportCell{static_cast<std::int64_t>(b.device)}; }},
    {"stream", [](const TimelineBox& b) { return ReportCell{static_cast<std::int64_t>(b.stream)}; }},
    {"start_us", [](const TimelineBox& b) { return us(b.start); }},
    {"duration_us", [](const TimelineBox& b) { return us(b.duration); }},
    {"name", [](const TimelineBox& b) { return ReportCell{b.name}; }},
    {"op", [](const TimelineBox& b) { return text(b.op); }},
    {"kind", [](const TimelineBox& b) { return ReportCell{b.kind}; }},
    {"lane", [](const TimelineBox& b) { return timeline_lane(b.device, b.stream); }},
}});

// A fact of the system table: its value a view of the worker's own text, or of one made for the
// table (system_facts' `made`). The facts were strings copied once more into the cells, through a
// map of GPU names and fmt: a tenth of a tiny rank's report (issue 78).
struct SystemFact {
  std::string_view key;
  std::string_view value;
};
constexpr auto kSystemColumns = declared<Table::System>(std::array<Column<SystemFact>, 2>{{
    {"key", [](const SystemFact& f) { return ReportCell{std::string(f.key)}; }},
    {"value", [](const SystemFact& f) { return ReportCell{std::string(f.value)}; }},
}});

// The GPUs by model, in the order of their names ("unknown model" for none), and how many of each.
std::vector<std::pair<std::string_view, int>> gpu_models(const std::vector<ReportGpu>& gpus) {
  std::vector<std::pair<std::string_view, int>> models;
  for (const ReportGpu& g : gpus) {
    std::string_view name = g.name.empty() ? std::string_view("unknown model") : std::string_view(g.name);
    auto same = std::find_if(models.begin(), models.end(), [&](const auto& m) { return m.first == name; });
    if (same == models.end())
      models.emplace_back(name, 1);
    else
      ++same->second;
  }
  std::sort(models.begin(), models.end());
  return models;
}

// `made`: the texts the facts view that the worker does not hold ("2 x NVIDIA H100", the rank).
std::vector<SystemFact> system_facts(const ReportWorker& w, std::vector<std::string>& made) {
  std::vector<std::pair<std::string_view, int>> models = gpu_models(w.gpus);
  made.reserve(models.size() + 2);  // viewed as they are made: never moved
  std::vector<SystemFact> facts;
  facts.reserve(models.size() + 9 + w.system.attributes.size());
  auto add = [&](std::string_view key, std::string_view value) {
    if (!value.empty()) facts.push_back({key, value});
  };
  for (const auto& [name, n] : models)
    add("GPU", made.emplace_back(std::to_string(n).append(" x ").append(name)));
  if (!w.gpus.empty()) add("compute capability", w.gpus.front().compute_capability);
  add("framework", w.system.trace_format == "kineto-json" ? std::string_view("PyTorch (Kineto trace)")
                                                          : std::string_view(w.system.trace_format));
  add("trace schema version", w.system.schema_version);
  add("trace file", w.input_path);
  add("trace name", w.system.trace_name);
  if (w.system.rank) add("rank", made.emplace_back(std::to_string(*w.system.rank)));
  if (w.system.world_size) add("world size", made.emplace_back(std::to_string(*w.system.world_size)));
  add("distributed backend", w.system.distributed_backend);
  for (const auto& [k, v] : w.system.attributes) add(k, v);
  return facts;
}

ReportTable system_table(const ReportWorker& w) {
  std::vector<std::string> made;
  return make_table(kSystemColumns, system_facts(w, made));
}

// A collectives row of one rank: the rank's columns, then the collectives table's.
struct RankCollective {
  const WorkerAnalysis* worker;
  std::int64_t rank;
  const CollectiveRow* row;
};

template <std::size_t I>
ReportCell collective_cell(const RankCollective& r) {
  return kCollectiveCells[I].cell(*r.row);
}

template <std::size_t... I>
constexpr std::array<Column<RankCollective>, sizeof...(I) + 2> rank_collective_cells(
    std::index_sequence<I...>) {
  return {{{"worker", [](const RankCollective& r) { return ReportCell{r.worker->worker}; }},
           {"rank", [](const RankCollective& r) { return ReportCell{r.rank}; }},
           {kCollectiveCells[I].name, collective_cell<I>}...}};
}
constexpr auto kRankCollectiveColumns = declared<Table::RankCollectives>(
    rank_collective_cells(std::make_index_sequence<kCollectiveCells.size()>{}));

}  // namespace

ReportTable rank_collectives_table(const RunAnalysis& analysis, const std::vector<std::int64_t>& ranks) {
  std::vector<RankCollective> rows;
  for (std::size_t i = 0; i < analysis.workers.size(); ++i, look_after_worker(i))
    for (const CollectiveRow& c : analysis.workers[i].tables.collectives)
      rows.push_back({&analysis.workers[i], ranks[i], &c});
  // The same collective of every rank together, the ranks in order.
  std::stable_sort(rows.begin(), rows.end(),
                   [](const RankCollective& a, const RankCollective& b) { return a.row->op < b.row->op; });
  return make_table(kRankCollectiveColumns, rows);
}

std::vector<ReportTable> worker_tables(const WorkerAnalysis& w, const ReportWorker& report) {
  const WorkerTables& t = w.tables;
  std::vector<ReportTable> out;
  // As many as a worker past --detailed-workers has (below), held as they are made: grown by
  // doubling, each such rank held 8 (issue 78: 65,536 ranks, 18 MB).
  out.reserve(w.detailed ? 32 : 6);
  auto add = [&out](ReportTable&& table) { out.push_back(std::move(table)); };
  add(system_table(report));
  if (w.neuron.profiles > 0 && report.gpus.empty()) {  // a Neuron device profile: its own tables
    for (ReportTable& table : neuron_report_tables(t.neuron)) add(std::move(table));
    if (!w.detailed)
      std::erase_if(out, [](const ReportTable& table) { return !in_every_worker(table.name); });
    return out;
  }
  add(make_table(kGpuColumns, report.gpus));
  // A worker past --detailed-workers keeps only the tables of every worker (in_every_worker): the
  // others are not built (in a folder of many small ranks they were most of the report's cost,
  // issue 78).
  if (w.detailed) {
    std::vector<TopOp> top;
    TimeNs all_self = 0;
    for (const OpRow& r : t.ops) all_self += r.device_self;
    for (std::size_t i = 0; i < t.top_gpu_ops.size(); ++i)
      top.push_back({i + 1, &t.top_gpu_ops[i], all_self});
    add(make_table(kTopOpColumns, top));
  }
  add(make_table(kIterationColumns, t.iterations));
  add(make_table(kBreakdownColumns, breakdown_shares(w.mean_breakdown)));
  if (w.detailed) {
    add(with_fused_columns(kOpColumns, t.ops));
    add(with_fused_columns(kOpShapeColumns, t.ops_by_shape));
    add(make_table(kOpTypeColumns, t.op_types));
    add(with_fused_columns(kKernelColumns, t.kernels));
    add(with_fused_columns(kKernelByOpColumns, t.kernels_by_op, t.kernels_by_op_set_aside));
    add(make_table(kKernelsByIterationColumns, t.kernels_by_iteration, kTopKernelCells.size(),
                   t.kernels_by_iteration_set_aside));
    add(make_table(kKernelsByOpTopColumns, t.kernels_by_op_top, kTopKernelCells.size(),
                   t.kernels_by_op_top_set_aside));
    std::vector<RegionShare> regions;
    for (const RegionRow& r : t.regions) regions.push_back({&r, w.window.length()});
    add(make_table(kRegionColumns, regions));
    add(make_table(kShapeColumns, t.tc_shape_findings));
    add(tc_precision_table(w.tensor_cores));
    add(roofline_table(Table::Roofline, t.roofline));
    add(make_table(kGapColumns, t.gpu_gaps));
  }
  add(make_table(kCollectiveColumns, t.collectives));
  if (!w.detailed) {
    add(critical_path_steps_table(w.critical_path));
    return out;
  }
  add(make_table(kMemoryOpColumns, t.memory_ops));
  add(make_table(kMemoryCurveColumns, t.memory_curve));
  add(make_table(kTimelineColumns, t.timeline.boxes));
  for (ReportTable& table : critical_path_tables(w.critical_path)) add(std::move(table));
  for (ReportTable& table : memory_snapshot_tables(t)) add(std::move(table));
  return out;
}

}  // namespace perfgate
