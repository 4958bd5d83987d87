// Issue 60, item 1's "streaming enough to read a 2 GB snapshot": the snapshot reader unpickles as
// it streams (pickle::unpickle_stream), taking each segment and trace entry into the model and
// letting it go, with the memo keeping only what a GET fetches again; so --max-input-memory bounds
// what is alive at once, not the file. A large seeded snapshot written here (the writer knows what
// it wrote) is read under a bound far below its size, which the whole-value unpickler cannot meet.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "analyse/memory/snapshot_analysis.h"
#include "analyse/worker_analysis.h"
#include "common/errors.h"
#include "load/load.h"
#include "load/snapshot/pickle.h"
#include "model/memory_snapshot.h"
#include "support/helpers.h"
#include "support/pickle_builder.h"
#include "support/synthetic_snapshot.h"

namespace perfgate::testing {
namespace {

namespace fs = std::filesystem;

std::string error_of(const std::string& bytes, std::uint64_t max_memory = 0) {
  LoadOptions options;
  options.max_input_memory = max_memory;
  try {
    load_json(bytes, "snap.pickle", options);
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(SnapshotStream, ALargeSnapshotReadFarBelowItsSize) {
  fs::path path = fs::temp_directory_path() / ("perfgate_stream_" + std::to_string(::getpid()) + ".pickle");
  test::SyntheticSnapshotFacts facts;
  {
    std::ofstream out(path, std::ios::binary);
    facts = test::SyntheticSnapshotWriter(out).write(std::uint64_t{64} << 20, 60);
  }
  ASSERT_EQ(fs::file_size(path), facts.bytes);
  ASSERT_GT(facts.bytes, std::uint64_t{60} << 20);
  ASSERT_GT(facts.actions, 650'000u);

  // A quarter of the file's size is enough for the streamed reading (it needs about 5 MB: the
  // memo's 4,096 shared frames, a batch of 1,000 entries, the model is not counted).
  LoadOptions options;
  options.max_input_memory = facts.bytes / 4;
  LoadedRun run = load_run({path.string()}, options);
  ASSERT_EQ(run.workers.size(), 1u);
  const Profile& p = run.workers[0];
  EXPECT_EQ(p.source_bytes, facts.bytes);
  ASSERT_TRUE(p.memory_snapshot);
  WorkerAnalysis w;
  analyse_snapshot(*p.memory_snapshot, w);
  ASSERT_EQ(w.tables.memory_snapshot.size(), 1u);
  const SnapshotDeviceRow& d = w.tables.memory_snapshot[0];
  EXPECT_EQ(d.actions, facts.actions);
  EXPECT_EQ(d.segments, facts.segments);
  EXPECT_EQ(d.reserved, facts.reserved);
  EXPECT_EQ(d.allocated, facts.allocated);
  EXPECT_EQ(d.peak, static_cast<std::int64_t>(facts.peak));

  // The whole-value unpickler under the same bound fails: the tree of every entry is far larger.
  {
    std::string bytes(facts.bytes, '\0');
    std::ifstream in(path, std::ios::binary);
    in.read(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    try {
      pickle::unpickle(bytes, "big.pickle", {facts.bytes / 4, 128});
      FAIL() << "the tree fitted";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("input memory limit"), std::string::npos) << e.what();
    }
  }
  // And the streamed reading has a bound too: 2 MiB cannot hold the memo's shared frames.
  LoadOptions tight;
  tight.max_input_memory = 2 << 20;
  try {
    load_run({path.string()}, tight);
    ADD_FAILURE() << "2 MiB sufficed";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("input memory limit of 2097152 bytes"), std::string::npos)
        << e.what();
  }
  fs::remove(path);
}

// What the streamed reading refuses beyond the unpickler's own refusals: a list it drains placed
// anywhere but where it was found (shared through the memo, or moved) is an input error, not a
// silently different reading.
TEST(SnapshotStream, DrainedListsStayWhereTheyWereFound) {
  // The segments list fetched again under another key.
  test::PickleWriter shared(4);
  shared.empty_dict().mark().str("segments").empty_list().mark().empty_dict().mark();
  shared.str("total_size").integer(1024).str("blocks").empty_list().setitems();
  shared.appends().str("copy").op('h').little(1, 1).setitems().stop();
  EXPECT_NE(error_of(shared.text()).find("also shared through the memo"), std::string::npos)
      << error_of(shared.text());
  // A refused opcode inside a streamed trace entry: refused as ever, naming the file.
  test::PickleWriter refused(4);
  refused.empty_dict().mark().str("segments").empty_list().str("device_traces").empty_list().mark();
  refused.empty_list().mark().empty_dict().op('c').raw("os\nsystem\n");
  std::string message = error_of(refused.stop().text());
  EXPECT_NE(message.find("snap.pickle"), std::string::npos) << message;
  EXPECT_NE(message.find("opcode GLOBAL would import or call"), std::string::npos) << message;
}

// Entries of unique strings (none fetched again) are let go once read: 4,000 of them, appended
// 1,000 at a time as Python's pickler does, pass a bound that the whole value does not.
TEST(SnapshotStream, EntriesAreLetGoAsTheyAreRead) {
  test::PickleWriter w(4);
  w.empty_dict().mark().str("segments").empty_list().str("device_traces").empty_list().mark();
  w.empty_list().mark();
  for (int i = 0; i < 4000; ++i) {
    if (i > 0 && i % 1000 == 0) w.appends().mark();
    w.empty_dict().mark().str("action").str("alloc").str("addr").integer(4096 + i * 64).str("size");
    w.integer(64).str("frames").empty_list().mark().empty_dict().mark().str("name").str("fn");
    w.str("filename").str("/home/me/" + std::string(200, 'x') + std::to_string(i) + ".py");
    w.str("line").integer(i).setitems().appends().setitems();
  }
  w.appends().appends().setitems().stop();
  // The whole value: 4,000 dicts, frames lists, frame dicts, their keys and 213-byte file names.
  EXPECT_THROW(pickle::unpickle(w.text(), "snap.pickle", {std::uint64_t{4} << 20, 128}), InputError);
  LoadOptions options;
  options.max_input_memory = std::uint64_t{4} << 20;
  Profile p = load_json(w.text(), "snap.pickle", options);
  ASSERT_TRUE(p.memory_snapshot);
  ASSERT_EQ(p.memory_snapshot->devices.size(), 1u);
  EXPECT_EQ(p.memory_snapshot->devices[0].steps.size(), 4000u);
  EXPECT_EQ(p.memory_snapshot->sites.size(), 4000u);  // each entry its own user frame
}

// Issue 78, item 3: a memory snapshot whose memo is shared. A value the file holds once and places N
// times through BINGET (two bytes each) is kept N times by the snapshot's reading, so it costs N
// times against --max-input-memory; and the first pass's set of fetched memo indices counts against
// it as it grows. Before, one trace entry placed 20 million times made 3.3 GB of steps at a 64 MiB
// limit, and [segment] * 10,000 with 5,000 blocks each made 50 million live blocks.
constexpr std::uint64_t kLimit = std::uint64_t{4} << 20;

// `count` more placements of memo index `index` into the list being appended to, in APPENDS of
// 1,000 as Python's pickler batches them.
void place_again(test::PickleWriter& w, std::uint8_t index, int count, int placed) {
  for (int i = 0; i < count; ++i) {
    if ((placed + i) % 1000 == 0) w.appends().mark();
    w.op('h').little(index, 1);
  }
}

// {'segments': [], 'device_traces': [[entry] * n]}: memo 0 the dict, 1 and 2 the lists, 3 the
// device's trace, 4 the entry.
std::string one_entry_placed(int n) {
  test::PickleWriter w(4);
  w.empty_dict().mark().str("segments").empty_list().str("device_traces").empty_list().mark();
  w.empty_list().mark();
  w.empty_dict().mark().str("action").str("alloc").str("addr").integer(4096).str("size").integer(64);
  w.setitems();
  place_again(w, 4, n - 1, 1);
  return w.appends().appends().setitems().stop().text();
}

TEST(SnapshotMemo, OneTraceEntryPlacedManyTimesCostsEachPlacement) {
  // 300,000 steps of at least 32 bytes: past 4 MiB, from a file of 600 kB.
  std::string bomb = one_entry_placed(300'000);
  ASSERT_LT(bomb.size(), 700'000u);
  std::string message = error_of(bomb, kLimit);
  EXPECT_NE(message.find("--max-input-memory"), std::string::npos) << message;
  // Under a limit that holds them, the steps are all read: the count is what is kept, no more.
  LoadOptions options;
  options.max_input_memory = std::uint64_t{64} << 20;
  Profile p = load_json(bomb, "snap.pickle", options);
  ASSERT_TRUE(p.memory_snapshot);
  EXPECT_EQ(p.memory_snapshot->devices.at(0).steps.size(), 300'000u);
}

TEST(SnapshotMemo, OneSegmentPlacedManyTimesCostsItsBlocksEachTime) {
  // {'segments': [seg] * 1000, 'device_traces': []}, seg holding 1,000 active blocks: a million
  // live blocks of 24 bytes from a file of about 60 kB. Memo: 0 the dict, 1 the segments, 2 seg.
  test::PickleWriter w(4);
  w.empty_dict().mark().str("segments").empty_list().mark();
  w.empty_dict().mark().str("device").integer(0).str("address").integer(4096).str("total_size");
  w.integer(512 * 1000).str("blocks").empty_list().mark();
  for (int b = 0; b < 1000; ++b) {
    w.empty_dict().mark().str("address").integer(4096 + 512 * b).str("size").integer(512);
    w.str("state").str("active_allocated").setitems();
  }
  w.appends().setitems();
  place_again(w, 2, 999, 1);
  std::string bomb = w.appends().str("device_traces").empty_list().setitems().stop().text();
  ASSERT_LT(bomb.size(), 80'000u);
  std::string message = error_of(bomb, kLimit);
  EXPECT_NE(message.find("--max-input-memory"), std::string::npos) << message;
  // Under a limit that holds them, every placement adds its blocks (the list is read once, its
  // blocks kept at each placement): 1,000 x 1,000 live blocks of 512 bytes in 1,000 segments.
  LoadOptions options;
  options.max_input_memory = std::uint64_t{64} << 20;
  Profile p = load_json(bomb, "snap.pickle", options);
  ASSERT_TRUE(p.memory_snapshot);
  const SnapshotDevice& d = p.memory_snapshot->devices.at(0);
  EXPECT_EQ(d.segments, 1000u);
  EXPECT_EQ(d.live.size(), 1'000'000u);
  EXPECT_EQ(d.allocated, std::uint64_t{512} * 1'000'000u);
  EXPECT_EQ(d.reserved, std::uint64_t{512} * 1'000'000u);
  EXPECT_EQ(d.live[1000].first, 4096u);  // the second placement's first block
  EXPECT_EQ(d.live[1999].first, 4096u + 512u * 999u);
}

TEST(SnapshotMemo, TheFetchedIndicesCountAgainstTheLimitAsTheyGrow) {
  // GETs of 400,000 distinct indices spread over 2^32, each popped, before the segments are placed:
  // the first pass keeps each index (about 32 bytes) where no value is ever stored.
  test::PickleWriter w(4);
  w.empty_dict().str("segments").empty_list();
  for (std::uint64_t k = 1; k <= 400'000; ++k) w.op('j').little((k * 2654435761u) & 0xffffffffu, 4).op('0');
  std::string bomb = w.op('s').stop().text();
  std::string message = error_of(bomb, kLimit);
  EXPECT_NE(message.find("--max-input-memory"), std::string::npos) << message;
}

}  // namespace
}  // namespace perfgate::testing
