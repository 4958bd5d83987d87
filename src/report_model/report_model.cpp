// The report model's lookups: plain data read by name (perfgate/report.h).
#include "perfgate/report.h"

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

DeviceFamily device_family(const ReportModel& report) {
  std::size_t neuron = 0;
  for (const ReportInput& input : report.inputs)
    neuron += std::string_view(input.format).starts_with("neuron");
  if (neuron == 0) return DeviceFamily::Trace;
  return neuron == report.inputs.size() ? DeviceFamily::Neuron : DeviceFamily::Mixed;
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
    if (table.columns[c].name == column) return &table.rows[row][c];
  return nullptr;
}

}  // namespace perfgate
