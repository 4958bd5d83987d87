// Issue 28, item 7: what one input may make perfgate hold is capped (load/load.h): a gzip
// bomb of trace events grew the event store to 8.3 GB before the machine ran out.
#include <gtest/gtest.h>

#include <zlib.h>

#include <fmt/format.h>

#include "common/errors.h"
#include "support/helpers.h"

namespace perfgate::testing {
namespace {

std::string load_error(const std::string& path, const LoadOptions& options) {
  try {
    load_run({path}, options);
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

std::string limit_message(const std::string& path, const std::string& limit) {
  return path + ": holding this input needs more than " + limit +
         " of memory, the limit for one input; raise it with --max-input-memory or PERFGATE_MAX_INPUT_MEMORY "
         "if "
         "this is a real profile (0: no limit)";
}

TEST(InputLimit, SizesReadAsPowersOf1024) {
  EXPECT_EQ(parse_byte_size("4G"), std::uint64_t{4} << 30);
  EXPECT_EQ(parse_byte_size("4GiB"), std::uint64_t{4} << 30);
  EXPECT_EQ(parse_byte_size("512M"), std::uint64_t{512} << 20);
  EXPECT_EQ(parse_byte_size("1.5g"), std::uint64_t{3} << 29);
  EXPECT_EQ(parse_byte_size("100k"), 102400u);
  EXPECT_EQ(parse_byte_size("1048576"), 1048576u);
  EXPECT_EQ(parse_byte_size("0"), 0u);
  EXPECT_EQ(parse_byte_size("2 TB"), std::uint64_t{2} << 40);
  for (const char* bad : {"", "G", "-1", "4X", "4GG", "nan", "inf", "16777216T"})
    EXPECT_FALSE(parse_byte_size(bad)) << bad;
  EXPECT_EQ(byte_size_text(std::uint64_t{4} << 30), "4 GiB");
  EXPECT_EQ(byte_size_text(std::uint64_t{3} << 29), "1.5 GiB");
  EXPECT_EQ(byte_size_text(1536), "1.5 KiB");
  EXPECT_EQ(byte_size_text(1000), "1000 bytes");
  // Issue 93: half a machine's memory was "6170905 KiB" in a message; to a tenth of its unit now.
  EXPECT_EQ(byte_size_text(std::uint64_t{6'170'905} << 10), "5.9 GiB");
  EXPECT_EQ(byte_size_text(3'000'000), "2.9 MiB");
  EXPECT_EQ(byte_size_text(1025), "1025 bytes");  // under a MiB, exact or in bytes
}

// 20,000 kernels hold 20,000 records of 64 bytes and more: past a limit of 1 MiB, read in one pass
// or in pieces on several threads, with the same message; within the default, they load.
TEST(InputLimit, ATraceThatNeedsMoreIsRefusedWithTheLimit) {
  TraceBuilder t;
  for (int i = 0; i < 20000; ++i) t.kernel(fmt::format("k{}", i % 50), i * 10.0, 5, i + 1);
  std::string path = t.write(temp_dir() + "/kernels.json");
  for (unsigned threads : {1u, 4u}) {
    LoadOptions options;
    options.max_threads = threads;
    EXPECT_EQ(load_error(path, options), "no error");
    options.max_input_memory = 1 << 20;
    EXPECT_EQ(load_error(path, options), limit_message(path, "1 MiB")) << threads << " threads";
  }
}

// A small gzip bomb: 2,000,000 identical kernel events (160 MB of JSON in a few MB of gzip), refused
// once they hold 16 MiB.
TEST(InputLimit, AGzipBombOfEventsStopsAtTheLimit) {
  std::string path = temp_dir() + "/bomb.json.gz";
  gzFile out = gzopen(path.c_str(), "wb1");
  ASSERT_TRUE(out);
  gzputs(out, R"({"traceEvents": [)");
  std::string events;
  for (int i = 0; i < 1000; ++i)
    events += R"({"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 1, "dur": 1},)";
  for (int i = 0; i < 2000; ++i) gzwrite(out, events.data(), static_cast<unsigned>(events.size()));
  gzputs(out, R"({"ph": "i"}]})");
  gzclose(out);
  LoadOptions options;
  options.max_input_memory = 16 << 20;
  EXPECT_EQ(load_error(path, options), limit_message(path, "16 MiB"));
}

// Captured values (shapes, device properties) grew with the input before the long ones were
// dropped at their end: they stop at the longest kept string. Shapes are dropped, as before; the
// metadata document is refused.
TEST(InputLimit, LongCapturedValuesStopAtTheStringLimit) {
  std::string dims = "[[" + std::string(1, '1');
  for (int i = 0; i < 600'000; ++i) dims += ",1";  // 1.2 MB
  dims += "]]";
  std::string path = write_text(temp_dir() + "/dims.json",
                                R"({"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "a", "ts": 1,
                                                "dur": 1, "args": {"Input Dims": )" +
                                    dims + "}}]}");
  LoadedRun run = load_run({path});
  const Profile& p = run.workers.at(0);
  ASSERT_EQ(p.host_events.size(), 1u);
  EXPECT_EQ(p.op_details.size(), 0u);  // no shapes kept
  std::string props = R"({"deviceProperties": [{"id": 0, "name": ")" + std::string(1100 * 1024, 'x') +
                      R"("}], "traceEvents": []})";
  std::string big = write_text(temp_dir() + "/props.json", props);
  EXPECT_EQ(load_error(big, {}), big + ": top-level key 'deviceProperties' is longer than 1048576 bytes");
}

// A number's text is kept while it arrives in parts: at most 4096 characters, wherever the parser's
// buffers cut it.
TEST(InputLimit, NumbersLongerThan4096CharactersAreRefused) {
  std::string digits(5000, '1');
  std::string path = write_text(
      temp_dir() + "/long.json",
      R"({"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "a", "ts": 0.)" + digits + R"(, "dur": 1}]})");
  std::string m = load_error(path, {});
  EXPECT_NE(m.find(R"(event #0 "a" (cpu_op): a number longer than 4096 characters)"), std::string::npos) << m;
  std::string fits = write_text(temp_dir() + "/fits.json",
                                R"({"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "a", "ts": 0.)" +
                                    std::string(4000, '1') + R"(, "dur": 1}]})");
  EXPECT_EQ(load_error(fits, {}), "no error");
}

}  // namespace
}  // namespace perfgate::testing
