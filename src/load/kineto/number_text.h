// Exact conversions of JSON number text: Kineto writes microseconds with up to three (or more)
// decimals, which a double cannot hold exactly at epoch-scale timestamps.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace perfgate::kineto {

// "1623142623460111.25" (µs) -> 1623142623460111250 (ns). Digits past the nanosecond are
// rounded half away from zero. Exponents are accepted. Empty on overflow or malformed text.
std::optional<std::int64_t> micros_text_to_nanos(std::string_view text);

}  // namespace perfgate::kineto
