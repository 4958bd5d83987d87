// write_fixed writes the digits fmt's "{:.Nf}" writes (the tables, tooltips and axis numbers of
// every report go through it): halfway cases, signs, values past its fast path.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>

#include <fmt/format.h>

#include "common/fixed_text.h"

namespace perfgate {
namespace {

std::string fixed(double v, int decimals) {
  char text[kFixedTextMax];
  return std::string(text, write_fixed(text, v, decimals));
}

void expect_as_fmt(double v) {
  for (int decimals = 0; decimals <= 4; ++decimals)
    ASSERT_EQ(fixed(v, decimals), fmt::format("{:.{}f}", v, decimals)) << fmt::format("{:.17g}", v);
}

TEST(FixedText, HalfwayCasesRoundAsFmt) {
  for (double v : {0.25, 0.125, 2.5, 0.5, 1.5, -2.5, 0.15, 0.35, 9.95, 99.95, 999.9995, 0.0005, 123456.785})
    expect_as_fmt(v);
}

TEST(FixedText, SignsAsFmt) {
  EXPECT_EQ(fixed(-0.04, 1), "-0.0");
  EXPECT_EQ(fixed(-0.0, 2), "-0.00");
  for (double v : {0.0, -0.0, 0.04, -0.04, -5e-324, 5e-324, -1234.5678}) expect_as_fmt(v);
}

TEST(FixedText, LargeAndSpecialValuesAsFmt) {
  for (double v : {1e12, -1e12, 999999999999.9, 599901207680.05005, 1e15, 1e20, 1.7976931348623157e308,
                   std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity(),
                   std::numeric_limits<double>::quiet_NaN()})
    expect_as_fmt(v);
}

TEST(FixedText, RandomValuesAsFmt) {
  std::mt19937_64 random(42);
  std::uniform_real_distribution<double> unit(0, 1);
  for (int i = 0; i < 200000; ++i) {
    double v = 0;
    switch (i % 4) {
      case 0:  // any magnitude a table shows
        v = (unit(random) - 0.5) * std::pow(10, static_cast<int>(unit(random) * 16) - 4);
        break;
      case 1: {  // any finite double
        std::uint64_t bits = random();
        std::memcpy(&v, &bits, sizeof v);
        if (!std::isfinite(v)) v = 1;
        break;
      }
      case 2:  // near halfway for one decimal
        v = std::round(unit(random) * 1e6) / 10.0 + 0.05;
        break;
      default:  // microseconds with three decimals, as traces record them
        v = static_cast<double>(random() % 10000000000) / 1000.0;
    }
    expect_as_fmt(v);
  }
}

}  // namespace
}  // namespace perfgate
