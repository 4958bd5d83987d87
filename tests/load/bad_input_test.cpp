// Every unreadable input is an InputError whose message names the file and the cause.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include "common/errors.h"
#include "support/helpers.h"

namespace perfgate::testing {
namespace {

std::string load_error(const std::string& path) {
  try {
    load_run({path});
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

std::string load_error_text(const std::string& text, const std::string& name = "bad.json") {
  std::string path = temp_dir() + "/" + name;
  write_text(path, text);
  std::string message = load_error(path);
  EXPECT_NE(message.find(path), std::string::npos) << message;
  return message;
}

std::string event_error(const std::string& event) {
  return load_error_text(R"({"traceEvents": [)" + event + "]}");
}

TEST(BadInput, MissingFile) {
  EXPECT_NE(load_error("/nonexistent/trace.json").find("/nonexistent/trace.json: no such file"),
            std::string::npos);
}

TEST(BadInput, EmptyFile) {
  EXPECT_NE(load_error_text("").find("empty file"), std::string::npos);
}

TEST(BadInput, NotATraceAtAll) {
  EXPECT_NE(load_error_text("hello world").find("not a Kineto JSON trace"), std::string::npos);
}

TEST(BadInput, InvalidJsonGivesAByteOffset) {
  std::string m = load_error_text(R"({"traceEvents": [{"ph": "X",,}]})");
  EXPECT_NE(m.find("invalid JSON"), std::string::npos) << m;
  EXPECT_NE(m.find("at byte 28"), std::string::npos) << m;
}

TEST(BadInput, TruncatedJson) {
  std::string json = TraceBuilder().op("aten::add", 1, 2).op("aten::mul", 3, 4).json();
  std::string m = load_error_text(json.substr(0, json.size() / 2));
  EXPECT_NE(m.find("ends early"), std::string::npos) << m;
}

TEST(BadInput, ExtraDataAfterTheDocument) {
  std::string m = load_error_text(R"({"traceEvents": []} {"more": 1})");
  EXPECT_NE(m.find("extra data"), std::string::npos) << m;
}

TEST(BadInput, TruncatedGzip) {
  std::string dir = temp_dir();
  std::string json = TraceBuilder().op("aten::add", 1, 2).op("aten::mul", 3, 4).json();
  std::string full = read_text(write_gzip(dir + "/full.json.gz", json + std::string(20000, ' ')));
  std::string path = write_text(dir + "/cut.json.gz", full.substr(0, full.size() / 2));
  std::string m = load_error(path);
  EXPECT_NE(m.find(path), std::string::npos);
  EXPECT_NE(m.find("truncated gzip"), std::string::npos) << m;
}

TEST(BadInput, CorruptGzip) {
  std::string dir = temp_dir();
  std::string full =
      read_text(write_gzip(dir + "/full.json.gz", TraceBuilder().op("aten::add", 1, 2).json()));
  for (std::size_t i = 12; i < full.size() - 8; ++i) full[i] = static_cast<char>(full[i] ^ 0x5A);
  std::string path = write_text(dir + "/corrupt.json.gz", full);
  std::string m = load_error(path);
  EXPECT_NE(m.find("corrupt gzip"), std::string::npos) << m;
}

TEST(BadInput, JsonThatIsNotATrace) {
  EXPECT_NE(load_error_text(R"({"name": "a config file"})").find("no 'traceEvents' array"),
            std::string::npos);
  EXPECT_NE(load_error_text(R"({"traceEvents": {"a": 1}})").find("'traceEvents' must be an array"),
            std::string::npos);
  EXPECT_NE(load_error_text(R"("just a string")").find("not a Kineto JSON trace"), std::string::npos);
  EXPECT_NE(load_error_text(R"([1, 2])").find("event #0 is not an object"), std::string::npos);
}

// Issue 29, item 5: a trace with nothing profiled passed the gate ("PASS with warnings", exit 0).
// Metadata alone (threads, GPUs, distributedInfo) is no activity; one CPU op is.
TEST(BadInput, ATraceWithNoProfiledActivityIsAnInputError) {
  for (const std::string& json :
       {std::string(R"({"traceEvents": []})"),
        TraceBuilder()
            .raw_event(R"({"ph": "M", "name": "thread_name", "pid": 1, "tid": 1, "args": {"name": "main"}})")
            .raw_event(
                R"({"ph": "X", "cat": "cuda_sync", "name": "sync", "ts": 1, "dur": 2, "pid": 1, "tid": 1})")
            .device(0, "NVIDIA A100-SXM4-40GB", 8, 0, 40LL << 30, 108)
            .top_level("distributedInfo", R"({"rank": 0, "world_size": 2, "backend": "nccl"})")
            .json()}) {
    std::string m = load_error_text(json, "nothing.json");
    EXPECT_NE(m.find("nothing.json: holds no profiled activity"), std::string::npos) << m;
  }
  EXPECT_EQ(load_error(TraceBuilder().op("aten::add", 1, 2).write(temp_dir() + "/cpu.json")), "no error");
  EXPECT_EQ(load_error(TraceBuilder().memory(1, 512, 512, 1, 0).write(temp_dir() + "/mem.json")), "no error");
}

TEST(BadInput, EventThatIsNotAnObject) {
  EXPECT_NE(event_error("42").find("event #0 is not an object"), std::string::npos);
}

TEST(BadInput, WrongTypesInFields) {
  EXPECT_NE(event_error(R"({"ph": "X", "cat": "cpu_op", "name": "a", "ts": "12", "dur": 1})")
                .find("field 'ts' must be a number"),
            std::string::npos);
  EXPECT_NE(event_error(R"({"ph": "X", "cat": "cpu_op", "name": 7, "ts": 1, "dur": 1})")
                .find("field 'name' must be a string"),
            std::string::npos);
  EXPECT_NE(event_error(R"({"ph": "X", "cat": "cpu_op", "name": "a", "ts": 1, "dur": 1, "args": []})")
                .find("field 'args' must be an object"),
            std::string::npos);
  EXPECT_NE(
      event_error(
          R"({"ph": "X", "cat": "kernel", "name": "k", "ts": 1, "dur": 1, "args": {"correlation": "x"}})")
          .find("field 'correlation' must be an integer"),
      std::string::npos);
  EXPECT_NE(
      event_error(R"({"ph": "X", "cat": "kernel", "name": "k", "ts": 1, "dur": 1, "args": {"grid": 5}})")
          .find("field 'grid' must be an array of integers"),
      std::string::npos);
}

TEST(BadInput, MissingFields) {
  EXPECT_NE(event_error(R"({"ph": "X", "cat": "cpu_op", "name": "a", "dur": 1})").find("'ts' is missing"),
            std::string::npos);
  EXPECT_NE(event_error(R"({"ph": "X", "cat": "cpu_op", "name": "a", "ts": 1})").find("'dur' is missing"),
            std::string::npos);
}

TEST(BadInput, AbsurdValues) {
  EXPECT_NE(event_error(R"({"ph": "X", "cat": "cpu_op", "name": "a", "ts": 1, "dur": -5})")
                .find("negative duration (-5 us)"),
            std::string::npos);
  // A fraction is read at once to nanoseconds (issue 58): the message gives it to the nanosecond.
  EXPECT_NE(event_error(R"({"ph": "X", "cat": "cpu_op", "name": "a", "ts": 1, "dur": -0.25})")
                .find("negative duration (-0.25 us)"),
            std::string::npos);
  EXPECT_NE(event_error(R"({"ph": "X", "cat": "cpu_op", "name": "a", "ts": 1, "dur": 1e13})")
                .find("absurd duration"),
            std::string::npos);
  EXPECT_NE(event_error(R"({"ph": "X", "cat": "cpu_op", "name": "a", "ts": 1e300, "dur": 1})")
                .find("not a usable timestamp"),
            std::string::npos);
}

TEST(BadInput, HugeStringsAndDeepNesting) {
  std::string huge(2 * 1024 * 1024, 'x');
  std::string m =
      event_error(R"({"ph": "X", "cat": "cpu_op", "name": ")" + huge + R"(", "ts": 1, "dur": 1})");
  EXPECT_NE(m.find("longer than"), std::string::npos) << m.substr(0, 200);
  std::string deep = std::string(200, '[') + std::string(200, ']');
  std::string m2 = event_error(
      R"({"ph": "X", "cat": "cpu_op", "name": "a", "ts": 1, "dur": 1, "args": {"x": )" + deep + "}}");
  EXPECT_NE(m2.find("invalid JSON"), std::string::npos) << m2;
}

// Issue 13: the 1 MiB limit is exact, whatever the parser's buffer size.
TEST(BadInput, TheStringLimitIsExact) {
  auto name_of = [](std::size_t bytes) {
    return event_error(R"({"ph": "X", "cat": "cpu_op", "name": ")" + std::string(bytes, 'x') +
                       R"(", "ts": 1, "dur": 1})");
  };
  std::string longest = write_text(temp_dir() + "/longest.json",
                                   R"({"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": ")" +
                                       std::string(1024 * 1024, 'x') + R"(", "ts": 1, "dur": 1}]})");
  EXPECT_EQ(load_error(longest), "no error");
  EXPECT_NE(name_of(1024 * 1024 + 1).find("the value of 'name' is longer than 1048576 bytes"),
            std::string::npos);
}

// Issue 13: wrong types that were read as something else are errors, as docs/formats.md says.
TEST(BadInput, IdsOfTheWrongTypeAreErrors) {
  auto kernel_args = [](const std::string& args) {
    return event_error(R"({"ph": "X", "cat": "kernel", "name": "k", "ts": 1, "dur": 1, "args": {)" + args +
                       "}}");
  };
  EXPECT_NE(kernel_args(R"("correlation": 1.5)").find("field 'correlation' must be an integer"),
            std::string::npos);
  EXPECT_NE(kernel_args(R"("device": "x")").find("field 'device' must be an integer"), std::string::npos);
  EXPECT_NE(kernel_args(R"("stream": {"a": 1})").find("field 'stream' must be an integer"),
            std::string::npos);
  EXPECT_NE(event_error(R"({"ph": "X", "cat": "cpu_op", "name": "a", "pid": {"a": 1}, "ts": 1, "dur": 1})")
                .find("field 'pid' must be a number or a string"),
            std::string::npos);
  // ROCm's text ids still read.
  std::string rocm =
      write_text(temp_dir() + "/rocm.json",
                 R"({"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "ts": 1, "dur": 1,
                                    "args": {"device": "0", "stream": "0x0", "correlation": 4}}]})");
  EXPECT_EQ(load_error(rocm), "no error");
}

// Issue 13: a FIFO blocked the load forever; a folder without search permission was "no such file".
TEST(BadInput, NonRegularFilesAndUnsearchableFolders) {
  std::string dir = temp_dir();
  std::string fifo = dir + "/pipe.json";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_NE(load_error(fifo).find(fifo + ": not a regular file or a folder (a named pipe)"),
            std::string::npos)
      << load_error(fifo);
  if (::geteuid() == 0) GTEST_SKIP() << "root searches every folder";
  std::string closed = dir + "/closed";
  ::mkdir(closed.c_str(), 0700);
  TraceBuilder().op("a", 1, 2).write(closed + "/t.json");
  ::chmod(closed.c_str(), 0600);
  std::string message = load_error(closed + "/t.json");
  ::chmod(closed.c_str(), 0700);
  EXPECT_NE(message.find("Permission denied"), std::string::npos) << message;
}

TEST(BadInput, HostileNamesLoadAsPlainText) {
  Profile p = load_json(TraceBuilder().op("<script>alert(1)</script>\u0001\"quoted\"", 1, 2).json());
  ASSERT_EQ(p.host_events.size(), 1u);
  EXPECT_EQ(p.str(p.host_events[0].name), "<script>alert(1)</script>\u0001\"quoted\"");
}

TEST(BadInput, ATruncatedSqliteHeaderIsAnInputErrorNamingTheFile) {
  std::string path = write_text(temp_dir() + "/x.sqlite", std::string("SQLite format 3\0", 16) + "rest");
  std::string error = load_error(path);
  EXPECT_NE(error.find(path), std::string::npos) << error;
  EXPECT_NE(error.find("not a database"), std::string::npos) << error;
}

// Issue 28, item 8: times the model cannot hold were accepted (a fractional ts up to 2^63 ns, whose
// end then overflowed) or wrapped later in the analyses. Starts and ends must lie in [0, 2^62) ns:
// 2^62 ns = 4611686018427387.904 us.
TEST(BadInput, TimesOutsideTheModelsRangeAreRefused) {
  auto kernel_at = [](const std::string& ts, const std::string& dur) {
    return event_error(R"({"ph": "X", "cat": "kernel", "name": "k", "ts": )" + ts + R"(, "dur": )" + dur +
                       R"(, "args": {"device": 0, "stream": 7, "correlation": 1}})");
  };
  const std::string out_of_range = "is out of range: a time must be from 0 to 4611686018427387.903 us";
  std::string fractional = kernel_at("9223372036854775.807", "1");
  EXPECT_NE(fractional.find(R"(event #0 "k" (kernel): field 'ts' (9223372036854775.807 us) )" + out_of_range),
            std::string::npos)
      << fractional;
  EXPECT_NE(kernel_at("9223372036854775", "1").find("field 'ts' (9223372036854775 us) " + out_of_range),
            std::string::npos);
  EXPECT_NE(kernel_at("-1", "1").find("field 'ts' (-1 us) " + out_of_range), std::string::npos);
  // 4611686018427387 us + 1 us = 4611686018427388000 ns, past 2^62 - 1 = 4611686018427387903 ns.
  std::string end = kernel_at("4611686018427387", "1");
  EXPECT_NE(end.find("the event ends at 4611686018427388.000 us (ts + dur), after the last usable time "
                     "4611686018427387.903 us"),
            std::string::npos)
      << end;
  // The last nanosecond below 2^62 is usable.
  std::string last = write_text(temp_dir() + "/last.json",
                                R"({"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k",
                                    "ts": 4611686018427386.903, "dur": 1, "args": {"correlation": 1}}]})");
  EXPECT_EQ(load_error(last), "no error");
  // Steps at +-9.2e15 us gave a window of "-1.6 us" with exit 0.
  std::string step = event_error(R"({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1",
                                     "ts": -9200000000000000, "dur": 5})");
  EXPECT_NE(step.find(R"(event #0 "ProfilerStep#1" (user_annotation): field 'ts' (-9200000000000000 us) )"),
            std::string::npos)
      << step;
  // Flow ends and memory samples hold a time too.
  EXPECT_NE(event_error(R"({"ph": "s", "cat": "fwdbwd", "id": 1, "ts": 5e15})").find(out_of_range),
            std::string::npos);
  EXPECT_NE(event_error(R"({"ph": "i", "name": "[memory]", "ts": -3,
                            "args": {"Device Type": 1, "Bytes": 8}})")
                .find(out_of_range),
            std::string::npos);
}

// Issue 28, item 8: "pid": 0e400 parses as NaN, whose conversion to an integer was undefined
// behaviour (found by kineto_fuzz); ids must have an integer value in int64's range.
TEST(BadInput, IdsWithoutAnIntegerValueAreRefused) {
  const std::string expected = "must be a number within the 64-bit integer range, or a string";
  auto with = [](const std::string& field) {
    return event_error(R"({"ph": "X", "cat": "kernel", "name": "k", )" + field + R"(, "ts": 1, "dur": 1})");
  };
  EXPECT_NE(with(R"("pid": 0e400)").find(R"(event #0 "k" (kernel): field 'pid' )" + expected),
            std::string::npos)
      << with(R"("pid": 0e400)");
  EXPECT_NE(with(R"("tid": 1e300)").find("field 'tid' " + expected), std::string::npos);
  EXPECT_NE(with(R"("pid": 18446744073709551615)").find("field 'pid' " + expected), std::string::npos);
  EXPECT_NE(
      event_error(R"({"ph": "s", "cat": "fwdbwd", "id": -1e19, "ts": 1})").find("field 'id' " + expected),
      std::string::npos);
  // A fractional id keeps its integer part, as before.
  Profile p = load_json(R"({"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "a", "pid": 3.7, "tid": 2,
                                             "ts": 1, "dur": 1}]})");
  ASSERT_EQ(p.threads.size(), 1u);
  EXPECT_EQ(p.threads[0].pid, 3);
}

// Issue 28, item 8: each duration is at most 30 days, but many of them added up in the analyses
// overflowed (UBSan in tensor_cores.cpp on 4000 kernels of 30 days). A profile's durations must add
// up to less than 2^62 ns = 4.611686e18 ns: 1780 ranges of 30 days (2.592e15 ns) are 4.613760e18
// ns, where 1779 are 4.611168e18 ns.
TEST(BadInput, DurationsAddingUpPast2To62NanosecondsAreRefused) {
  auto trace = [](int ranges) {
    std::string events;
    for (int i = 0; i < ranges; ++i)
      events += fmt::format(R"({}{{"ph": "X", "cat": "cpu_op", "name": "a", "ts": 0, "dur": 2592000000000}})",
                            i ? "," : "");
    return R"({"traceEvents": [)" + events + "]}";
  };
  EXPECT_EQ(load_error(write_text(temp_dir() + "/fits.json", trace(1779))), "no error");
  std::string m = load_error_text(trace(1780));
  EXPECT_NE(
      m.find(R"(event #1779 "a" (cpu_op): the durations of the events up to this one add up to 2^62 ns)"),
      std::string::npos)
      << m;
}

}  // namespace
}  // namespace perfgate::testing
