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

constexpr std::array<Column<PrecisionShare>, 4> kColumns = {{
    {"precision", "",
     "The precision the Tensor Core kernels' names state (rules: kernel_precisions); \"unstated\": names "
     "that "
     "do not say (their op's input types may)",
     [](const PrecisionShare& r) { return ReportCell{r.precision}; }},
    {"tc_kernel_us", "us", "Tensor Core kernel time in the window",
     [](const PrecisionShare& r) { return us(r.tc); }},
    {"tc_share_pct", "%", "Share of all Tensor Core kernel time",
     [](const PrecisionShare& r) { return pct(r.tc, r.all_tc); }},
    {"kernel_share_pct", "%", "Share of all kernel time",
     [](const PrecisionShare& r) { return pct(r.tc, r.all_kernels); }},
}};

}  // namespace

ReportTable tc_precision_table(const TensorCoreSums& sums) {
  std::vector<PrecisionShare> rows;
  for (const auto& [precision, time] : sums.tc_kernel_ns_by_precision)
    if (time > 0)
      rows.push_back({precision.empty() ? "unstated" : precision, time, sums.tc_kernel_ns, sums.kernel_ns});
  std::sort(rows.begin(), rows.end(), [](const PrecisionShare& a, const PrecisionShare& b) {
    return a.tc != b.tc ? a.tc > b.tc : a.precision < b.precision;
  });
  return make_table("tc_precisions", "Tensor Core time by precision",
                    "Tensor Core kernel time by the precision the kernel names state, most first", kColumns,
                    rows);
}

}  // namespace perfgate
