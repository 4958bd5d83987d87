// Compiled as a report builder is (perfgate_report's include paths), with the two columns of the
// table "system" the other way round: it must not compile (TableCatalog.ABuilderThatDriftsFailsToCompile).
#include <array>
#include <string>

#include "report/table_columns.h"

namespace perfgate {
namespace {

struct Fact {
  std::string key;
  std::string value;
};

}  // namespace

ReportTable table_probe_swapped_columns(const std::vector<Fact>& facts) {
  static constexpr auto kColumns = declared<Table::System>(std::array<Column<Fact>, 2>{{
      {"value", [](const Fact& f) { return ReportCell{f.value}; }},
      {"key", [](const Fact& f) { return ReportCell{f.key}; }},
  }});
  return make_table(kColumns, facts);
}

}  // namespace perfgate
