// Issue 58: the Kineto reader checks a name or a call stack for UTF-8 once per distinct text (when
// the builder interns it), a phase or a category where it is listed as ignored, and every other
// text it keeps as it parses. Each bad text is still repaired (U+FFFD) and counted each time the
// trace gives it, wherever it is checked.
#include <gtest/gtest.h>

#include "common/utf8.h"
#include "support/helpers.h"

namespace perfgate::testing {
namespace {

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  for (std::size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
    s.replace(at, from.size(), to);
  return s;
}

bool has_note(const Profile& p, const std::string& text) {
  for (const std::string& n : note_texts(p.notes))
    if (n.find(text) != std::string::npos) return true;
  return false;
}

constexpr const char* kFffd = "\xEF\xBF\xBD";

TEST(KinetoUtf8, EachBadTextIsRepairedAndCountedEachTimeItIsGiven) {
  TraceBuilder t;
  t.step(1, 0, 1000);
  for (int i = 0; i < 3; ++i) t.op("BAD_OP", 10 + 100 * i, 50, 10 + i, 1, R"("Call stack": "BAD_STACK")");
  t.op("good_op", 400, 50, 20, 1, R"("Call stack": "train.py(3): step", "Input type": ["BAD_TYPE"])");
  t.raw_event(R"({"ph": "X", "cat": "BAD_CAT", "name": "x", "pid": 0, "tid": 1, "ts": 5, "dur": 1})");
  t.raw_event(R"({"ph": "BAD_PH", "name": "y", "pid": 0, "tid": 1, "ts": 5})");
  t.raw_event(R"({"ph": "C", "name": "BAD_COUNTER", "pid": 0, "tid": 1, "ts": 5, "args": {"v": 1}})");
  std::string json = t.json();
  json = replace_all(json, "BAD_OP", "op_\xff");
  json = replace_all(json, "BAD_STACK", "model.py(\xc0\xaf): forward");
  json = replace_all(json, "BAD_TYPE", "fl\xed\xa0\x80oat");
  json = replace_all(json, "BAD_CAT", "cat_\x80");
  json = replace_all(json, "BAD_PH", "\xfe");
  json = replace_all(json, "BAD_COUNTER", "gpu_\xff");
  Profile p = load_json(json);

  // 3 names + 3 call stacks (checked when interned: each time), 1 input type (as it is parsed),
  // 1 category, 1 phase and 1 counter's name (where they are listed as ignored).
  EXPECT_TRUE(has_note(p, "10 strings in the trace were not valid UTF-8"))
      << ::testing::PrintToString(note_texts(p.notes));
  int bad_ops = 0;
  for (const HostEvent& h : p.host_events) {
    std::string_view name = p.strings.view(h.name);
    EXPECT_TRUE(is_valid_utf8(name)) << name;
    if (name == std::string("op_") + kFffd) {
      ++bad_ops;
      ASSERT_NE(h.details, kNone);
      EXPECT_EQ(p.strings.view(p.op_details[h.details].call_stack),
                std::string("model.py(") + kFffd + kFffd + "): forward");
    }
  }
  EXPECT_EQ(bad_ops, 3);
  EXPECT_TRUE(has_note(p, std::string("category 'cat_") + kFffd + "'"))
      << ::testing::PrintToString(note_texts(p.notes));
  EXPECT_TRUE(has_note(p, std::string("phase '") + kFffd + "'"));
  EXPECT_TRUE(has_note(p, std::string("counter 'gpu_") + kFffd + "'"));
}

// Issue 58: a time with a fraction is read to nanoseconds where the parser hands it over (not kept
// as text for the builder): the same exact values, rounding and exponents as before.
TEST(KinetoTimes, FractionalTimesAreReadExactlyAsTheyAreParsed) {
  TraceBuilder t;
  t.raw_event(
      R"({"ph": "X", "cat": "cpu_op", "name": "a", "pid": 0, "tid": 1, "ts": 1712345678901234.567, "dur": 0.0005})");
  t.raw_event(
      R"({"ph": "X", "cat": "cpu_op", "name": "b", "pid": 0, "tid": 1, "ts": 1712345678901235.2344999, "dur": 1.5e0})");
  t.raw_event(
      R"({"ph": "X", "cat": "cpu_op", "name": "c", "pid": 0, "tid": 1, "ts": 1712345678901237, "dur": 2.25})");
  Profile p = load_json(t.json());
  ASSERT_EQ(p.host_events.size(), 3u);
  EXPECT_EQ(p.host_events[0].start, 1712345678901234567LL);     // 19 digits: more than a double holds
  EXPECT_EQ(p.host_events[0].end - p.host_events[0].start, 1);  // 0.5 ns rounds half away from zero
  EXPECT_EQ(p.host_events[1].start, 1712345678901235234LL);
  EXPECT_EQ(p.host_events[1].end - p.host_events[1].start, 1500);  // an exponent: read through long double
  EXPECT_EQ(p.host_events[2].end - p.host_events[2].start, 2250);
}

}  // namespace
}  // namespace perfgate::testing
