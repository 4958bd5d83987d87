// The report invariants: rules a report's numbers obey before the report prints them (a share of a
// peak at most 100%, a throughput and an MFU over the same span, shares that add up), declared once
// (common/invariant_catalog.def) and checked by the analysis (src/analyse/invariants.h). A number
// that breaks one is withheld and the report says which assumption behind it is in doubt.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/notes.h"

namespace perfgate {

enum class ReportInvariant : std::uint8_t {
#define PERFGATE_INVARIANT(id, ...) id,
#include "common/invariant_catalog.def"
#undef PERFGATE_INVARIANT
};

struct InvariantInfo {
  std::string_view name;
  std::string_view statement;
  std::string_view withheld;    // what the report leaves out when it does not hold
  std::string_view assumption;  // what the numbers rested on that a violation puts in doubt
};

std::span<const InvariantInfo> invariant_catalog();
const InvariantInfo& invariant_info(ReportInvariant invariant);

// One invariant a report's numbers broke: what was found, what was withheld, and the assumption in
// doubt in the words of the case (the values that broke it).
struct InvariantViolation {
  ReportInvariant invariant = ReportInvariant::UtilizationAtMostPeak;
  std::string found;                  // "compute.mfu_pct 224.3% > 100%"
  std::vector<std::string> withheld;  // metric names, or "roofline rows: aten::fill_ [[...]]"
  std::string assumption;             // the doubted assumption, for this case
};

// The warning every output shows for it: "report invariant <name> does not hold: ...".
Note invariant_warning(const InvariantViolation& v);

}  // namespace perfgate
