// PyTorch's legacy autograd-profiler trace (a PyTorch built without Kineto: Debian's python3-torch):
// detected by content, read as CPU ops and annotations, its steps and ops table analysed; bad input
// named. The trace below is written the way torch/autograd/profiler_util.py's
// EventList.export_chrome_trace writes one, with args as Kineto spells shapes and types.
#include <gtest/gtest.h>

#include <algorithm>

#include "common/errors.h"
#include "support/helpers.h"

namespace perfgate::testing {
namespace {

std::string event(const std::string& name, const std::string& ts, const std::string& dur, int tid,
                  const std::string& args = "{}") {
  return R"({"name": ")" + name + R"(", "ph": "X", "ts": )" + ts + R"(, "dur": )" + dur + R"(, "tid": )" +
         std::to_string(tid) + R"(, "pid": "CPU functions", "args": )" + args + "}";
}

// Two steps of 1000 us; in the first, aten::linear (300 us) calls aten::addmm (250.25 us, with
// shapes) and the backward runs on thread 2; an optimizer annotation; a flow arrow (skipped).
std::string legacy_trace() {
  return "[" + event("aten::zeros", "10", "5", 1) + ", " + event("ProfilerStep#1", "100", "1000", 1) + ", " +
         event("aten::linear", "110", "300", 1) + ", " +
         event("aten::addmm", "120.5", "250.25", 1,
               R"({"Input Dims": [[16, 32], [32, 64]], "Input type": ["float", "float"]})") +
         ", " + event("AddmmBackward0", "450", "100", 2) + ", " +
         event("Optimizer.step#SGD.step", "600", "200", 1) + ", " +
         event("ProfilerStep#2", "1100", "1000", 1) + ", " + event("aten::relu", "1200", "100", 1) + ", " +
         R"({"name": "aten::relu", "ph": "s", "ts": 1200, "tid": 1, "pid": "CPU functions", "id": 0, "cat": "cpu_to_cuda", "args": {}}])";
}

TEST(LegacyReader, DetectedByItsFirstEventNotKinetoArrays) {
  std::string dir = temp_dir();
  EXPECT_EQ(detect_format(write_text(dir + "/legacy.json", legacy_trace())), "pytorch-legacy-json");
  // A Chrome trace's bare array with categories stays Kineto's.
  EXPECT_EQ(detect_format(write_text(dir + "/chrome.json",
                                     R"([{"name": "aten::mm", "cat": "cpu_op", "ph": "X", "ts": 1, "dur": 2,
                                          "pid": "CPU functions", "tid": 1}])")),
            "kineto-json");
  EXPECT_EQ(detect_format(write_text(dir + "/other.json", R"([{"name": "a", "ph": "X", "pid": 7}])")),
            "kineto-json");
}

// Issue 55, item 8: the sniff took the text from the first '{' to the first '}' of a 4 KiB head
// and looked for "pid" and "cat" in it, so a first event with a 5,000-byte name, a '}' in its name,
// "args" before "pid" or a long "tid" was taken for Kineto's ("holds no profiled activity"). It is
// a parse of the head up to the first event's end now.
TEST(LegacyReader, DetectedByParseNotText) {
  std::string dir = temp_dir();
  std::string rest =
      ", " + event("ProfilerStep#1", "100", "1000", 1) + ", " + event("aten::mm", "110", "300", 1) + "]";
  auto first = [](const std::string& name, const std::string& tid, bool args_first) {
    std::string args = R"("args": {"note": "}{ \"pid\": 7, \"cat\": 1"})";
    std::string body = R"("name": ")" + name + R"(", "ph": "X", "ts": 10, "dur": 5, "tid": )" + tid +
                       R"(, "pid": "CPU functions")";
    return "[{" + (args_first ? args + ", " + body : body + ", " + args) + "}";
  };
  for (const auto& [label, head] :
       {std::pair{"long name", first(std::string(5000, 'n'), "1", false)},
        std::pair{"brace in name", first(R"(aten::x}{\"cat\": 1)", "1", false)},
        std::pair{"args before pid", first("aten::zeros", "1", true)},
        std::pair{"long tid", first("aten::zeros", "\"" + std::string(1000000, 't') + "\"", false)}}) {
    std::string path = write_text(dir + "/legacy.json", head + rest);
    EXPECT_EQ(detect_format(path), "pytorch-legacy-json") << label;
    Profile p = load_json(head + rest, "legacy.json");
    EXPECT_EQ(p.info.format, "pytorch-legacy-json") << label;
  }
  // A first element that is not an event, or a Kineto event (it has a "cat"), is not legacy.
  EXPECT_EQ(detect_format(write_text(dir + "/a.json", "[5" + rest)), "kineto-json");
  EXPECT_EQ(detect_format(write_text(dir + "/b.json",
                                     R"([{"pid": "CPU functions", "args": {}, "cat": "cpu_op"})" + rest)),
            "kineto-json");
}

// Issue 55, item 8: elements of the array that are not objects were skipped (exit 0) where the
// Kineto reader refuses them; both say "event #N is not an object" now.
TEST(LegacyReader, EventsThatAreNotObjectsAreRefused) {
  for (const char* other : {"5", "\"x\"", "null", "[1]"}) {
    std::string text = "[" + event("ProfilerStep#1", "100", "1000", 1) + ", " +
                       event("aten::mm", "110", "300", 1) + ", " + other + "]";
    try {
      load_json(text, "bad.json");
      ADD_FAILURE() << other << ": accepted";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("bad.json: event #2 is not an object"), std::string::npos)
          << other << ": " << e.what();
    }
  }
}

TEST(LegacyReader, ReadsOpsAnnotationsThreadsAndShapes) {
  Profile p = load_json(legacy_trace(), "legacy.json");
  EXPECT_EQ(p.info.format, "pytorch-legacy-json");
  ASSERT_EQ(p.host_events.size(), 8u);  // the flow arrow ("ph": "s") is not an event
  ASSERT_EQ(p.threads.size(), 2u);
  auto find = [&](std::string_view name) {
    auto it = std::find_if(p.host_events.begin(), p.host_events.end(),
                           [&](const HostEvent& e) { return p.str(e.name) == name; });
    EXPECT_NE(it, p.host_events.end()) << name;
    return it;
  };
  EXPECT_EQ(find("ProfilerStep#1")->kind, HostKind::Annotation);
  EXPECT_EQ(find("Optimizer.step#SGD.step")->kind, HostKind::Annotation);
  EXPECT_EQ(find("AddmmBackward0")->kind, HostKind::Op);
  auto addmm = find("aten::addmm");
  EXPECT_EQ(addmm->kind, HostKind::Op);
  EXPECT_EQ(addmm->start, 120500);         // 120.5 us
  EXPECT_EQ(addmm->end, 120500 + 250250);  // + 250.25 us
  EXPECT_EQ(p.str(p.host_events[addmm->parent].name), "aten::linear");
  EXPECT_EQ(p.str(p.details(*addmm).input_dims), "[[16,32],[32,64]]");
  EXPECT_EQ(p.str(p.details(*addmm).input_types), R"(["float","float"])");
  EXPECT_NE(find("AddmmBackward0")->thread, addmm->thread);
  ASSERT_FALSE(p.notes.empty());
  EXPECT_EQ(p.notes[0].id, NoteId::legacy_trace);
  EXPECT_NE(note_text(p.notes[0]).find("legacy profiler trace"), std::string::npos) << note_text(p.notes[0]);
}

TEST(LegacyReader, StepsAndOpsTableFromTheProfilerSteps) {
  WorkerAnalysis a = analyse_json(legacy_trace());
  ASSERT_EQ(a.steps.steps.size(), 2u);
  EXPECT_EQ(a.steps.steps[0].name, "ProfilerStep#1");
  EXPECT_EQ(a.steps.steps[0].duration(), 1'000'000);  // 1000 us, no GPU work to extend it
  EXPECT_EQ(a.steps.steps[1].duration(), 1'000'000);
  auto row = std::find_if(a.tables.ops.begin(), a.tables.ops.end(),
                          [](const OpRow& r) { return r.name == "aten::linear"; });
  ASSERT_NE(row, a.tables.ops.end());
  EXPECT_EQ(row->calls, 1u);
  EXPECT_EQ(row->host_total, 300'000);
  EXPECT_EQ(row->host_self, 300'000 - 250'250);  // less its callee aten::addmm
  EXPECT_EQ(row->device_total, 0);
  auto relu = std::find_if(a.tables.ops.begin(), a.tables.ops.end(),
                           [](const OpRow& r) { return r.name == "aten::relu"; });
  ASSERT_NE(relu, a.tables.ops.end());
  EXPECT_EQ(relu->host_total, 100'000);
}

TEST(LegacyReader, BadInputNamesTheFile) {
  auto message = [](const std::string& text) {
    try {
      load_json(text, "bad.json");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  std::string cut = legacy_trace().substr(0, 200);
  EXPECT_NE(message(cut).find("bad.json: invalid JSON: the document ends early"), std::string::npos)
      << message(cut);
  std::string no_dur =
      R"([{"name": "aten::mm", "ph": "X", "ts": 5, "tid": 1, "pid": "CPU functions", "args": {}}])";
  EXPECT_NE(message(no_dur).find(R"(bad.json: the event 'aten::mm' has no "dur")"), std::string::npos)
      << message(no_dur);
  std::string negative =
      R"([{"name": "aten::mm", "ph": "X", "ts": 5, "dur": -3, "tid": 1, "pid": "CPU functions", "args": {}}])";
  EXPECT_NE(message(negative).find("lasts -3 us"), std::string::npos) << message(negative);
  std::string flows_only =
      R"([{"name": "aten::mm", "ph": "s", "ts": 5, "tid": 1, "pid": "CPU functions", "id": 0, "args": {}}])";
  EXPECT_NE(message(flows_only).find("without a complete"), std::string::npos) << message(flows_only);
}

TEST(LegacyReader, StopsAtTheInputMemoryLimit) {
  // 4,000 events of 32 bytes each (128,000 bytes) and their names: past a 64 KiB limit.
  std::string text = "[";
  for (int i = 0; i < 4000; ++i)
    text += (i ? ", " : "") + event("aten::op" + std::to_string(i), std::to_string(i * 10), "5", 1);
  text += "]";
  LoadOptions options;
  options.max_input_memory = 64 << 10;
  try {
    load_json(text, "big.json", options);
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("big.json: holding this input needs more than 64 KiB"),
              std::string::npos)
        << e.what();
  }
  options.max_input_memory = 0;  // no limit
  EXPECT_EQ(load_json(text, "big.json", options).host_events.size(), 4000u);
}

}  // namespace
}  // namespace perfgate::testing
