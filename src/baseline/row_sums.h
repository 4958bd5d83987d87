// Rows summed by name, each name's GPU time, host time and calls added into one BaselineRow: the
// runs of a pooled baseline (baseline.cpp) and the matched units' work (inferred_matching.cpp),
// from any row type with those four fields (BaselineRow, ReportUnitRow).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "baseline/baseline.h"

namespace perfgate {

using RowSums = std::map<std::string, BaselineRow>;

template <class Row>
void add_rows(RowSums& into, const std::vector<Row>& rows) {
  for (const Row& r : rows) {
    BaselineRow& sum = into[r.name];
    sum.name = r.name;
    sum.gpu_us += r.gpu_us;
    sum.cpu_us += r.cpu_us;
    sum.calls += r.calls;
  }
}

}  // namespace perfgate
