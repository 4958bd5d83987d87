// A finding's headline (issue 93): one line of at most kHeadlineChars characters that says what
// fired, by how much and what fixing it could gain; the problem and the recommendation are its
// details. Made here, with the finding, so that every output shows the same line (a renderer only
// chooses to show it).
#pragma once

#include <cstddef>

#include "report_model/report.h"

namespace perfgate {

inline constexpr std::size_t kHeadlineChars = 160;

// Sets f.headline (and f.headline_whole where a name was folded or the line cut) on a finding that
// fired or is inconclusive; leaves the others' empty. `terms`: the capture's words for the metric's
// label; `has_steps`: whether a gain is a share of the step time or of the window.
void set_headline(ReportFinding& f, const CaptureTerms& terms, bool has_steps);

}  // namespace perfgate
