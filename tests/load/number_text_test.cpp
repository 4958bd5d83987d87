#include <gtest/gtest.h>

#include "load/kineto/number_text.h"

namespace perfgate::kineto {
namespace {

TEST(MicrosToNanos, KeepsFractionalMicrosecondsExactly) {
  EXPECT_EQ(micros_text_to_nanos("1623142623460111"), 1623142623460111000LL);
  EXPECT_EQ(micros_text_to_nanos("4458676522690.655"), 4458676522690655LL);
  // 19 significant digits: more than a double holds.
  EXPECT_EQ(micros_text_to_nanos("1712345678901234.567"), 1712345678901234567LL);
  EXPECT_EQ(micros_text_to_nanos("0.5"), 500);
  EXPECT_EQ(micros_text_to_nanos("12"), 12000);
}

TEST(MicrosToNanos, RoundsBelowANanosecondHalfAwayFromZero) {
  EXPECT_EQ(micros_text_to_nanos("1.2345"), 1235);
  EXPECT_EQ(micros_text_to_nanos("1.2344999"), 1234);
  EXPECT_EQ(micros_text_to_nanos("-1.2345"), -1235);
}

TEST(MicrosToNanos, AcceptsExponentsAndNegatives) {
  EXPECT_EQ(micros_text_to_nanos("1.5e3"), 1500000);
  EXPECT_EQ(micros_text_to_nanos("-20"), -20000);
}

TEST(MicrosToNanos, RejectsOverflowAndGarbage) {
  EXPECT_FALSE(micros_text_to_nanos("99999999999999999999"));
  EXPECT_FALSE(micros_text_to_nanos("1e300"));
  EXPECT_FALSE(micros_text_to_nanos("abc"));
  EXPECT_FALSE(micros_text_to_nanos(""));
  EXPECT_FALSE(micros_text_to_nanos(".5"));
}

// The integer part is read eight digits at a time while eight remain: texts whose first eight
// bytes are not all digits, leading zeros, and 24 digits (a third word would overflow) read as
// digit by digit.
TEST(MicrosToNanos, ReadsEightDigitsAtATimeAsOneAtATime) {
  EXPECT_EQ(micros_text_to_nanos("12345.678901"), 12345679LL);
  EXPECT_EQ(micros_text_to_nanos("1234567.8"), 1234567800LL);
  EXPECT_EQ(micros_text_to_nanos("12345678"), 12345678000LL);
  EXPECT_EQ(micros_text_to_nanos("123456789"), 123456789000LL);
  EXPECT_EQ(micros_text_to_nanos("0000000000000001.5"), 1500);
  EXPECT_EQ(micros_text_to_nanos("-1712195495519689.047"), -1712195495519689047LL);
  EXPECT_EQ(micros_text_to_nanos("00000000000000009223372036854775"), 9223372036854775000LL);
  EXPECT_FALSE(micros_text_to_nanos("000000000000000009223372036854776"));
  EXPECT_FALSE(micros_text_to_nanos("999999999999999999999999"));
  EXPECT_FALSE(micros_text_to_nanos("1234567x.5"));
  EXPECT_FALSE(micros_text_to_nanos("12345678/"));
  EXPECT_FALSE(micros_text_to_nanos("1234567:"));
  EXPECT_EQ(micros_text_to_nanos("12345678e1"), 123456780000LL);
}

// Found by kineto_fuzz: 9223372036854776 µs passed the digit check and overflowed when scaled to ns.
TEST(MicrosToNanos, RejectsMicrosecondsWhoseNanosecondsOverflow) {
  EXPECT_FALSE(micros_text_to_nanos("9223372036854776"));
  EXPECT_FALSE(micros_text_to_nanos("-9223372036854776.5"));
  EXPECT_FALSE(micros_text_to_nanos("9223372036854775.808"));
  EXPECT_FALSE(micros_text_to_nanos("9223372036854775.8075"));  // rounds up past 2^63 - 1
  EXPECT_EQ(micros_text_to_nanos("9223372036854775.807"), 9223372036854775807LL);
  EXPECT_EQ(micros_text_to_nanos("9223372036854775.8074"), 9223372036854775807LL);
  EXPECT_EQ(micros_text_to_nanos("9223372036854775"), 9223372036854775000LL);
  EXPECT_EQ(micros_text_to_nanos("-9223372036854775.807"), -9223372036854775807LL);
}

}  // namespace
}  // namespace perfgate::kineto
