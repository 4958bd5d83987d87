#include "gate/offenders.h"

#include <algorithm>

#include <fmt/format.h>

#include "common/units.h"
#include "gate/expression.h"

namespace perfgate {
namespace {

std::string text(const ReportCell& cell) {
  if (const auto* s = std::get_if<std::string>(&cell)) return *s;
  if (auto n = cell_number(cell)) return fmt::format("{:.4g}", *n);
  return "";
}

std::optional<std::size_t> column(const ReportTable& t, std::string_view name) {
  for (std::size_t c = 0; c < t.columns.size(); ++c)
    if (names_column(t.columns[c].name, name)) return c;
  return std::nullopt;
}

struct Candidate {
  ReportOffender offender;
  double sort_key = 0;
};

void collect(const OffenderQuery& q, const ReportTable& t, const std::string& prefix,
             const std::optional<Expression>& where, std::vector<Candidate>& out) {
  std::vector<std::size_t> labels;
  for (const std::string& name : label_columns(q.label))
    if (auto c = column(t, name)) labels.push_back(*c);
  auto sort = column(t, q.sort), show = column(t, q.show);
  for (const auto& row : t.rows) {
    if (where) {
      auto keep = where->evaluate([&](std::string_view name) -> std::optional<double> {
        auto c = column(t, name);
        return c && *c < row.size() ? cell_number(row[*c]) : std::nullopt;
      });
      if (!keep || *keep == 0) continue;
    }
    Candidate c;
    c.offender.label = prefix;
    for (std::size_t i = 0; i < labels.size(); ++i) {
      std::string part = labels[i] < row.size() ? text(row[labels[i]]) : "";
      if (!part.empty()) c.offender.label += (c.offender.label.size() > prefix.size() ? " " : "") + part;
    }
    if (show && *show < row.size()) {
      c.offender.value = cell_number(row[*show]);
      c.offender.value_text = format_value(c.offender.value, t.columns[*show].unit);
    }
    if (sort && *sort < row.size()) c.sort_key = cell_number(row[*sort]).value_or(0);
    out.push_back(std::move(c));
  }
}

}  // namespace

std::vector<std::string> label_columns(std::string_view label) {
  std::vector<std::string> names;
  std::size_t start = 0;
  while (start <= label.size()) {
    std::size_t comma = label.find(',', start);
    if (comma == std::string_view::npos) comma = label.size();
    std::string_view name = label.substr(start, comma - start);
    while (!name.empty() && name.front() == ' ') name.remove_prefix(1);
    while (!name.empty() && name.back() == ' ') name.remove_suffix(1);
    if (!name.empty()) names.emplace_back(name);
    start = comma + 1;
  }
  return names;
}

std::vector<ReportOffender> find_offenders(const OffenderQuery& q, const ReportModel& report) {
  std::optional<Expression> where;
  if (!q.where.empty()) where.emplace(q.where);
  std::vector<Candidate> all;
  bool several = report.workers.size() > 1;
  for (const ReportWorker& w : report.workers)
    if (const ReportTable* t = find_table(w.tables, q.table))
      collect(q, *t, several ? w.name + ": " : "", where, all);
  if (const ReportTable* t = find_table(report.tables, q.table)) collect(q, *t, "", where, all);
  if (!q.sort.empty())
    std::stable_sort(all.begin(), all.end(),
                     [](const Candidate& a, const Candidate& b) { return a.sort_key > b.sort_key; });
  std::vector<ReportOffender> out;
  for (std::size_t i = 0; i < all.size() && i < q.limit; ++i) out.push_back(std::move(all[i].offender));
  return out;
}

std::string offenders_text(const std::vector<ReportOffender>& offenders) {
  if (offenders.empty()) return "none";
  std::string out;
  for (const auto& o : offenders) {
    if (!out.empty()) out += ", ";
    out += o.label;
    if (!o.value_text.empty()) out += " (" + o.value_text + ")";
  }
  return out;
}

}  // namespace perfgate
