// Reading a profile's scalars as the type a field means, whatever JSON type it was written as:
// neuron-profile writes some numbers and booleans as strings ("dma_engine": "2", "uses_hbm": "false").
// Integers are read as integers (ids reach ~9.2e18, beyond a double's exact range).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "load/neuron/row_handler.h"

namespace perfgate::neuron {

// An integer: integers as written; a double or a numeric string truncated toward zero when within
// int64; empty for null, booleans, text, NaN and values beyond int64.
std::optional<std::int64_t> as_integer(const Scalar& v);
// A finite number (numeric strings too); empty otherwise.
std::optional<double> as_number(const Scalar& v);
// true/false, "true"/"false" (any case), or a number (non-zero: true); empty otherwise.
std::optional<bool> as_flag(const Scalar& v);
// Text: strings as written, numbers in decimal, booleans as true/false; empty for null.
std::string as_text(const Scalar& v);

}  // namespace perfgate::neuron
