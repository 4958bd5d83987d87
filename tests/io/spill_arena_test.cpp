// The spill file behind --max-memory (io/spill_arena.h): blocks over the budget live in a
// temporary file, keep what is written to them, are punched out when freed and reused.
#include "io/spill_arena.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include "io/chunked_appender.h"
#include "support/trace_builder.h"

namespace perfgate::testing {
namespace {

constexpr std::size_t kMiB = std::size_t{1} << 20;

TEST(SpillArena, NothingSpillsWithoutABudget) {
  spill::set_budget(0, temp_dir());
  EXPECT_EQ(spill::allocate_if_over_budget(8 * kMiB), nullptr);
  EXPECT_EQ(spill::stats().blocks, 0u);
}

TEST(SpillArena, NothingSpillsUnderTheBudget) {
  // This process holds far less than 64 GiB: three quarters of it is not reached.
  spill::set_budget(std::uint64_t{64} << 30, temp_dir());
  EXPECT_EQ(spill::allocate_if_over_budget(8 * kMiB), nullptr);
}

TEST(SpillArena, ABlockOverTheBudgetLivesInTheFileAndIsGivenBack) {
  spill::set_budget(1, temp_dir());  // any block is over a budget of one byte
  EXPECT_GT(spill::anonymous_bytes(), 0u);
  EXPECT_EQ(spill::allocate_if_over_budget(kMiB - 1), nullptr) << "blocks under 1 MiB stay on the heap";
  auto* a = static_cast<unsigned char*>(spill::allocate_if_over_budget(3 * kMiB));
  ASSERT_NE(a, nullptr) << spill::spill_error();
  EXPECT_TRUE(spill::owns(a));
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(a) % 16, 0u) << "operator new's alignment";
  std::vector<unsigned char> heap(16);
  EXPECT_FALSE(spill::owns(heap.data()));
  for (std::size_t i = 0; i < 3 * kMiB; ++i) a[i] = static_cast<unsigned char>(i * 7);
  auto* b = static_cast<unsigned char*>(spill::allocate_if_over_budget(2 * kMiB));
  ASSERT_NE(b, nullptr);
  std::memset(b, 0xAB, 2 * kMiB);
  for (std::size_t i = 0; i < 3 * kMiB; i += 4093) ASSERT_EQ(a[i], static_cast<unsigned char>(i * 7)) << i;
  spill::Stats s = spill::stats();
  EXPECT_EQ(s.blocks, 2u);
  // Each extent: the block, a 64-byte header, rounded up to pages.
  EXPECT_EQ(s.in_use, 3 * kMiB + 4096 + 2 * kMiB + 4096);
  EXPECT_EQ(s.peak_in_use, s.in_use);
  spill::release(a);
  EXPECT_EQ(spill::stats().in_use, 2 * kMiB + 4096);
  // The freed extent is reused by a block that fits it.
  auto* c = static_cast<unsigned char*>(spill::allocate_if_over_budget(3 * kMiB));
  EXPECT_EQ(c, a);
  EXPECT_EQ(c[4096 * 3], 0) << "a punched extent reads as zeros";
  spill::release(b);
  spill::release(c);
  EXPECT_EQ(spill::stats().in_use, 0u);
  EXPECT_EQ(spill::stats().peak_in_use, 3 * kMiB + 4096 + 2 * kMiB + 4096);
  EXPECT_EQ(spill::spill_error(), "");
}

TEST(SpillArena, FreedNeighboursMergeIntoOneExtent) {
  spill::set_budget(1, temp_dir());
  void* a = spill::allocate_if_over_budget(kMiB);
  void* b = spill::allocate_if_over_budget(kMiB);
  void* c = spill::allocate_if_over_budget(kMiB);
  ASSERT_TRUE(a && b && c);
  spill::release(a);
  spill::release(b);
  // a and b's extents, side by side, hold a block of twice the size; c's is still in use.
  void* d = spill::allocate_if_over_budget(2 * kMiB);
  EXPECT_EQ(d, a);
  spill::release(c);
  spill::release(d);
}

TEST(SpillArena, AFolderThatCannotHoldTheFileIsSaidAndNothingSpills) {
  spill::set_budget(1, temp_dir() + "/no-such-folder");
  EXPECT_EQ(spill::allocate_if_over_budget(4 * kMiB), nullptr);
  EXPECT_NE(spill::spill_error().find("cannot create a temporary file in"), std::string::npos)
      << spill::spill_error();
  EXPECT_NE(spill::spill_error().find("no-such-folder"), std::string::npos);
}

// A full disk: the block stays on the heap and the reason is kept; nothing is written to a page
// without disk behind it (which would be a SIGBUS, not an error).
TEST(SpillArena, AFullDiskKeepsTheBlockOnTheHeap) {
  std::string dir = temp_dir() + "/small";
  std::filesystem::create_directories(dir);
  if (::geteuid() != 0 ||
      std::system(("mount -t tmpfs -o size=3m tmpfs '" + dir + "' 2>/dev/null").c_str()) != 0)
    GTEST_SKIP() << "needs root and mount (a 3 MiB tmpfs)";
  spill::set_budget(1, dir);
  void* fits = spill::allocate_if_over_budget(kMiB);
  EXPECT_NE(fits, nullptr) << spill::spill_error();
  EXPECT_EQ(spill::allocate_if_over_budget(4 * kMiB), nullptr);
  EXPECT_NE(spill::spill_error().find("cannot reserve disk space for a block in " + dir), std::string::npos)
      << spill::spill_error();
  if (fits) std::memset(fits, 1, kMiB);  // the block that fitted is still usable
  EXPECT_EQ(std::system(("umount -l '" + dir + "'").c_str()), 0);
}

TEST(SpillArena, ChunkedAppenderSpillsItsChunksOverTheBudget) {
  spill::set_budget(1, temp_dir());
  ChunkedAppender<std::uint64_t> records;
  for (std::uint64_t i = 0; i < 600'000; ++i) records.push_back(i * 3);  // 4.6 MB: 5 chunks
  EXPECT_EQ(spill::stats().blocks, 5u);
  std::vector<std::uint64_t> out;
  records.move_into(out);
  ASSERT_EQ(out.size(), 600'000u);
  for (std::uint64_t i = 0; i < out.size(); i += 997) ASSERT_EQ(out[i], i * 3);
  EXPECT_EQ(spill::stats().in_use, 0u) << "drained chunks go back to the file";
}

// Issue 78: what a run keeps of each rank until its report is many small allocations, which the
// heap kept resident. Made under a PackScope past a quarter of the budget, they are packed one
// after another into a chunk of the file, which goes back with the last of them.
TEST(SpillArena, SmallBlocksMadeUnderAPackScopeArePackedIntoAChunkOfTheFile) {
  spill::set_budget(1, temp_dir());
  void* a = nullptr;
  void* b = nullptr;
  {
    spill::Pack pack;
    EXPECT_FALSE(spill::packing());
    {
      spill::PackScope scope(pack);
      EXPECT_TRUE(spill::packing());
      a = spill::allocate_packed(40);
      b = spill::allocate_packed(100);
      EXPECT_EQ(spill::allocate_packed(spill::kMaxPacked + 1), nullptr) << "a larger block is the heap's";
    }
    EXPECT_FALSE(spill::packing()) << "the scope is closed";
    EXPECT_EQ(spill::allocate_packed(40), nullptr);
    ASSERT_NE(a, nullptr) << spill::spill_error();
    ASSERT_NE(b, nullptr);
    EXPECT_TRUE(spill::owns(a));
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(a) % 16, 0u) << "operator new's alignment";
    EXPECT_EQ(static_cast<char*>(b) - static_cast<char*>(a), 64) << "40 bytes in 48, after a 16-byte tag";
    std::memset(a, 0x5A, 40);
    std::memset(b, 0xA5, 100);
    EXPECT_EQ(static_cast<unsigned char*>(a)[39], 0x5A);
    EXPECT_EQ(spill::stats().blocks, 1u);
    EXPECT_EQ(spill::stats().in_use, spill::kPackChunk);
    spill::release(a);
    EXPECT_EQ(spill::stats().in_use, spill::kPackChunk) << "b and the pack hold the chunk";
  }
  EXPECT_EQ(spill::stats().in_use, spill::kPackChunk) << "b holds it";
  EXPECT_EQ(static_cast<unsigned char*>(b)[99], 0xA5);
  spill::release(b);
  EXPECT_EQ(spill::stats().in_use, 0u) << "the chunk went back with its last allocation";
  EXPECT_EQ(spill::spill_error(), "");
}

TEST(SpillArena, NothingIsPackedWithoutABudgetOrUnderAQuarterOfIt) {
  spill::Pack pack;
  spill::set_budget(0, temp_dir());
  {
    spill::PackScope scope(pack);
    EXPECT_FALSE(spill::packing());
    EXPECT_EQ(spill::allocate_packed(40), nullptr);
  }
  spill::set_budget(std::uint64_t{64} << 30, temp_dir());
  {
    spill::PackScope scope(pack);
    EXPECT_FALSE(spill::packing()) << "this process holds far less than 16 GiB";
  }
  EXPECT_EQ(spill::stats().blocks, 0u);
}

TEST(SpillArena, AFullChunkIsFollowedByAnotherAndEachGoesBackWithItsLast) {
  spill::set_budget(1, temp_dir());
  std::vector<void*> blocks;
  {
    spill::Pack pack;
    spill::PackScope scope(pack);
    // 4,096 bytes and a tag each: 254 fit in a chunk after its 64-byte count.
    for (int i = 0; i < 300; ++i) blocks.push_back(spill::allocate_packed(4096));
  }
  ASSERT_EQ(std::count(blocks.begin(), blocks.end(), nullptr), 0) << spill::spill_error();
  EXPECT_EQ(spill::stats().blocks, 2u);
  EXPECT_EQ(spill::stats().in_use, 2 * spill::kPackChunk);
  for (std::size_t i = 0; i < 254; ++i) spill::release(blocks[i]);
  EXPECT_EQ(spill::stats().in_use, spill::kPackChunk) << "the first chunk is empty";
  for (std::size_t i = 254; i < blocks.size(); ++i) spill::release(blocks[i]);
  EXPECT_EQ(spill::stats().in_use, 0u);
}

// Issue 78: a PackScope asks /proc/self/statm whether the process is past a quarter of the budget
// at a thread's first scope, then once every kLookScopes scopes (or kLookBytes allocated, which
// the tests' operator new does not count), and again at once when the budget changes; not at
// each scope (four a rank of a run folder).
TEST(SpillArena, PackScopesLookAtTheBudgetOnceEveryKLookScopes) {
  spill::Pack pack;
  spill::set_budget(std::uint64_t{64} << 30, temp_dir());  // never past a quarter here
  std::uint64_t before = spill::statm_reads_on_this_thread();
  for (std::uint32_t i = 0; i < 2 * spill::kLookScopes; ++i) {
    spill::PackScope scope(pack);
    EXPECT_FALSE(spill::packing());
  }
  EXPECT_EQ(spill::statm_reads_on_this_thread() - before, 2u);
  spill::set_budget(1, temp_dir());
  {
    spill::PackScope scope(pack);
    EXPECT_TRUE(spill::packing()) << "a new budget is looked at at once";
  }
  EXPECT_EQ(spill::statm_reads_on_this_thread() - before, 3u);
}

// Issue 78: a tiny trace's records take no mapping and no look at the budget: an appender's first
// 64 KiB are heap chunks (4, 4, 8, 16 and 32 KiB), even over the budget; the 1 MiB chunks after
// them spill there.
TEST(SpillArena, ChunkedAppenderKeepsItsFirst64KiBOnTheHeap) {
  spill::set_budget(1, temp_dir());
  std::uint64_t spilled = spill::stats().blocks;
  ChunkedAppender<std::uint64_t> records;
  for (std::uint64_t i = 0; i < 10; ++i) records.push_back(i);
  EXPECT_EQ(records.memory_bytes(), 4096u);
  for (std::uint64_t i = 10; i < 8192; ++i) records.push_back(i);
  EXPECT_EQ(records.memory_bytes(), 64u << 10);
  EXPECT_EQ(records.chunk_count(), 5u);
  EXPECT_EQ(spill::stats().blocks, spilled) << "nothing of the first 64 KiB spilled";
  records.push_back(8192);
  EXPECT_EQ(records.memory_bytes(), (64u << 10) + kMiB);
  EXPECT_EQ(spill::stats().blocks, spilled + 1);
  std::vector<std::uint64_t> out;
  records.move_into(out);
  ASSERT_EQ(out.size(), 8193u);
  for (std::uint64_t i = 0; i < out.size(); ++i) ASSERT_EQ(out[i], i);
  EXPECT_EQ(records.memory_bytes(), 0u);
}

void write_file(const std::string& path, const std::string& text) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  std::ofstream(path) << text;
}

TEST(SpillArena, TheMemoryLimitIsTheLowestOnTheCgroupsWay) {
  std::string sysfs = temp_dir();
  constexpr std::uint64_t kPhysical = std::uint64_t{24} << 30;
  // cgroup v2: the job's limit is under its parent's "max"; the parent of the parent limits more.
  write_file(sysfs + "/memory.max", "max\n");
  write_file(sysfs + "/jobs/memory.max", "8589934592\n");
  write_file(sysfs + "/jobs/job1/memory.max", "max\n");
  std::istringstream v2("0::/jobs/job1\n");
  EXPECT_EQ(spill::cgroup_memory_limit(v2, sysfs, kPhysical), std::uint64_t{8} << 30);
  // cgroup v1's memory controller; other controllers' lines are not memory limits.
  write_file(sysfs + "/memory/docker/abc/memory.limit_in_bytes", "4294967296\n");
  write_file(sysfs + "/memory/memory.limit_in_bytes", "9223372036854771712\n");
  std::istringstream v1("5:cpuset:/docker/abc\n4:memory:/docker/abc\n");
  EXPECT_EQ(spill::cgroup_memory_limit(v1, sysfs, kPhysical), std::uint64_t{4} << 30);
  // No limit anywhere: the machine's memory.
  std::istringstream none("4:memory:/\n");
  EXPECT_EQ(spill::cgroup_memory_limit(none, sysfs, kPhysical), kPhysical);
  std::istringstream empty("");
  EXPECT_EQ(spill::cgroup_memory_limit(empty, sysfs, kPhysical), kPhysical);
}

TEST(SpillArena, MemoryLimitAndFoldersAreRead) {
  EXPECT_GT(spill::available_memory_limit(), std::uint64_t{64} << 20);
  if (std::filesystem::is_directory("/dev/shm")) {
    EXPECT_TRUE(spill::folder_is_in_memory("/dev/shm"));
  }
  EXPECT_FALSE(spill::folder_is_in_memory("/proc/no-such-folder"));
}

}  // namespace
}  // namespace perfgate::testing
