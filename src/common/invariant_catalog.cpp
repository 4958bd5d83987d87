// The report invariants' table, from its rows in common/invariant_catalog.def, and the warning a
// broken one makes.
#include <fmt/format.h>

#include "common/report_invariants.h"

namespace perfgate {
namespace {

constexpr InvariantInfo kCatalog[] = {
#define PERFGATE_INVARIANT(id, name, statement, withheld, assumption) {name, statement, withheld, assumption},
#include "common/invariant_catalog.def"
#undef PERFGATE_INVARIANT
};

}  // namespace

std::span<const InvariantInfo> invariant_catalog() {
  return kCatalog;
}

const InvariantInfo& invariant_info(ReportInvariant invariant) {
  return kCatalog[static_cast<std::size_t>(invariant)];
}

Note invariant_warning(const InvariantViolation& v) {
  return note<NoteId::report_invariant_broken>(
      arg<"name">(std::string(invariant_info(v.invariant).name)), arg<"found">(v.found),
      arg<"withheld">(fmt::format("{}", fmt::join(v.withheld, ", "))), arg<"assumption">(v.assumption));
}

}  // namespace perfgate
