// libFuzzer harness: bytes as a rule expression, parsed and evaluated with a value for every name
// (derived from the name, so comparisons and divisions take both sides). std::invalid_argument is
// the documented outcome for an invalid expression; anything else is a bug.
#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string_view>

#include "gate/expression.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    perfgate::Expression expression(text);
    (void)expression.variables();
    auto lookup = [](std::string_view name) -> std::optional<double> {
      std::size_t h = std::hash<std::string_view>{}(name);
      if (h % 7 == 0) return std::nullopt;  // a metric that does not apply
      return static_cast<double>(h % 201) - 100.0;
    };
    (void)expression.evaluate(lookup);
  } catch (const std::invalid_argument&) {
  }
  return 0;
}
