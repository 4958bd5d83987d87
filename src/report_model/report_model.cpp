// The report model's lookups: plain data read by name (report_model/report.h).
#include "report_model/report.h"

#include <array>
#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <tuple>
#include <utility>

namespace perfgate {

const char* finding_status_name(FindingStatus status) {
  switch (status) {
    case FindingStatus::Pass:
      return "pass";
    case FindingStatus::Warn:
      return "warn";
    case FindingStatus::Fail:
      return "fail";
    case FindingStatus::NotApplicable:
      return "n/a";
    case FindingStatus::Skipped:
      return "skipped";
    case FindingStatus::Inconclusive:
      break;
  }
  return "inconclusive";
}

const ReportMetricChange* ReportBaseline::change(Metric id) const {
  for (const ReportMetricChange& c : metrics)
    if (c.metric == id) return &c;
  return nullptr;
}

const ReportMetricTrend* find_trend(const ReportModel& report, std::string_view metric) {
  if (!report.baseline) return nullptr;
  for (const ReportMetricTrend& t : report.baseline->trends)
    if (t.metric == metric) return &t;
  return nullptr;
}

const ReportTable* find_table(const std::vector<ReportTable>& tables, std::string_view name) {
  for (const auto& t : tables)
    if (t.name == name) return &t;
  return nullptr;
}

const ReportTable* find_table(const std::vector<ReportTable>& tables, Table table) {
  return find_table(tables, table_name(table));
}

ReportColumns::ReportColumns(std::vector<ReportColumn> columns)
    : columns_(std::make_shared<const std::vector<ReportColumn>>(std::move(columns))),
      size_(columns_->size()) {}

ReportColumns::ReportColumns(std::shared_ptr<const std::vector<ReportColumn>> shared)
    : columns_(std::move(shared)), size_(columns_ ? columns_->size() : 0) {}

void ReportColumns::push_back(ReportColumn column) {
  std::vector<ReportColumn> more(begin(), end());
  more.push_back(std::move(column));
  *this = ReportColumns(std::move(more));
}

namespace {

// A declared table's columns as worded: made once for each table and wording, then shared.
std::shared_ptr<const std::vector<ReportColumn>> declared_columns(Table table, TableWording wording) {
  using Key = std::tuple<std::size_t, ChangeBasis, std::size_t, bool>;
  static std::mutex made_lock;
  static std::map<Key, std::shared_ptr<const std::vector<ReportColumn>>> made;
  std::lock_guard lock(made_lock);
  auto& columns = made[Key{table_position(table), wording.basis, wording.per_item, wording.by_call}];
  if (columns) return columns;
  std::vector<ReportColumn> worded;
  const TableInfo& info = table_info(table);
  worded.reserve(info.columns.size());
  for (const ColumnInfo& c : info.columns)
    worded.push_back(
        {column_name(c.name, wording.basis), std::string(c.unit), table_text(c.description, wording)});
  columns = std::make_shared<const std::vector<ReportColumn>>(std::move(worded));
  return columns;
}

}  // namespace

namespace {

ReportTable worded_table(Table table, TableWording wording) {
  const TableInfo& info = table_info(table);
  return {std::string(info.name),
          std::string(info.title),
          table_text(info.description, wording),
          ReportColumns(declared_columns(table, wording)),
          {}};
}

bool plain(TableWording wording) {
  return wording.basis == ChangeBasis::Step && wording.per_item == 0 && !wording.by_call;
}

}  // namespace

// A table of the plain wording (every table but the delta tables) is made at its first call and
// copied at the next ones: a run folder of tiny ranks made six a rank, each worded anew from the
// catalog under a lock (issue 78). Once made, it is read without the lock. Made all at once, they
// cost a run of one worker 0.1-0.2 M instructions more than it saved.
ReportTable declared_table(Table table, TableWording wording) {
  if (!plain(wording)) return worded_table(table, wording);
  static std::array<std::atomic<const ReportTable*>, kTableCount> made{};
  static std::array<std::unique_ptr<const ReportTable>, kTableCount> held;
  std::atomic<const ReportTable*>& plain_table = made[table_position(table)];
  const ReportTable* t = plain_table.load(std::memory_order_acquire);
  if (!t) {
    static std::mutex making;
    std::lock_guard lock(making);
    std::unique_ptr<const ReportTable>& kept = held[table_position(table)];
    if (!kept) kept = std::make_unique<const ReportTable>(worded_table(table, {}));
    t = kept.get();
    plain_table.store(t, std::memory_order_release);
  }
  return *t;
}

namespace {

// Which runs show a section, by their device families.
enum class Shown : std::uint8_t { OnlyNeuron, NotOnlyNeuron, NeuronWithoutGpu, NotNeuronWithoutGpu };

constexpr std::pair<FamilySection, Shown> kFamilySections[] = {
    {FamilySection::NeuronWindow, Shown::OnlyNeuron},
    {FamilySection::NeuronFirst, Shown::OnlyNeuron},
    {FamilySection::WorkerLines, Shown::NotOnlyNeuron},
    {FamilySection::GpuSummary, Shown::NotNeuronWithoutGpu},
    {FamilySection::NeuronKeyMetrics, Shown::NeuronWithoutGpu},
};

}  // namespace

bool shows(const ReportModel& report, FamilySection section) {
  const DeviceFamilies& f = report.families;
  bool only_neuron = f.only(DeviceFamily::Neuron);
  bool neuron_without_gpu = f.has(DeviceFamily::Neuron) && !f.has(DeviceFamily::Gpu);
  for (const auto& [s, shown] : kFamilySections) {
    if (s != section) continue;
    switch (shown) {
      case Shown::OnlyNeuron:
        return only_neuron;
      case Shown::NotOnlyNeuron:
        return !only_neuron;
      case Shown::NeuronWithoutGpu:
        return neuron_without_gpu;
      case Shown::NotNeuronWithoutGpu:
        return !neuron_without_gpu;
    }
  }
  return true;
}

std::optional<double> cell_number(const ReportCell& cell) {
  if (const auto* d = std::get_if<double>(&cell)) return *d;
  if (const auto* i = std::get_if<std::int64_t>(&cell)) return static_cast<double>(*i);
  if (const auto* b = std::get_if<bool>(&cell)) return *b ? 1.0 : 0.0;
  return std::nullopt;
}

const ReportCell* find_cell(const ReportTable& table, std::size_t row, std::string_view column) {
  if (row >= table.rows.size()) return nullptr;
  for (std::size_t c = 0; c < table.columns.size() && c < table.rows[row].size(); ++c)
    if (names_column(table.columns[c].name, column)) return &table.rows[row][c];
  return nullptr;
}

}  // namespace perfgate
