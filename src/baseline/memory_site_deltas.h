// What is live at a memory snapshot's peak, by allocation site, against the baseline's: what grew.
#pragma once

#include "baseline/baseline.h"

namespace perfgate {

// The run table "memory_site_deltas": each site's bytes live at the peak in the baseline and now
// (summed over devices), largest growth first; no rows where neither is a memory snapshot.
ReportTable memory_site_deltas(const std::vector<BaselineSite>& before,
                               const std::vector<BaselineSite>& after);

}  // namespace perfgate
