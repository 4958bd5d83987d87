// The registry of readers (src/load/reader.h): a file's format is the reader most sure of its first
// bytes, a JSON document nothing else claims is a Chrome trace, and the message refusing a file
// names every format read.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "common/errors.h"
#include "load/reader.h"
#include "support/helpers.h"

namespace perfgate::testing {
namespace {

std::string sniffed(std::string_view head, bool inflated = false) {
  const Reader* reader = sniff_reader(FileHead(head, inflated));
  return reader ? reader->name : "";
}

TEST(ReaderRegistry, EachNameIsOneReaderFoundByIt) {
  std::set<std::string> names;
  for (const Reader* reader : readers()) {
    EXPECT_TRUE(names.insert(reader->name).second) << reader->name;
    EXPECT_EQ(find_reader(reader->name), reader);
  }
  EXPECT_EQ(names.size(), 10u);
  EXPECT_EQ(find_reader("protobuf"), nullptr);
}

TEST(ReaderRegistry, TheSurestSniffWinsAndAnyJsonFallsToKineto) {
  EXPECT_EQ(sniffed(std::string_view("SQLite format 3\0", 16)), "nsys-sqlite");
  EXPECT_EQ(sniffed(R"({"summary": [{"total_time": 1}]})"), "neuron-json");
  EXPECT_EQ(sniffed(R"({"n_1": {"total_time": 1}})"), "neuron-summary-json");
  EXPECT_EQ(sniffed(" {\n  \"rocprofiler-sdk-tool\": [{\"metadata\": {}}]}"), "rocprofv3-json");
  EXPECT_EQ(sniffed(R"([{"name": "aten::mm", "ph": "X", "pid": "CPU functions", "tid": 1}])"),
            "pytorch-legacy-json");
  // Pickle protocol 4 (PROTO 4, FRAME, EMPTY_DICT, MEMOIZE, MARK, SHORT_BINUNICODE "segments").
  EXPECT_EQ(sniffed(std::string_view("\x80\x04\x95\x10\0\0\0\0\0\0\0}\x94(\x8c\x08segments", 24)),
            "pytorch-memory-snapshot");
  EXPECT_EQ(sniffed(std::string_view("\x80\x04\x95\x10\0\0\0\0\0\0\0}\x94(\x8c\x08segmentz", 24)), "");
  // Claimed by no other reader: a Chrome trace (a bare array of events too), after a byte order
  // mark and white space.
  EXPECT_EQ(sniffed("\xEF\xBB\xBF \n{\"traceEvents\": []}"), "kineto-json");
  EXPECT_EQ(sniffed(R"([{"name": "k", "ph": "X", "cat": "kernel"}])"), "kineto-json");
  EXPECT_EQ(sniffed("hello world"), "");
  EXPECT_EQ(sniffed("\"just a string\""), "");
}

// A gzip file is sniffed by its inflated head: each format is claimed by its own reader; anything
// else, and a stream that does not inflate (no head), is the Kineto gzip reader's, which says what
// is wrong with it.
TEST(ReaderRegistry, AGzipFileIsSniffedInflated) {
  EXPECT_EQ(sniffed("{\"traceEvents\": []}", true), "kineto-json.gz");
  EXPECT_EQ(sniffed("hello world", true), "kineto-json.gz");
  EXPECT_EQ(sniffed("", true), "kineto-json.gz");
  EXPECT_EQ(sniffed(std::string_view("SQLite format 3\0", 16), true), "nsys-sqlite");
  EXPECT_EQ(sniffed(R"({"summary": [{"total_time": 1}]})", true), "neuron-json");
  EXPECT_EQ(sniffed(R"([{"name": "aten::mm", "ph": "X", "pid": "CPU functions", "tid": 1}])", true),
            "pytorch-legacy-json");
  EXPECT_EQ(sniffed(" {\n  \"rocprofiler-sdk-tool\": [{\"metadata\": {}}]}", true), "rocprofv3-json");
  // gzip's magic itself, uninflated, is no format's.
  EXPECT_EQ(sniffed("\x1f\x8b\x08"), "");
}

TEST(ReaderRegistry, TheRefusalNamesEveryFormat) {
  EXPECT_EQ(
      formats_read(),
      "a Kineto JSON trace (plain or gzip), a PyTorch legacy profiler trace, an Nsight Systems SQLite "
      "export or a rocprof v1 results.db, a Neuron profile, an XSpace profile (JAX, TensorFlow), a "
      "rocprofv3 JSON trace, a rocprof v1 results.json (rocprof --hip-trace) or a PyTorch memory snapshot");
  std::string path = temp_dir() + "/notes.json";
  write_text(path, "notes");
  try {
    load_run({path});
    ADD_FAILURE() << "not refused";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), path + ": not " + formats_read());
  }
}

}  // namespace
}  // namespace perfgate::testing
