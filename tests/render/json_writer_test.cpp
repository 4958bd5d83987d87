// The JSON writer's fast paths (eight bytes at a time, keys checked when compiled, text written in
// place) against what a byte at a time gives: every byte value at every position of a word, in
// texts whose end falls in a whole word, an overlapping last word and a padded short one.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "render/escape.h"
#include "render/json_writer.h"

namespace perfgate::testing {
namespace {

// How append_json_string writes one byte with a plain letter on each side: the escape, or the
// byte; a byte from 0x80 up is not UTF-8 on its own and becomes U+FFFD.
std::string escaped_byte(unsigned char c) {
  const std::map<unsigned char, std::string> named = {
      {'"', "\\\""}, {'\\', "\\\\"}, {'\n', "\\n"}, {'\r', "\\r"}, {'\t', "\\t"}};
  if (auto it = named.find(c); it != named.end()) return it->second;
  if (c < 0x20 || c == 0x7F) return fmt::format("\\u{:04x}", c);
  if (c >= 0x80) return "\\ufffd";
  return std::string(1, static_cast<char>(c));
}

struct Piece {
  std::string text;
  std::string escaped;
};

// Each byte value, and the sequences whose escape depends on the bytes around them.
std::vector<Piece> pieces() {
  std::vector<Piece> all;
  for (int c = 0; c < 256; ++c) all.push_back({std::string(1, static_cast<char>(c)), escaped_byte(c)});
  all.push_back({"</", "<\\/"});
  all.push_back({"<a/", "<a/"});
  all.push_back({"\xc3\xa9", "\xc3\xa9"});                   // é
  all.push_back({"\xf0\x9f\x98\x80", "\xf0\x9f\x98\x80"});   // an emoji
  all.push_back({"\xc2\x85", "\\u0085"});                    // C1 next line
  all.push_back({"\xe2\x80\xae", "\\u202e"});                // right-to-left override
  all.push_back({"\xe2\x80", "\\ufffd\\ufffd"});             // a truncated sequence
  all.push_back({"\xed\xa0\x80", "\\ufffd\\ufffd\\ufffd"});  // an encoded surrogate
  return all;
}

// `piece` at each position 0..16 of a run of letters that ends 0..16 bytes after it.
template <typename Check>
void each_placement(Check check) {
  for (const Piece& piece : pieces())
    for (std::size_t before = 0; before <= 16; ++before)
      for (std::size_t after = 0; after <= 16; ++after) {
        std::string text = std::string(before, 'a') + piece.text + std::string(after, 'b');
        std::string expected = '"' + std::string(before, 'a') + piece.escaped + std::string(after, 'b') + '"';
        check(text, expected);
      }
}

TEST(JsonEscape, EachByteAtEachPositionIsEscapedAsAByteAtATime) {
  std::size_t checked = 0;
  each_placement([&](const std::string& text, const std::string& expected) {
    std::string out;
    append_json_string(out, text);
    ASSERT_EQ(out, expected) << fmt::format("{:?}", text);
    ++checked;
  });
  EXPECT_EQ(checked, pieces().size() * 17 * 17);
}

// The writer copies a text that needs no escape and escapes the rest as append_json_string does,
// as a value and as a key known only when run; json_text_as_is (what JsonKey checks when compiled)
// agrees on which ASCII texts need no escape (and leaves any other text to the escaping).
TEST(JsonEscape, TheWriterWritesEachTextAsAppendJsonStringDoes) {
  each_placement([&](const std::string& text, const std::string& expected) {
    JsonWriter j(0);
    j.begin_array().value(text).begin_object().key(text).value(1).end_object().end_array();
    ASSERT_EQ(j.str(), '[' + expected + ",{" + expected + ":1}]") << fmt::format("{:?}", text);
    bool ascii = std::all_of(text.begin(), text.end(), [](char c) { return c >= 0; });
    bool as_is = expected == '"' + text + '"';
    ASSERT_EQ(json_text_as_is(text), as_is && ascii) << fmt::format("{:?}", text);
  });
}

TEST(JsonEscape, AKeyCheckedWhenCompiledIsWrittenAsAnyOther) {
  JsonWriter j(0);
  j.begin_object();
  j.key("plain").value(1).key("a</b").value(2).key(std::string("a</b")).value(3);
  j.key("tab\there").value(4).key("x/y").value(5);
  j.end_object();
  EXPECT_EQ(j.str(), R"({"plain":1,"a<\/b":2,"a<\/b":3,"tab\there":4,"x/y":5})");
  static_assert(JsonKey("gpu.busy_pct").as_is());
  static_assert(!JsonKey("a</b").as_is());
}

// Runs of letters and slashes (paths) are written whole, whatever their length.
TEST(JsonEscape, PathsNeedNoEscape) {
  for (std::size_t n = 0; n < 40; ++n) {
    std::string path;
    for (std::size_t i = 0; i < n; ++i) path += i % 3 == 0 ? '/' : 'p';
    std::string out;
    append_json_string(out, path);
    EXPECT_EQ(out, '"' + path + '"');
    EXPECT_TRUE(json_text_as_is(path));
  }
}

TEST(JsonEscape, PrintableAsciiPrefixEndsAtTheFirstOtherByte) {
  for (int c = 0; c < 256; ++c)
    for (std::size_t before = 0; before <= 16; ++before)
      for (std::size_t after = 0; after <= 9; ++after) {
        std::string text = std::string(before, 'a') + static_cast<char>(c) + std::string(after, 'b');
        bool printable = c >= 0x20 && c < 0x7F;
        ASSERT_EQ(printable_ascii_prefix(text), printable ? text.size() : before) << c << ' ' << before;
      }
}

// Indentation at every depth up to past the writer's run of spaces (64: 32 levels of 2), after a
// comma and without one, and the compact form. Each document is written over a buffer that held
// other text, so that a byte the writer counts and does not write shows.
TEST(JsonWriter, IndentsAnyDepthAndWritesCompactWithoutIndent) {
  for (std::size_t depth = 1; depth <= 40; ++depth) {
    std::string written;
    JsonWriter j(2, [&](std::string_view piece) { written = piece; });
    j.value(std::string(10000, 'x'));
    j.flush();
    for (std::size_t d = 0; d < depth; ++d) j.begin_array();
    j.value(1).value(2);
    for (std::size_t d = 0; d < depth; ++d) j.end_array();
    j.flush();
    std::string expected;
    for (std::size_t d = 0; d < depth; ++d) expected += std::string(2 * d, ' ') + "[\n";
    expected += std::string(2 * depth, ' ') + "1,\n" + std::string(2 * depth, ' ') + "2\n";
    for (std::size_t d = depth; d-- > 0;) expected += std::string(2 * d, ' ') + "]" + (d ? "\n" : "");
    ASSERT_EQ(written, expected) << depth;
  }

  JsonWriter compact(0);
  compact.begin_object().key("a").begin_array().value(1).null().value(true).end_array();
  compact.key("b").begin_object().end_object().key("c").value("x").end_object();
  EXPECT_EQ(compact.str(), R"({"a":[1,null,true],"b":{},"c":"x"})");
}

// A value written on one line inside an indented document (a worker past --detailed-workers): ", "
// between members, ": " after each key, no line break until the value is closed; a run of keys
// made on one line is made again when written indented.
TEST(JsonWriter, WritesAValueOnOneLineInsideAnIndentedDocument) {
  static constexpr std::string_view kKeys[] = {"k1", "k2"};
  JsonKeyRun keys{kKeys};
  const double values[] = {1.5, std::numeric_limits<double>::quiet_NaN()};
  JsonWriter j(2);
  j.begin_object().key("a").value(1).key("w").begin_object();
  j.set_indent(JsonWriter::kOneLine);
  j.key("x").begin_array().value(1).value("y").end_array();
  j.members(keys, values);
  j.key("e").begin_object().end_object().end_object();
  j.set_indent(2);
  j.key("v").begin_object().members(keys, values).end_object();
  j.end_object();
  EXPECT_EQ(j.str(),
            "{\n  \"a\": 1,\n  \"w\": {\"x\": [1, \"y\"], \"k1\": 1.5, \"k2\": null, \"e\": {}},\n"
            "  \"v\": {\n    \"k1\": 1.5,\n    \"k2\": null\n  }\n}\n");
}

// Numbers are fmt's "{}" of the value rounded to 1e-6, whether the writer formats them with fmt's
// compiled "{}" or as whole millionths by hand; integers (and integral doubles) without a point.
TEST(JsonWriter, NumbersAreFmtsShortestRoundTrip) {
  std::mt19937_64 random(78);
  std::vector<double> values = {0.1, 1e-7, 5e-7, 1e-6, 123456.789, 1e9, 1e15, 9e15, 1e16, 1e300, -1e-300};
  // Whole millionths (written by hand) on both sides of each boundary: 1e-4, where fmt takes an
  // exponent, and 1e9, from where the value is not rounded.
  for (std::int64_t m : std::vector<std::int64_t>{99, 100, 101, 120, 999, 1000, 1001, 999999, 1000001,
                                                  123456789, 999999999999999})
    for (double sign : {1.0, -1.0}) values.push_back(sign * static_cast<double>(m) / 1e6);
  for (int i = -12; i <= 12; ++i) values.push_back(i);  // one digit, written without to_chars
  for (int i = 0; i < 20000; ++i) {
    values.push_back(static_cast<double>(random() % 1000000000000000) / 1e6);
    values.push_back(-static_cast<double>(random() % 100000) / 1e6);
    values.push_back(static_cast<double>(random() % 1000000) / 1e6 + 0.0000004);
  }
  for (int i = 0; i < 20000; ++i) {
    std::uint64_t bits = random();
    double v;
    std::memcpy(&v, &bits, sizeof v);
    values.push_back(v);
    values.push_back(static_cast<double>(bits % 100000000) / 997.0);
  }
  for (double v : values) {
    std::string expected = "null";
    if (std::isfinite(v)) {
      double rounded = std::fabs(v) < 1e9 ? std::round(v * 1e6) / 1e6 : v;
      if (rounded == 0) rounded = 0;
      bool integral = std::fabs(rounded) < 9e15 && rounded == std::floor(rounded);
      expected =
          integral ? fmt::format("{}", static_cast<std::int64_t>(rounded)) : fmt::format("{}", rounded);
    }
    ASSERT_EQ(format_json_number(v), expected) << fmt::format("{:a}", v);
    JsonWriter j(0);
    j.begin_array().value(v).value(std::int64_t{7}).end_array();
    ASSERT_EQ(j.str(), '[' + expected + ",7]");
  }
  JsonWriter j(0);
  j.begin_array()
      .value(std::numeric_limits<std::int64_t>::min())
      .value(std::numeric_limits<std::uint64_t>::max());
  j.end_array();
  EXPECT_EQ(j.str(), "[-9223372036854775808,18446744073709551615]");
}

// Members written from a run of keys, made for one depth and indentation and made again for
// another, are what key() and value() write, with the comma only after the object's first member.
TEST(JsonWriter, MembersFromAKeyRunAreThoseOfKeyAndValue) {
  const std::string_view names[] = {"a", "b</c", "x.y",
                                    "a key longer than thirty-two bytes, with its indentation"};
  const double values[] = {1.5, std::numeric_limits<double>::quiet_NaN(), -2, 0.25};
  for (int indent : {2, 0}) {
    JsonKeyRun run(names);
    auto write = [&](JsonWriter& w, bool with_run) {
      auto members = [&](JsonWriter& o, bool first) {
        o.begin_object();
        if (!first) o.key("before").value(0);
        if (with_run) o.members(run, values);
        for (std::size_t i = 0; i < std::size(names) && !with_run; ++i)
          o.key(std::string(names[i])).value(values[i]);
        o.end_object();
      };
      w.begin_object().key("m");
      members(w, true);
      w.key("list").begin_array();
      members(w, false);
      members(w, true);
      w.end_array().key("n");
      members(w, false);
      w.key("none").begin_object().members(run, {}).end_object();
      w.end_object();
    };
    JsonWriter by_run(indent), by_key(indent);
    write(by_run, true);
    write(by_key, false);
    EXPECT_EQ(by_run.str(), by_key.str()) << indent;
    EXPECT_NE(by_run.str().find(R"("b<\/c")"), std::string::npos);
  }
}

// The number writer's fast paths (an integer from pairs of digits, a whole number of millionths
// rounded without std::round and written by hand) against its general path (std::round to 1e-6,
// then fmt's shortest round trip): halfway cases and the doubles on either side of them, each
// boundary of the fast paths, negatives, -0, huge and tiny values, NaN and infinities.
TEST(JsonWriter, NumbersFastPathsWriteWhatTheGeneralPathWrites) {
  std::vector<double> values = {0.0,
                                -0.0,
                                std::numeric_limits<double>::quiet_NaN(),
                                -std::numeric_limits<double>::quiet_NaN(),
                                std::numeric_limits<double>::infinity(),
                                -std::numeric_limits<double>::infinity(),
                                std::numeric_limits<double>::min(),
                                std::numeric_limits<double>::denorm_min(),
                                std::numeric_limits<double>::max(),
                                std::numeric_limits<double>::lowest(),
                                5e-7,
                                -5e-7,
                                4.9999999999999998e-7,
                                1.5e-6,
                                2.5e-6,
                                99.5e-6,
                                100.5e-6,
                                0.4999995,
                                0.9999995,
                                999999999.9999995,
                                1e9 - 1e-7,
                                9e15,
                                -9e15,
                                9007199254740993.0,
                                1e300};
  auto with_neighbours = [&](double v) {
    for (double x : {v, -v}) {
      values.push_back(x);
      values.push_back(std::nextafter(x, std::numeric_limits<double>::infinity()));
      values.push_back(std::nextafter(x, -std::numeric_limits<double>::infinity()));
    }
  };
  // Halfway between two millionths (k + 0.5 millionths), and whole millionths: small, at the
  // 1e-4 boundary (100 millionths), at each number of digits before the point, and near 1e9.
  for (std::int64_t k = 0; k < 3000; ++k) {
    with_neighbours((static_cast<double>(k) + 0.5) / 1e6);
    with_neighbours(static_cast<double>(k) / 1e6);
  }
  for (std::int64_t scale = 1; scale <= 1000000000000000; scale *= 10)
    for (std::int64_t d = -3; d <= 3; ++d) {
      with_neighbours(static_cast<double>(scale + d) / 1e6);
      with_neighbours((static_cast<double>(scale + d) + 0.5) / 1e6);
      with_neighbours(static_cast<double>(scale + d));
    }
  // Every six-digit fraction whose pairs are each 0, 1, 9, 10, 11, 49, 50, 51, 90 or 99, and every
  // one from 0.999 up (where the digits' multiplication is nearest its error's bound).
  const int pairs[] = {0, 1, 9, 10, 11, 49, 50, 51, 90, 99};
  for (int a : pairs)
    for (int b : pairs)
      for (int c : pairs) with_neighbours(3 + (a * 10000 + b * 100 + c) / 1e6);
  for (int f = 999000; f < 1000000; ++f) values.push_back(7 + f / 1e6);
  std::mt19937_64 random(7878);
  for (int i = 0; i < 100000; ++i) {
    with_neighbours((static_cast<double>(random() % 1000000000000000) + 0.5) / 1e6);
    with_neighbours(static_cast<double>(random() % 100000000000) / 1e6);
    with_neighbours(static_cast<double>(random() % 2000000) / 997.0);
    std::uint64_t bits = random();
    double v;
    std::memcpy(&v, &bits, sizeof v);
    values.push_back(v);
  }
  for (double v : values)
    ASSERT_EQ(format_json_number(v), format_json_number_general(v)) << fmt::format("{:a}", v);
  EXPECT_EQ(format_json_number_general(0.0000005), "1e-06");  // half away from zero
  EXPECT_EQ(format_json_number_general(-0.0), "0");
  EXPECT_EQ(format_json_number_general(std::numeric_limits<double>::infinity()), "null");
}

// Integers written from pairs of digits below 10,000, by to_chars above, as to_chars writes them.
TEST(JsonWriter, IntegersAreWrittenAsToCharsWritesThem) {
  std::vector<std::int64_t> values;
  for (std::int64_t v = -20000; v <= 20000; ++v) values.push_back(v);
  for (std::int64_t scale = 10; scale < 1000000000000000000; scale *= 10)
    for (std::int64_t d = -2; d <= 2; ++d) values.push_back(scale + d);
  values.push_back(std::numeric_limits<std::int64_t>::max());
  values.push_back(std::numeric_limits<std::int64_t>::min());
  for (std::int64_t v : values) {
    JsonWriter j(0);
    j.begin_array().value(v).value(static_cast<double>(v));
    if (v >= 0) j.value(static_cast<std::uint64_t>(v));
    j.end_array();
    std::string text = fmt::format("{}", v);
    std::string as_double =
        std::fabs(static_cast<double>(v)) < 9e15 ? text : format_json_number_general(static_cast<double>(v));
    ASSERT_EQ(j.str(), '[' + text + ',' + as_double + (v >= 0 ? ',' + text : "") + ']') << v;
  }
}

// A value written once and copied: its text is what was written after the mark, and none where
// a piece of it went to the sink in between.
TEST(JsonWriter, AValueMarkedIsCopiedAsWritten) {
  auto write_value = [](JsonWriter& w) {
    w.begin_array().value("x").begin_object().key("k").value(1).end_object().end_array();
  };
  JsonWriter j;
  j.begin_object().key("a");
  JsonWriter::Mark mark = j.mark();
  write_value(j);
  std::string text(j.since(mark).value());
  j.key("b").json(text).end_object();
  JsonWriter direct;
  direct.begin_object().key("a");
  write_value(direct);
  direct.key("b");
  write_value(direct);
  direct.end_object();
  EXPECT_EQ(text, "[\n    \"x\",\n    {\n      \"k\": 1\n    }\n  ]");
  EXPECT_EQ(j.str(), direct.str());

  JsonWriter streamed(2, [](std::string_view) {});
  streamed.begin_array();
  JsonWriter::Mark before = streamed.mark();
  for (int i = 0; i < 2048; ++i) streamed.value(std::string(1024, 'a'));
  EXPECT_FALSE(streamed.since(before).has_value()) << "part of it went to the sink";
}

}  // namespace
}  // namespace perfgate::testing
