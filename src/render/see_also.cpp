#include "render/see_also.h"

#include <fmt/format.h>

#include "render/format.h"

namespace perfgate {
namespace {

bool has_rows(const ReportModel& r, std::string_view name) {
  if (const ReportTable* t = find_table(r.tables, name); t && !t->rows.empty()) return true;
  for (const ReportWorker& w : r.workers)
    if (const ReportTable* t = find_table(w.tables, name); t && !t->rows.empty()) return true;
  return false;
}

}  // namespace

std::vector<SeeAlso> see_also(const ReportModel& r, const ReportFinding& f) {
  std::vector<SeeAlso> out;
  for (const std::string& name : f.see)
    if (has_rows(r, name)) out.push_back({name, table_title(r, name)});
  return out;
}

std::string see_elsewhere_text(const ReportModel& r, const ReportFinding& f) {
  std::vector<SeeAlso> tables = see_also(r, f);
  if (tables.empty()) return "";
  std::string list = tables.front().title;
  for (std::size_t i = 1; i < tables.size(); ++i)
    list += (i + 1 == tables.size() ? " and " : ", ") + tables[i].title;
  return fmt::format("See the {} table{} of the HTML report or the XLSX workbook.", list,
                     tables.size() > 1 ? "s" : "");
}

}  // namespace perfgate
