#include "report/precision_table.h"

#include <algorithm>

#include "report/report_cells.h"
#include "report/table_columns.h"

namespace perfgate {
namespace {

struct PrecisionShare {
  std::string precision;
  TimeNs tc = 0;
  TimeNs all_tc = 0;
  TimeNs all_kernels = 0;
};

constexpr auto kColumns = declared<Table::TcPrecisions>(std::array<Column<PrecisionShare>, 4>{{
    {"precision", [](const PrecisionShare& r) { return ReportCell{r.precision}; }},
    {"tc_kernel_us", [](const PrecisionShare& r) { return us(r.tc); }},
    {"tc_share_pct", [](const PrecisionShare& r) { return pct(r.tc, r.all_tc); }},
    {"kernel_share_pct", [](const PrecisionShare& r) { return pct(r.tc, r.all_kernels); }},
}});

}  // namespace

ReportTable tc_precision_table(const TensorCoreSums& sums) {
  std::vector<PrecisionShare> rows;
  for (const auto& [precision, time] : sums.tc_kernel_ns_by_precision)
    if (time > 0)
      rows.push_back({precision.empty() ? "unstated" : precision, time, sums.tc_kernel_ns, sums.kernel_ns});
  std::sort(rows.begin(), rows.end(), [](const PrecisionShare& a, const PrecisionShare& b) {
    return a.tc != b.tc ? a.tc > b.tc : a.precision < b.precision;
  });
  return make_table(kColumns, rows);
}

}  // namespace perfgate
