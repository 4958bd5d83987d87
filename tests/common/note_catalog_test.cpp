// The run notes' catalog (common/note_catalog.def): every row complete, ids and positions agree,
// and a note's sentence rendered from its message and arguments (numbers, formats, the word for a
// count, the parts said only where a count is not 0), as the outputs show it.
#include <gtest/gtest.h>

#include <array>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "common/binary_codec.h"
#include "common/notes.h"
#include "render/format.h"
#include "report_model/report.h"

namespace perfgate::testing {
namespace {

bool snake_case(std::string_view id) {
  if (id.empty() || id.front() == '_' || id.back() == '_') return false;
  for (char c : id)
    if (!note_detail::is_name_char(c)) return false;
  return true;
}

// Whether every '{' of the message closes, the choices' braces included.
bool braces_balance(std::string_view message) {
  int depth = 0;
  for (char c : message) {
    if (c == '{') ++depth;
    if (c == '}' && --depth < 0) return false;
  }
  return depth == 0;
}

TEST(NoteCatalog, EveryNoteHasAnIdASeverityASourceAMessageAndWhatToDo) {
  ASSERT_EQ(note_catalog().size(), kNoteCount);
  std::set<std::string_view> ids;
  for (std::size_t i = 0; i < kNoteCount; ++i) {
    const NoteInfo& n = note_catalog()[i];
    EXPECT_TRUE(snake_case(n.id)) << n.id;
    EXPECT_TRUE(ids.insert(n.id).second) << n.id << " twice";
    EXPECT_FALSE(n.source.empty()) << n.id;
    EXPECT_FALSE(n.message.empty()) << n.id;
    EXPECT_FALSE(n.help.empty()) << n.id;
    EXPECT_TRUE(braces_balance(n.message)) << n.id;
    EXPECT_NE(note_severity_name(n.severity), "") << n.id;
    EXPECT_EQ(n.message, kNoteMessages[i]) << n.id;
    EXPECT_EQ(&note_info(static_cast<NoteId>(i)), &n) << n.id;
  }
  EXPECT_EQ(note_info(NoteId::kineto_flow_one_end).id, "kineto_flow_one_end");
  EXPECT_EQ(note_info(NoteId::kineto_flow_one_end).severity, NoteSeverity::DataLoss);
  EXPECT_EQ(note_info(NoteId::kineto_flow_one_end).source, "reader: Kineto/Chrome trace");
  EXPECT_EQ(note_info(NoteId::history_other_gpus).source, "run history");
}

TEST(NoteCatalog, SeveritiesHaveTheirNames) {
  EXPECT_EQ(note_severity_name(NoteSeverity::Info), "info");
  EXPECT_EQ(note_severity_name(NoteSeverity::Warning), "warning");
  EXPECT_EQ(note_severity_name(NoteSeverity::DataLoss), "data-loss");
  std::set<NoteSeverity> used;
  for (const NoteInfo& n : note_catalog()) used.insert(n.severity);
  EXPECT_EQ(used.size(), 3u) << "each severity is some note's";
}

// The check note<>() makes as it compiles: the arguments are the message's placeholders, each once.
TEST(NoteCatalog, ArgumentsMustBeTheMessagesPlaceholders) {
  using Names2 = std::array<std::string_view, 2>;
  static_assert(note_detail::names_match("{count} of {table}", Names2{"count", "table"}));
  static_assert(note_detail::names_match("{count} {count|row|rows} of {table}", Names2{"table", "count"}));
  static_assert(!note_detail::names_match("{count} of {table}", Names2{"count", "tables"}));
  static_assert(!note_detail::names_match("{count} rows", Names2{"count", "table"}));
  static_assert(note_detail::names_match("a{more?, {n} more}", Names2{"more", "n"}));
  static_assert(!note_detail::names_match("{count}", std::array<std::string_view, 2>{"count", "count"}));
}

TEST(NoteText, IntegersRealNumbersAndTextAreFormatted) {
  Note n = note<NoteId::steps_work_before_window>(arg<"count">(509), arg<"ms">(13.7419), arg<"pct">(30.06));
  EXPECT_EQ(
      note_text(n),
      "509 GPU activities (13.742 ms of GPU time, 30.1% of the trace's) started before the window's first "
      "step and are left out of the window's metrics (launched before the profiler began or by earlier "
      "steps)");
  EXPECT_EQ(note_text(note<NoteId::nsys_rows_bad_time>(arg<"count">(std::size_t{2}),
                                                       arg<"table">(std::string("NVTX_EVENTS")))),
            "2 rows of NVTX_EVENTS skipped: a negative or absurd timestamp (at most 2^62 ns)");
  // A real number without a format is written as fmt writes it, shortest.
  Note units = note<NoteId::steps_inferred_iterations>(
      arg<"units">(5), arg<"kind">("op"), arg<"family">("block.#"), arg<"median_ms">(10.0),
      arg<"per_unit">(4.0), arg<"host_work">(false), arg<"set_aside">(1));
  EXPECT_EQ(note_text(units),
            "inferred iterations: 5 units of the repeating op 'block.#' (median 10.000 ms, 4 GPU activities "
            "launched a unit, 1 unit of other work set aside); a unit may be a layer or a micro-batch rather "
            "than a training step. They are the window's steps (--step-pattern inferred).");
}

TEST(NoteText, TheWordForACountIsTheOneOfOneOrOfOthers) {
  auto utf8 = [](int count) { return note_text(note<NoteId::kineto_invalid_utf8>(arg<"count">(count))); };
  EXPECT_EQ(utf8(1), "1 string in the trace was not valid UTF-8: the bad bytes are shown as U+FFFD");
  EXPECT_EQ(utf8(2), "2 strings in the trace were not valid UTF-8: the bad bytes are shown as U+FFFD");
  EXPECT_EQ(utf8(0), "0 strings in the trace were not valid UTF-8: the bad bytes are shown as U+FFFD");
  // An empty branch: nothing for one, ", ..." for more.
  auto lines = [](int count) {
    return note_text(note<NoteId::xspace_derived_lines>(arg<"count">(count), arg<"first">("Steps")));
  };
  EXPECT_EQ(lines(1),
            "1 device lines that are not streams ('Steps') were left out: XProf derives them from the "
            "streams");
  EXPECT_EQ(lines(3),
            "3 device lines that are not streams ('Steps', ...) were left out: XProf derives them "
            "from the streams");
}

TEST(NoteText, APartIsSaidOnlyWhereItsCountIsNotZeroOrItsTextNotEmpty) {
  auto legacy = [](bool no_shapes) {
    return note_text(note<NoteId::legacy_trace>(arg<"no_shapes">(no_shapes)));
  };
  EXPECT_EQ(
      legacy(false),
      "a PyTorch legacy profiler trace (PyTorch built without Kineto): CPU ops and annotations only, no GPU "
      "activity");
  EXPECT_EQ(
      legacy(true),
      "a PyTorch legacy profiler trace (PyTorch built without Kineto): CPU ops and annotations only, no GPU "
      "activity, no input shapes (this format does not write record_shapes' shapes)");
  // A text: the branch holds the argument itself, the other branch is said where it is empty.
  auto category = [](std::string name) {
    return note_text(note<NoteId::kineto_category_unused>(arg<"count">(3), arg<"category">(name)));
  };
  EXPECT_EQ(category("python_function"), "3 complete events of category 'python_function' are not used");
  EXPECT_EQ(category(""), "3 complete events of category '(none)' are not used");
  // Choices inside a branch.
  auto copy = [](int queued) {
    return note_text(note<NoteId::ops_blocking_copy>(arg<"call">("cudaMemcpy"), arg<"start_ms">(0.14),
                                                     arg<"bytes">(256), arg<"direction">("device to host"),
                                                     arg<"wait_ms">(463.275), arg<"idle_ms">(463.25),
                                                     arg<"queued">(queued)));
  };
  EXPECT_NE(copy(1).find("; 1 GPU activity launched before it had not started when it began:"),
            std::string::npos)
      << copy(1);
  EXPECT_NE(copy(4).find("; 4 GPU activities launched before it"), std::string::npos) << copy(4);
  EXPECT_TRUE(copy(0).ends_with("; no GPU work was queued behind it")) << copy(0);
}

// A note built without an argument its message names (not through note<>(), which refuses it as it
// compiles) shows the placeholder: never a crash, and the gap is visible.
TEST(NoteText, AMissingArgumentShowsItsPlaceholder) {
  EXPECT_EQ(note_text(Note{NoteId::rocprof_marks_unused, {}}),
            "{count} roctx marks (roctxMarkA) are points in time, not regions: left out");
  EXPECT_EQ(note_text(Note{NoteId::kineto_invalid_utf8, {}}),
            "{count} strings in the trace were not valid UTF-8: the bad bytes are shown as U+FFFD");
  EXPECT_EQ(note_text(Note{static_cast<NoteId>(kNoteCount), {}}), "");
}

// A note given twice is kept twice, in order, as its sentence was before the catalog; notes are
// equal where their ids and arguments are.
TEST(NoteText, ANotePushedTwiceIsKeptTwice) {
  std::vector<Note> notes;
  notes.push_back(note<NoteId::rocprof_marks_unused>(arg<"count">(2)));
  notes.push_back(note<NoteId::rocprof_marks_unused>(arg<"count">(2)));
  notes.push_back(note<NoteId::rocprof_marks_unused>(arg<"count">(3)));
  EXPECT_EQ(notes[0], notes[1]);
  EXPECT_NE(notes[1], notes[2]);
  std::vector<std::string> texts = note_texts(notes);
  ASSERT_EQ(texts.size(), 3u);
  EXPECT_EQ(texts[0], texts[1]);
  EXPECT_EQ(texts[2], "3 roctx marks (roctxMarkA) are points in time, not regions: left out");
  // A report's line names the worker; notes several workers share are said once.
  ReportModel r;
  r.warnings = {{"rank-0", notes[0]}, {"rank-1", notes[1]}, {"", notes[2]}};
  EXPECT_EQ(note_line(r.warnings[0]), "rank-0: " + texts[0]);
  EXPECT_EQ(note_line(r.warnings[2]), texts[2]);
  EXPECT_EQ(grouped_notes(r), (std::vector<std::string>{"rank-0 and rank-1: " + texts[0], texts[2]}));
}

// Partial reports carry notes by id and arguments: they decode to the same notes.
TEST(NoteText, NotesRoundTripThroughThePartialReportsEncoding) {
  std::vector<Note> notes = {
      note<NoteId::steps_work_before_window>(arg<"count">(509), arg<"ms">(13.7419), arg<"pct">(30.06)),
      note<NoteId::input_skipped>(arg<"reason">("x.json: not a trace")),
      Note{NoteId::legacy_trace, {}},
  };
  binary_codec::Writer writer;
  writer.put(notes);
  std::vector<Note> back;
  binary_codec::Reader reader(writer.bytes());
  reader.get(back);
  EXPECT_TRUE(reader.done());
  EXPECT_EQ(back, notes);
  // A note id this build does not know is refused, not read as another note.
  std::string bytes = writer.bytes();
  bytes[8] = static_cast<char>(0xff);  // after the count (u64): the first note's id (u16)
  bytes[9] = static_cast<char>(0xff);
  binary_codec::Reader bad(bytes);
  EXPECT_THROW(bad.get(back), binary_codec::DecodeError);
}

}  // namespace
}  // namespace perfgate::testing
