// The memory budget (`--max-memory`, issue #41): large blocks that would take the process's
// anonymous memory past the budget are placed in a temporary file instead, mapped shared, so the
// kernel can write them back and drop them like any file page (docs/performance.md, "Traces larger
// than memory").
//
// Why a file mapping rather than bounded passes: every analysis reads the event columns in several
// orders (by thread, by stream, by correlation), so passes over a bounded window would repeat the
// parse per analysis. A mapped file keeps one code path for every size: the columns are ordinary
// arrays wherever they live, a trace that fits pays one branch per block of 1 MiB or more, and one
// that does not pays page faults and disk writes, not a second design.
//
// The arena is one sparse, unnamed file (O_TMPFILE: gone when the process ends, even when it is
// killed) mapped once into a large reserved range. Blocks are page-aligned extents; a freed extent
// is punched out of the file (its disk and page cache go back at once) and kept for reuse.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <istream>
#include <string>

namespace perfgate::spill {

// Blocks smaller than this always come from the heap: names, small tables and hash nodes cost
// more in page faults than they save.
inline constexpr std::size_t kMinSpillBlock = std::size_t{1} << 20;

// Sets the budget of anonymous memory (0: none, never spill) and the folder of the spill file,
// which is created at the first spill. Call before the work starts; not thread-safe against
// allocations in flight.
void set_budget(std::uint64_t bytes, const std::string& folder);
std::uint64_t budget();
const std::string& folder();

// Memory for a block of `bytes` from the spill file when the process's anonymous memory plus the
// block would pass half the budget (the rest is kept for memory that cannot spill:
// names, small blocks, thread stacks); nullptr when it need not spill or cannot (no budget, the
// block too small, the file could not be made: the reason is kept for spill_error()).
void* allocate_if_over_budget(std::size_t bytes) noexcept;

// Whether `p` came from allocate_if_over_budget; cheap, for operator delete.
bool owns(const void* p) noexcept;
// Gives a block back: its extent is punched out of the file (a packed one: its chunk, with the
// chunk's last allocation).
void release(void* p) noexcept;

// Keeps the process's resident set, not only its anonymous memory, within the budget: a thread
// (started once; it takes no lock and asks for no memory) that looks at /proc/self/statm and, past
// eleven sixteenths of the budget, unmaps the spilled blocks' pages (trim_resident), and the same
// look after each millisecond of the process's CPU time once a block is in the file (a real-time
// signal, SIGRTMIN + 7, to the running thread). Their data stays in the file and its page cache;
// reading it again maps it again.
void start_resident_guard();
void trim_resident() noexcept;
class Pack;
namespace detail {
extern constinit thread_local Pack* t_packing;
extern constinit thread_local std::uint32_t t_allocations;
extern constinit thread_local std::uint64_t t_allocated;  // bytes operator new gave this thread
extern constinit std::atomic<std::uint64_t> g_live;       // bytes of the file in use (Stats::in_use)
}  // namespace detail

// trim_resident where the resident set is past the guard's eleven sixteenths of the budget.
void trim_if_over_budget() noexcept;
// trim_if_over_budget while blocks are in the file: for a loop that reads them back in pieces.
inline void trim_if_spilled() noexcept {
  if (detail::g_live.load(std::memory_order_relaxed) != 0) trim_if_over_budget();
}
// Called by operator new for each allocation: every 4096th of a thread while blocks are in the
// file, the guard's test made there too. Reading spilled data back (a run's workers made into its
// report, the report written) maps its pages faster than the guard's thread may be scheduled on a
// loaded machine (issue 78: 60 MB in 14 ms at --max-memory 64M).
// `bytes`: the allocation's size (0 for a free), summed for PackScope's looks at the heap.
inline void count_allocation(std::size_t bytes = 0) noexcept {
  detail::t_allocated += bytes;
  if (detail::g_live.load(std::memory_order_relaxed) != 0 && (++detail::t_allocations & 4095U) == 0)
    trim_if_over_budget();
}
// The process's resident set in bytes (anonymous and file pages); 0 where it cannot be read.
std::uint64_t resident_bytes() noexcept;
// Times this thread has read /proc/self/statm (tests: how often the budget is looked at).
std::uint64_t statm_reads_on_this_thread() noexcept;

// Small allocations packed into the spill file (issue 78): what a run keeps of each rank until its
// report is written (a run folder's rank summaries, their collectives, their report sections) is
// many small allocations, which the heap keeps resident though they are read once more at the end.
// Made on a thread while a PackScope is open, allocations under kMaxPacked are placed one after
// another in chunks of the spill file (kPackChunk), each chunk punched out once every allocation in
// it is freed. Copying a finished value under a scope packs it without the holes its making left.
// A Pack packs only once the process's anonymous memory is past a quarter of the budget, so a run
// well within its budget (the default budget is half the machine's memory), or without one, keeps
// the heap.
inline constexpr std::size_t kPackChunk = std::size_t{1} << 20;
inline constexpr std::size_t kMaxPacked = std::size_t{64} << 10;

// The chunk being filled; one thread packs into it at a time (its holder's lock, or its thread).
class Pack {
 public:
  Pack() = default;
  Pack(const Pack&) = delete;
  Pack& operator=(const Pack&) = delete;
  ~Pack();  // the chunk being filled goes back once its allocations are freed

 private:
  friend class PackScope;
  friend void* allocate_packed(std::size_t bytes) noexcept;
  bool next_chunk() noexcept;
  char* chunk_ = nullptr;
  std::size_t used_ = 0;
};

// Packs this thread's small allocations into `pack` while it is open (where the process is past a
// quarter of its budget, or `pack` has begun packing); scopes nest. Whether the process is past it
// is read from /proc/self/statm at a thread's first scope, then again once the thread has
// allocated kLookBytes or opened kLookScopes scopes since (or the budget changed), not at each:
// a run of 65,536 tiny ranks opens four scopes a rank (issue 78: 12 system calls a rank).
inline constexpr std::uint64_t kLookBytes = std::uint64_t{1} << 20;
inline constexpr std::uint32_t kLookScopes = 64;
class PackScope {
 public:
  explicit PackScope(Pack& pack) noexcept;
  ~PackScope();
  PackScope(const PackScope&) = delete;
  PackScope& operator=(const PackScope&) = delete;

 private:
  Pack* previous_;
};

// Whether a PackScope is packing on this thread: operator new's one test for small blocks.
inline bool packing() noexcept {
  return detail::t_packing != nullptr;
}
// Memory for a small block from this thread's packing scope; nullptr where it is not packing, the
// block is over kMaxPacked or the file cannot grow (then from the heap). release() gives it back.
void* allocate_packed(std::size_t bytes) noexcept;

struct Stats {
  std::uint64_t in_use = 0;  // bytes of live spilled blocks
  std::uint64_t peak_in_use = 0;
  std::uint64_t blocks = 0;  // blocks ever spilled
  std::uint64_t total = 0;   // bytes ever spilled
};
Stats stats() noexcept;
// Why spilling stopped working ("" while it works): e.g. the folder is not writable, or the address
// space left under the process's limit (ulimit -v) holds no mapping of the file, or no more of it.
std::string spill_error();
// Whether it did, without a lock or the heap.
bool failed() noexcept;

// The process's resident anonymous memory in bytes (/proc/self/statm: resident minus file-backed
// and shared pages); 0 where it cannot be read.
std::uint64_t anonymous_bytes() noexcept;
// Physical memory of the machine, or the cgroup's memory limit where that is lower.
std::uint64_t available_memory_limit();
// The lowest memory limit on the way from the process's cgroups (`cgroups`: the text of
// /proc/self/cgroup; v2 "0::/path", v1 "N:memory:/path") up to the root of `sysfs`, or `physical`.
std::uint64_t cgroup_memory_limit(std::istream& cgroups, const std::string& sysfs, std::uint64_t physical);
// Whether `folder` is on a file system held in memory (tmpfs, ramfs): spilling there saves nothing.
bool folder_is_in_memory(const std::string& folder);

}  // namespace perfgate::spill
