// Reading a trace in pieces on several threads must give the profile of one serial pass: every
// record, id, string number, thread number, note and metadata field (describe() below prints
// them all). Traces here are cut at every event start, read in reads of a few bytes, and carry
// what depends on order across pieces: text ids, thread names, flows, ignored names.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <functional>
#include <sstream>

#include <fmt/format.h>

#include "common/errors.h"
#include "io/gzip.h"
#include "load/kineto/kineto_reader.h"
#include "load/kineto/parallel_reader.h"
#include "load/kineto/trace_text.h"
#include "support/helpers.h"

namespace perfgate::testing {
namespace {

using kineto::ReadOptions;

// Hands out `text` at most `step` bytes per read.
class TextSource : public ByteSource {
 public:
  TextSource(std::string text, std::size_t step) : text_(std::move(text)), step_(step) {}
  std::size_t read(char* out, std::size_t size) override {
    std::size_t n = std::min({size, step_, text_.size() - at_});
    std::memcpy(out, text_.data() + at_, n);
    at_ += n;
    return n;
  }
  std::uint64_t file_bytes_consumed() const override { return at_; }

 private:
  std::string text_;
  std::size_t step_;
  std::size_t at_ = 0;
};

// Every field of the profile, with ids and the strings they name.
std::string describe(const Profile& p) {
  std::ostringstream out;
  auto s = [&](StringId id) { return fmt::format("{}:'{}'", id, p.str(id)); };
  out << "strings " << p.strings.size() << "\n";
  for (StringId i = 0; i < p.strings.size(); ++i) out << "  " << s(i) << "\n";
  for (const auto& t : p.threads) out << fmt::format("thread {} {} {}\n", t.pid, t.tid, s(t.name));
  for (const auto& h : p.host_events)
    out << fmt::format("host {} {} {} {} {} {} {}\n", h.start, h.end, s(h.name), h.parent,
                       static_cast<unsigned>(h.thread), static_cast<int>(h.kind), h.details);
  for (const auto& d : p.op_details)
    out << fmt::format("details {} {} {} {} {} {} {}\n", d.external_id, s(d.input_dims), s(d.input_types),
                       s(d.concrete_inputs), s(d.call_stack), d.sequence_number, d.flops);
  for (const auto& r : p.runtime_calls)
    out << fmt::format("runtime {} {} {} {} {} {}\n", r.start, r.end, r.correlation, r.external_id, s(r.name),
                       r.thread);
  for (const auto& a : p.gpu_activities)
    out << fmt::format("gpu {} {} {} {} {} {} {} {} {} {} {} {}\n", a.start, a.end, a.correlation,
                       a.external_id, a.bytes, s(a.name), a.kernel_info, a.device, a.stream,
                       static_cast<int>(a.kind), static_cast<int>(a.copy_kind), a.pageable);
  for (const auto& k : p.kernel_info)
    out << fmt::format("kernel {} {} {} {} {} {} {} {} {} {}\n", k.grid[0], k.grid[1], k.grid[2], k.block[0],
                       k.block[1], k.block[2], k.registers_per_thread, k.shared_memory, k.blocks_per_sm,
                       k.occupancy_pct);
  for (const auto& r : p.gpu_ranges)
    out << fmt::format("range {} {} {} {} {}\n", r.start, r.end, s(r.name), r.device, r.stream);
  for (const auto& l : p.forward_backward_links)
    out << fmt::format("link {} {} {} {}\n", l.forward_start, l.forward_thread, l.backward_start,
                       l.backward_thread);
  for (const auto& m : p.memory_samples)
    out << fmt::format("memory {} {} {} {} {} {}\n", m.time, m.bytes, m.total_allocated, m.total_reserved,
                       m.device_id, m.thread);
  for (const auto& c : p.collectives)
    out << fmt::format("collective {} {} {} {} {} {}\n", c.external_id, c.in_elements, c.out_elements,
                       s(c.dtype), s(c.collective), c.group_size);
  for (const auto& d : p.devices)
    out << fmt::format("device {} {} {} {} {} {}\n", d.id, d.name, d.compute_major, d.compute_minor,
                       d.total_memory_bytes, d.sm_count);
  const ProfileInfo& i = p.info;
  out << fmt::format("info {} {} {} {} {} {} {} {} {} {}\n", i.format, i.schema_version, i.trace_name,
                     i.base_time_ns.value_or(-1), i.rank.value_or(-1), i.world_size.value_or(-1),
                     i.distributed_backend, i.profiler_start, i.profiler_end, i.window_spans_capture);
  for (const auto& [k, v] : i.attributes) out << "attribute " << k << "=" << v << "\n";
  for (const auto& n : p.notes) out << "note " << note_text(n) << "\n";
  return out.str();
}

Profile serial(const std::string& text) {
  return kineto::read_trace(std::make_unique<TextSource>(text, 1 << 20), "t.json", {});
}

std::optional<Profile> in_pieces(const std::string& text, std::size_t piece_bytes, std::size_t read_step,
                                 unsigned threads = 2) {
  TextSource source(text, read_step);
  return kineto::read_trace_in_pieces(source, "t.json", {},
                                      ReadOptions{.threads = threads, .piece_bytes = piece_bytes});
}

// Events whose meaning depends on what came before them, spread over the whole trace.
std::string order_sensitive_trace(int rounds) {
  std::string events;
  auto add = [&](const std::string& e) { events += (events.empty() ? "\n  " : ",\n  ") + e; };
  add(R"J({"ph": "M", "name": "thread_name", "pid": "Spans", "tid": "PyTorch Profiler", "args": {"name": "spans"}})J");
  for (int r = 0; r < rounds; ++r) {
    double t = 1000.0 * r;
    // "Spans" is text id -1 by the time these come, so tid "Spans" and tid -1 are one thread.
    const char* threads[] = {"\"Spans\"", "-1", "7", "\"main\""};
    std::string thread = threads[r % 4];
    add(fmt::format(
        R"J({{"ph": "X", "cat": "cpu_op", "name": "aten::mm_{}", "pid": 1, "tid": {}, "ts": {}, "dur": 50,
    "args": {{"External id": {}, "Input Dims": [[{}, 8], [8, 8]], "Input type": ["float", "float"],
      "Sequence number": {}, "nested": [{{"a": 1}}, {{"b": [2, {{"c": 3}}]}}], "Call stack": "train.py({}): step"}}}})J",
        r % 5, thread, t, 100 + r, r, r, r % 4));
    add(fmt::format(
        R"J({{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": {}, "ts": {}, "dur": 5, "args": {{"correlation": {}, "External id": {}}}}})J",
        thread, t + 10, 500 + r, 100 + r));
    add(fmt::format(
        R"J({{"ph": "X", "cat": "cuda_driver", "name": "cuLaunchKernel", "pid": 1, "tid": 2, "ts": {}, "dur": 2}})J",
        t + 11));
    add(fmt::format(
        R"J({{"ph": "X", "cat": "kernel", "name": "gemm_{}", "pid": "gpu{}", "tid": "stream 7", "ts": {}.125, "dur": 30,
    "args": {{"correlation": {}, "grid": [{}, 1, 1], "block": [128, 1, 1], "registers per thread": 32}}}})J",
        r % 7, r % 2, t + 20, 500 + r, r + 1));
    add(fmt::format(
        R"J({{"ph": "X", "cat": "gpu_user_annotation", "name": "## fwd {} ##", "pid": "gpu{}", "tid": "stream 7", "ts": {}, "dur": 40}})J",
        r % 2, r % 2, t + 15));
    add(fmt::format(
        R"J({{"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD (Pageable -> Device)", "pid": 0, "tid": "stream 7", "ts": {}, "dur": 3, "args": {{"device": 0, "stream": 7, "bytes": {}}}}})J",
        t + 60, 4096 * r));
    add(fmt::format(
        R"J({{"ph": "i", "s": "t", "name": "[memory]", "pid": 1, "tid": {}, "ts": {}, "args": {{"Device Type": 1, "Device Id": 0, "Bytes": {}, "Total Allocated": {}}}}})J",
        thread, t + 12, r % 2 ? -512 : 1024, 1024 * (r + 1)));
    add(fmt::format(
        R"J({{"ph": "{}", "id": "fb{}", "cat": "fwdbwd", "name": "fwdbwd", "pid": 1, "tid": {}, "ts": {}}})J",
        r % 2 ? "f" : "s", r / 2, thread, t + 1));  // s in one round, f in the next
    add(fmt::format(
        R"J({{"ph": "X", "cat": "Trace{}", "name": "ignored", "pid": 1, "tid": 1, "ts": {}, "dur": 1}})J",
        r % 6, t));
    add(fmt::format(R"J({{"ph": "C", "name": "counter", "pid": 1, "tid": 1, "ts": {}, "args": {{"v": 1}}}})J",
                    t));
    add(fmt::format(
        R"J({{"ph": "M", "name": "thread_name", "pid": 1, "tid": {}, "args": {{"name": "thread {}"}}}})J",
        thread, r));
    add(fmt::format(
        R"J({{"ph": "X", "cat": "user_annotation", "name": "record_param_comms", "pid": 1, "tid": 1, "ts": {}, "dur": 9,
    "args": {{"External id": {}, "Collective name": "allreduce", "dtype": "Float", "In msg nelems": {}, "Group size": 8}}}})J",
        t + 70, 9000 + r, 1024 * r));
    if (r == rounds / 2)
      add(std::string(R"J({"ph": "X", "cat": "cpu_op", "name": "bad )J") + "\xff\xfe" +
          R"J( utf8", "pid": 1, "tid": 1, "ts": 5, "dur": 1})J");
    if (r == rounds - 2)
      add(R"J({"ph": "X", "cat": "Trace", "name": "PyTorch Profiler (0)", "pid": "Spans", "tid": "PyTorch Profiler", "ts": 1, "dur": 999999})J");
  }
  return "\xEF\xBB\xBF{\n  \"schemaVersion\": 1,\n  \"traceEvents\": [" + events +
         "\n  ],\n  \"deviceProperties\": [{\"id\": 0, \"name\": \"NVIDIA A100\", \"totalGlobalMem\": 100, "
         "\"computeMajor\": 8, \"computeMinor\": 0, \"numSms\": 108}, {\"id\": 1, \"name\": \"NVIDIA "
         "A100\"}],\n"
         "  \"traceName\": \"t\", \"baseTimeNanoseconds\": 1700000000000000000\n}\n";
}

// Bad UTF-8 in names and call stacks (checked by each piece's builder when it interns them) and in
// other texts is counted in pieces as in one pass (issue 58): 1,000 names, 1,333 stacks, 667 types.
TEST(PiecewiseReader, BadUtf8IsCountedAsInOnePass) {
  TraceBuilder t;
  t.step(1, 0, 100000);
  for (int i = 0; i < 2000; ++i)
    t.op(i % 2 ? "op_BAD" : "aten::add", 10 + 20 * i, 10, 10 + i, 1,
         i % 3 ? R"("Call stack": "s_BAD")" : R"("Input type": ["f_BAD"])");
  std::string text = t.json();
  for (std::size_t at = text.find("_BAD"); at != std::string::npos; at = text.find("_BAD", at))
    text.replace(at, 4, "_\xff");
  Profile one = serial(text);
  ASSERT_TRUE(has_line(one.notes, "3000 strings in the trace"))
      << ::testing::PrintToString(note_texts(one.notes));
  for (std::size_t piece : {333ul, 4096ul}) {
    auto p = in_pieces(text, piece, 1 << 20, 3);
    ASSERT_TRUE(p) << piece;
    EXPECT_EQ(describe(*p), describe(one)) << piece;
  }
  // Read in small steps, the buffer a name or a call stack was seen in is reused before its event
  // ends: the views are copied first (TraceHandler::keep_views).
  for (std::size_t step : {7ul, 61ul, 4096ul})
    EXPECT_EQ(describe(kineto::read_trace(std::make_unique<TextSource>(text, step), "t.json", {})),
              describe(one))
        << step;
}

TEST(PiecewiseReader, EveryCutAndReadSizeGivesTheSerialProfile) {
  std::string text = order_sensitive_trace(24);
  std::string expected = describe(serial(text));
  ASSERT_NE(expected.find("link "), std::string::npos);  // the trace exercises what it should
  ASSERT_NE(expected.find("thread 1 -1 "), std::string::npos);
  EXPECT_EQ(expected.find("thread 1 -1 "), expected.rfind("thread 1 -1 "));
  for (std::size_t piece : {1ul, 40ul, 333ul, 1000ul, 4096ul, 1ul << 20}) {
    for (std::size_t step : {7ul, 4096ul, 1ul << 20}) {
      SCOPED_TRACE(fmt::format("piece {} bytes, reads of {}", piece, step));
      auto p = in_pieces(text, piece, step);
      ASSERT_TRUE(p.has_value());
      EXPECT_EQ(describe(*p), expected);
    }
  }
}

// A plain file is mapped and parsed where it lies: its pieces are views of the mapping, a piece
// cut inside an event grows into the next, and the pages behind the merged pieces are handed back.
TEST(PiecewiseReader, AMappedFileGivesTheSerialProfileAtEveryCut) {
  std::string text = order_sensitive_trace(24);
  std::string expected = describe(serial(text));
  std::string path = write_text(temp_dir() + "/mapped.json", text);
  for (std::size_t piece : {1ul, 40ul, 333ul, 1000ul, 4096ul, 1ul << 20}) {
    SCOPED_TRACE(fmt::format("piece {} bytes", piece));
    auto source = open_plain_file(path);
    ASSERT_TRUE(source->lends());
    auto p = kineto::read_trace_in_pieces(*source, path, {}, ReadOptions{.threads = 2, .piece_bytes = piece});
    ASSERT_TRUE(p.has_value());
    EXPECT_EQ(describe(*p), expected);
  }
  EXPECT_EQ(describe(kineto::read_trace(open_plain_file(path), path, {})), expected);
}

// The serial reader keeps an event's names as views into its read buffer, which each read
// overwrites: reads of a few bytes put every event across several of them.
TEST(PiecewiseReader, TheSerialReadGivesOneProfileAtAnyReadSize) {
  std::string text = order_sensitive_trace(24);
  std::string expected = describe(serial(text));
  for (std::size_t step : {7ul, 64ul, 4096ul}) {  // from 3 bytes: the first read holds the BOM
    SCOPED_TRACE(fmt::format("reads of {}", step));
    EXPECT_EQ(describe(kineto::read_trace(std::make_unique<TextSource>(text, step), "t.json", {})), expected);
  }
}

// A text pid stands for the device where the args name none: text ids are numbered -1, -2, ... in
// the order they first appear in the trace, whichever piece they are in.
TEST(PiecewiseReader, TextPidsNumberDevicesInOrderOfFirstAppearance) {
  std::string text = R"J({"traceEvents": [
    {"ph": "X", "cat": "kernel", "name": "k1", "pid": "gpuA", "tid": "stream 7", "ts": 1, "dur": 1},
    {"ph": "X", "cat": "cpu_op", "name": "op", "pid": 1, "tid": "worker", "ts": 1, "dur": 1},
    {"ph": "X", "cat": "kernel", "name": "k2", "pid": "gpuB", "tid": "stream 7", "ts": 2, "dur": 1},
    {"ph": "X", "cat": "gpu_user_annotation", "name": "r", "pid": "gpuB", "tid": "stream 9", "ts": 2, "dur": 1},
    {"ph": "X", "cat": "kernel", "name": "k3", "pid": "gpuA", "tid": "stream 7", "ts": 3, "dur": 1, "args": {"device": 5}}]})J";
  Profile one = serial(text);
  auto p = in_pieces(text, 10, 1 << 20);
  ASSERT_TRUE(p.has_value());
  for (const Profile* profile : {&one, &*p}) {
    ASSERT_EQ(profile->gpu_activities.size(), 3u);
    EXPECT_EQ(profile->gpu_activities[0].device, -1);  // gpuA
    EXPECT_EQ(profile->gpu_activities[1].device, -3);  // gpuB, after "worker"
    EXPECT_EQ(profile->gpu_activities[2].device, 5);
    ASSERT_EQ(profile->gpu_ranges.size(), 1u);
    EXPECT_EQ(profile->gpu_ranges[0].device, -3);
    EXPECT_EQ(profile->gpu_ranges[0].stream, 9u);
    ASSERT_EQ(profile->threads.size(), 1u);
    EXPECT_EQ(profile->threads[0].tid, -2);  // "worker"
  }
}

TEST(PiecewiseReader, ThreadCountsGiveTheSameProfile) {
  std::string text = order_sensitive_trace(40);
  std::string expected = describe(serial(text));
  for (unsigned threads : {2u, 3u, 8u}) {
    auto p = in_pieces(text, 700, 1 << 20, threads);
    ASSERT_TRUE(p.has_value());
    EXPECT_EQ(describe(*p), expected) << threads << " threads";
  }
}

TEST(PiecewiseReader, DriverCallsSkippedInPiecesAreCountedOnce) {
  std::string text = order_sensitive_trace(10);
  Profile one = kineto::read_trace(std::make_unique<TextSource>(text, 1 << 20), "t.json", {},
                                   ReadOptions{.driver_calls = false});
  TextSource source(text, 1 << 20);
  auto p = kineto::read_trace_in_pieces(source, "t.json", {},
                                        ReadOptions{.driver_calls = false, .threads = 2, .piece_bytes = 100});
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(describe(*p), describe(one));
  EXPECT_NE(describe(one).find("note 10 driver-API calls"), std::string::npos);
}

TEST(PiecewiseReader, AnArrayDocumentIsReadInPieces) {
  std::string text = "[\n";
  for (int i = 0; i < 50; ++i)
    text += fmt::format(
        R"J({}{{"ph": "X", "cat": "cpu_op", "name": "op{}", "pid": 1, "tid": 1, "ts": {}, "dur": 1}})J",
        i ? ",\n" : "", i % 4, i * 10);
  text += ",\n]\n";  // a trailing comma, as some exporters write
  std::string expected = describe(serial(text));
  auto p = in_pieces(text, 64, 5);
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(describe(*p), expected);
}

// A later piece with more ignored categories than are counted cannot be joined exactly: the trace
// is read in one pass instead, with the same result.
TEST(PiecewiseReader, TooManyIgnoredCategoriesInALaterPieceFallBackToOnePass) {
  auto event = [](int i, int category) {
    return fmt::format(
        R"J({}{{"ph": "X", "cat": "odd{}", "name": "x", "pid": 1, "tid": 1, "ts": {}, "dur": 1}})J",
        i ? ",\n" : "", category, i);
  };
  std::string first, rest;  // 75 events of 3 categories, then 200 of as many
  for (int i = 0; i < 75; ++i) first += event(i, i % 3);
  for (int i = 75; i < 275; ++i) rest += event(i, i);
  std::string text = R"J({"traceEvents": [)J" + first + rest + "]}";
  std::size_t piece = first.size() + 40;  // the second piece holds 75 categories
  EXPECT_FALSE(in_pieces(text, piece, 1 << 20).has_value());
  std::string path = ::testing::TempDir() + "/ignored.json";
  write_text(path, text);
  auto open = [&]() -> std::unique_ptr<ByteSource> { return std::make_unique<FileSource>(path); };
  Profile p = kineto::read_trace(open, path, {}, ReadOptions{.threads = 2, .piece_bytes = piece});
  Profile one = kineto::read_trace(open(), path, {});
  EXPECT_EQ(describe(p), describe(one));
  EXPECT_NE(describe(one).find("note 25 complete events of category 'odd0'"), std::string::npos);
  EXPECT_NE(describe(one).find("category 'odd135'"), std::string::npos);  // the 64th name counted
  EXPECT_EQ(describe(one).find("category 'odd136'"), std::string::npos);
}

// Bad input is read again in one pass, so messages name the same event and byte.
TEST(PiecewiseReader, BadInputGivesTheMessagesOfOnePass) {
  std::string good = order_sensitive_trace(12);
  std::string late_event = good;
  late_event.insert(late_event.rfind("\"ph\": \"X\""), "\"ts\": \"soon\", ");
  std::vector<std::string> bad = {
      good.substr(0, good.size() - 30),  // truncated
      good.substr(0, good.size() / 2),
      good + "{}",                                                                 // extra data
      late_event,                                                                  // a bad field late on
      R"J({"traceEvents": [{"ph": "X"}, 3, {"ph": "X"}]})J",                       // not an object
      R"J({"traceEvents": [{"ph": "X", "cat": "cpu_op", "ts": 1, "dur": -5}]})J",  // negative duration
      R"J({"traceEvents": {"ph": "X"}})J",                                         // not an array
  };
  for (std::size_t i = 0; i < bad.size(); ++i) {
    std::string path = ::testing::TempDir() + fmt::format("/bad{}.json", i);
    write_text(path, bad[i]);
    auto open = [&]() -> std::unique_ptr<ByteSource> { return std::make_unique<FileSource>(path); };
    auto open_mapped = [&] { return open_plain_file(path); };
    std::string one_pass, pieces, mapped_one_pass, mapped_pieces;
    auto message = [&](const std::function<void()>& read) {
      try {
        read();
      } catch (const InputError& e) {
        return std::string(e.what());
      }
      return std::string();
    };
    one_pass = message([&] { kineto::read_trace(open(), path, {}); });
    pieces =
        message([&] { kineto::read_trace(open, path, {}, ReadOptions{.threads = 3, .piece_bytes = 200}); });
    mapped_one_pass = message([&] { kineto::read_trace(open_mapped(), path, {}); });
    mapped_pieces = message(
        [&] { kineto::read_trace(open_mapped, path, {}, ReadOptions{.threads = 3, .piece_bytes = 200}); });
    EXPECT_FALSE(one_pass.empty()) << i;
    EXPECT_EQ(pieces, one_pass) << i;
    EXPECT_EQ(mapped_one_pass, one_pass) << i;
    EXPECT_EQ(mapped_pieces, one_pass) << i;
  }
}

// The events sit one level deeper in the document than in a piece: the piece's parser is given
// one level less, so that the depth limit falls where it does in one pass.
TEST(PiecewiseReader, TheDepthLimitIsTheDocumentsOwn) {
  auto nested = [](int levels) {
    std::string args = std::string(static_cast<std::size_t>(levels), '[') +
                       std::string(static_cast<std::size_t>(levels), ']');
    std::string e =
        R"J({"ph": "X", "cat": "cpu_op", "name": "a", "pid": 1, "tid": 1, "ts": 1, "dur": 1, "args": {"x": )J" +
        args + "}}";
    return R"J({"traceEvents": [)J" + e + ",\n" + e + "]}";
  };
  // Top object, array, event and args are 4 levels: 60 more reach the limit of 64.
  std::string at_limit = nested(60), past_limit = nested(61);
  EXPECT_NO_THROW(serial(at_limit));
  EXPECT_THROW(serial(past_limit), InputError);
  EXPECT_TRUE(in_pieces(at_limit, 10, 1 << 20).has_value());
  EXPECT_FALSE(in_pieces(past_limit, 10, 1 << 20).has_value());
}

TEST(PiecewiseReader, ASecondEventsArrayIsReadInOnePass) {
  std::string text =
      R"J({"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "a", "pid": 1, "tid": 1, "ts": 1, "dur": 1}],
          "traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "b", "pid": 1, "tid": 1, "ts": 2, "dur": 1}]})J";
  EXPECT_FALSE(in_pieces(text, 10, 1 << 20).has_value());
  EXPECT_EQ(serial(text).host_events.size(), 2u);
}

TEST(EventsArrayFinder, FindsTheTopLevelKeyOnly) {
  auto find = [](const std::string& text, std::size_t step) {
    kineto::EventsArrayFinder finder;
    for (std::size_t at = 0; at < text.size(); at += step) {
      auto state = finder.scan(text.data() + at, std::min(step, text.size() - at));
      if (state == kineto::EventsArrayFinder::State::Found) return static_cast<long>(at + finder.offset());
      if (state == kineto::EventsArrayFinder::State::NotFound) return -1L;
    }
    return -2L;  // still searching at the end
  };
  std::string doc =
      R"J({"a": {"traceEvents": [1]}, "b": "traceEvents", "c": ["traceEvents", [2]], "traceEvents" : [3]})J";
  for (std::size_t step : {1ul, 3ul, 1000ul}) {
    EXPECT_EQ(find(doc, step), static_cast<long>(doc.rfind('['))) << step;
  }
  EXPECT_EQ(find("  [ {} ]", 1), 2);
  EXPECT_EQ(find(R"J({"trace\u0045vents": []})J", 1), -1);  // escaped: read in one pass
  EXPECT_EQ(find(R"J({"x": 1})J", 1), -1);
  EXPECT_EQ(find(R"J("traceEvents")J", 1), -1);
  std::string quoted = R"J({"x": "\"traceEvents\": [" , "traceEvents": [)J";
  EXPECT_EQ(find(quoted, 1), static_cast<long>(quoted.rfind('[')));
}

TEST(EventStarts, AreBracesAfterAnEventEnd) {
  std::string text = R"J({"a": [{"b": 1}, {"c": 2}]},  {"d": 3},{"e": 4})J";
  EXPECT_EQ(kineto::last_event_start(text.data(), text.size()), text.rfind('{'));
  EXPECT_EQ(kineto::first_event_start(text.data(), text.size(), 0), text.find("{\"c"));
  EXPECT_EQ(kineto::first_event_start(text.data(), text.size(), text.find("{\"c") + 1), text.find("{\"d"));
  EXPECT_EQ(kineto::last_event_start(text.data(), text.find("{\"c")), std::string::npos);
}

// Each shared trace, cut into pieces of 64 KiB (hundreds of them), gives the serial profile.
TEST(PiecewiseReader, SharedTracesGiveTheSerialProfile) {
  std::string dir = shared_traces_dir();
  if (dir.empty()) GTEST_SKIP() << "../shared/traces not found";
  int read = 0, mapped_reads = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir)) {
    std::string path = entry.path().string();
    if (!path.ends_with(".json.gz")) continue;
    SCOPED_TRACE(path);
    auto open = [&]() -> std::unique_ptr<ByteSource> {
      return make_gzip_source(std::make_unique<FileSource>(path), path);
    };
    std::string expected = describe(kineto::read_trace(open(), path, {}));
    auto source = open();
    auto p =
        kineto::read_trace_in_pieces(*source, path, {}, ReadOptions{.threads = 2, .piece_bytes = 64 << 10});
    ASSERT_TRUE(p.has_value());
    EXPECT_EQ(describe(*p), expected);
    ++read;
    // Under 10 MB of JSON (the time of a sanitizer build), also mapped from a plain file.
    std::string text = read_gzip(path);
    if (text.size() > (10u << 20)) continue;
    std::string plain = write_text(temp_dir() + "/plain.json", text);
    auto mapped = open_plain_file(plain);
    p = kineto::read_trace_in_pieces(*mapped, path, {}, ReadOptions{.threads = 2, .piece_bytes = 64 << 10});
    ASSERT_TRUE(p.has_value());
    EXPECT_EQ(describe(*p), expected);
    ++mapped_reads;
  }
  EXPECT_GE(read, 14);
  EXPECT_GE(mapped_reads, 8);
}

}  // namespace
}  // namespace perfgate::testing
