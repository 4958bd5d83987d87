// Doubles in fixed notation with a few decimals ("12.5", "-0.03"), exactly as fmt's "{:.Nf}" and
// printf's "%.Nf" write them (correctly rounded, ties to even), for the reports' tables and charts,
// which write thousands of them.
#pragma once

#include <cstddef>

namespace perfgate {

// Room for any double in fixed notation with a few decimals (DBL_MAX has 309 integer digits).
inline constexpr std::size_t kFixedTextMax = 330;

// Writes `v` with `decimals` decimals at `first` (room for kFixedTextMax chars); returns the end.
char* write_fixed(char* first, double v, int decimals);

}  // namespace perfgate
