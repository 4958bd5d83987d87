// The spill file behind `--max-memory` (spill_arena.h). Runs inside operator new: nothing here may
// allocate from the heap on the allocation path, so the extent list is a fixed array and the
// memory figures are read into stack buffers.
#include "io/spill_arena.h"

#include <fcntl.h>
#include <linux/magic.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <mutex>
#include <new>
#include <thread>

namespace perfgate::spill {
namespace {

constexpr std::uint64_t kReserve = std::uint64_t{1} << 40;  // 1 TiB of address space, mapped once
// The least address space worth mapping under an address-space limit (reserve_size).
constexpr std::uint64_t kMinReserve = std::uint64_t{64} << 20;
constexpr std::uint64_t kHeader = 64;                        // the extent's length, before the block
constexpr std::uint64_t kGrowStep = std::uint64_t{1} << 30;  // the file grows (sparse) 1 GiB at a time
constexpr std::size_t kMaxFreeExtents = 4096;
// The word before every allocation the arena hands out: 0 before a block (the end of its header),
// the chunk's offset plus one before a packed allocation.
constexpr std::uint64_t kTagBytes = 8;
// A packed allocation's header (the tag, rounded up to operator new's alignment) and its sizes'
// granule; a chunk opens with its count of live allocations (and the Pack's reference).
constexpr std::size_t kPackedHeader = 16;
constexpr std::size_t kChunkHeader = 64;

struct Extent {
  std::uint64_t offset;
  std::uint64_t length;
};

// Constant-initialised: operator new may run before any constructor of this file.
constinit std::atomic<char*> g_base{nullptr};
constinit std::atomic<std::uint64_t> g_budget{0};
constinit std::mutex g_mutex;
constinit int g_fd = -1;
constinit bool g_failed = false;
constinit std::atomic<bool> g_failed_flag{false};  // g_failed, for failed(), which takes no lock
// The address space mapped (kReserve, or less under an address-space limit): set before g_base.
constinit std::atomic<std::uint64_t> g_reserve{0};
// The step a full mapping fails at, written when it is mapped (no heap on the allocation path).
constinit char g_full_step[160] = {};
constinit int g_errno = 0;
constinit const char* g_failed_step = nullptr;
constinit std::uint64_t g_file_size = 0;
constinit std::uint64_t g_end = 0;  // first offset never handed out
// g_end, for the resident guard, which takes no lock (a fork beside it must not find the mutex held).
constinit std::atomic<std::uint64_t> g_used_end{0};
constinit std::atomic<bool> g_guard_started{false};
// The look per millisecond of the process's CPU time (arm_cpu_look): 0 none, 1 made, 2 armed.
constinit std::atomic<int> g_cpu_look_state{0};
constinit timer_t g_cpu_look{};
constinit std::array<Extent, kMaxFreeExtents> g_free{};
constinit std::size_t g_free_count = 0;
constinit Stats g_stats{};
std::string g_folder;  // set before any spill; read only under the mutex afterwards

std::uint64_t page_size() {
  static const std::uint64_t size = static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
  return size;
}

std::uint64_t round_up(std::uint64_t n, std::uint64_t to) {
  return (n + to - 1) / to * to;
}

void fail(const char* step) {
  g_failed = true;
  g_failed_flag.store(true, std::memory_order_relaxed);
  g_errno = errno;
  g_failed_step = step;
}

std::size_t read_small_file(const char* path, char* buffer, std::size_t size);

// The address space to map for the file: 1 TiB, or under an address-space limit (ulimit -v, a batch
// scheduler's) half of what the process has left of it, in whole 64 MiB, since a file's mapping
// counts against that limit whatever of it is resident (issue 92: the 1 TiB map failed under 8, 64
// and 128 GiB, and the run went on unbounded). 0 where too little is left.
std::uint64_t reserve_size() noexcept {
  rlimit limit{};
  if (::getrlimit(RLIMIT_AS, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return kReserve;
  char text[256];
  unsigned long long pages = 0;  // /proc/self/statm's first field: the address space, in pages
  if (read_small_file("/proc/self/statm", text, sizeof text) == 0) return 0;
  for (const char* p = text; *p >= '0' && *p <= '9'; ++p)
    pages = pages * 10 + static_cast<unsigned>(*p - '0');
  std::uint64_t used = pages * static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
  auto cap = static_cast<std::uint64_t>(limit.rlim_cur);
  if (cap <= used) return 0;
  std::uint64_t half = (cap - used) / 2 / (std::uint64_t{64} << 20) * (std::uint64_t{64} << 20);
  return std::min(kReserve, half);
}

// Opens the unnamed file and maps the reserved range; under the mutex.
bool open_arena() {
  if (g_base.load(std::memory_order_acquire)) return true;
  if (g_failed) return false;
  int fd = ::open(g_folder.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
  if (fd < 0) return fail("create a temporary file in"), false;
  // Less where the whole will not map (a limit the kernel sets otherwise), halved down to 64 MiB.
  std::uint64_t size = reserve_size();
  void* base = MAP_FAILED;
  for (; size >= kMinReserve; size /= 2) {
    base = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE, fd, 0);
    if (base != MAP_FAILED) break;
  }
  if (base == MAP_FAILED) {
    if (size < kMinReserve) errno = ENOMEM;
    fail("map a temporary file (too little address space is left under the process's limit, ulimit -v) in");
    ::close(fd);
    return false;
  }
  std::snprintf(g_full_step, sizeof g_full_step,
                "hold more than the %llu MiB of a temporary file the address space left room to map in",
                static_cast<unsigned long long>(size >> 20));
  g_fd = fd;
  g_reserve.store(size, std::memory_order_relaxed);
  g_base.store(static_cast<char*>(base), std::memory_order_release);
  return true;
}

// An extent of `length` bytes: the first free one that holds it, else the end of the file.
bool take_extent(std::uint64_t length, std::uint64_t& offset) {
  for (std::size_t i = 0; i < g_free_count; ++i) {
    if (g_free[i].length < length) continue;
    offset = g_free[i].offset;
    g_free[i].offset += length;
    g_free[i].length -= length;
    if (g_free[i].length == 0) {
      std::memmove(&g_free[i], &g_free[i + 1], (g_free_count - i - 1) * sizeof(Extent));
      --g_free_count;
    }
    return true;
  }
  std::uint64_t reserve = g_reserve.load(std::memory_order_relaxed);
  if (g_end + length > reserve) {
    errno = ENOMEM;
    return fail(g_full_step), false;
  }
  if (g_end + length > g_file_size) {
    std::uint64_t size = std::min(reserve, round_up(g_end + length, kGrowStep));
    if (::ftruncate(g_fd, static_cast<off_t>(size)) != 0) return fail("grow the temporary file in"), false;
    g_file_size = size;
  }
  offset = g_end;
  g_end += length;
  g_used_end.store(g_end, std::memory_order_relaxed);
  return true;
}

// Keeps a punched extent for reuse, merged with its neighbours; a full list forgets it (its disk
// and memory are already given back; only its address range is lost).
void keep_free(Extent e) {
  std::size_t at = 0;
  while (at < g_free_count && g_free[at].offset < e.offset) ++at;
  bool joins_before = at > 0 && g_free[at - 1].offset + g_free[at - 1].length == e.offset;
  bool joins_after = at < g_free_count && e.offset + e.length == g_free[at].offset;
  if (joins_before && joins_after) {
    g_free[at - 1].length += e.length + g_free[at].length;
    std::memmove(&g_free[at], &g_free[at + 1], (g_free_count - at - 1) * sizeof(Extent));
    --g_free_count;
  } else if (joins_before) {
    g_free[at - 1].length += e.length;
  } else if (joins_after) {
    g_free[at].offset = e.offset;
    g_free[at].length += e.length;
  } else if (g_free_count < kMaxFreeExtents) {
    std::memmove(&g_free[at + 1], &g_free[at], (g_free_count - at) * sizeof(Extent));
    g_free[at] = e;
    ++g_free_count;
  }
}

// Reads a whole small file into `buffer` without the heap; its length, or 0.
std::size_t read_small_file(const char* path, char* buffer, std::size_t size) {
  int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  ssize_t n = ::read(fd, buffer, size - 1);
  ::close(fd);
  if (n <= 0) return 0;
  buffer[n] = '\0';
  return static_cast<std::size_t>(n);
}

constinit thread_local std::uint64_t t_statm_reads = 0;

// /proc/self/statm's resident and shared (file-backed) pages, without the heap; false where unread.
bool statm_pages(unsigned long long& resident, unsigned long long& shared) noexcept {
  ++t_statm_reads;
  char text[256];
  if (read_small_file("/proc/self/statm", text, sizeof text) == 0) return false;
  // size resident shared text lib data dt, in pages; read by hand, not strtoull (which consults
  // the locale): a signal handler reads it too (on_cpu_look).
  const char* p = text;
  unsigned long long fields[3] = {0, 0, 0};
  for (unsigned long long& field : fields) {
    while (*p == ' ') ++p;
    if (*p < '0' || *p > '9') return false;
    while (*p >= '0' && *p <= '9') field = field * 10 + static_cast<unsigned>(*p++ - '0');
  }
  resident = fields[1];
  shared = fields[2];
  return true;
}

std::atomic<std::uint64_t>& live_allocations(char* chunk) {
  return *reinterpret_cast<std::atomic<std::uint64_t>*>(chunk);
}

// The guard's thread sleeps a millisecond between looks, and on a loaded machine waits many more for
// a core, while a scan of a spilled column maps its cached pages back at up to 16 MB a millisecond
// (8 MB in half a millisecond, sampled from /proc): the 2 GB trace at --max-memory 256M peaked at
// 236-358 MB without this look, 207-271 MB with it (issue 77, item 3). A timer on the process's CPU
// time signals the thread that is running, the one mapping the pages, after each millisecond of its
// work (at the kernel's tick, 4 ms at HZ=250), and it looks there. Armed at the first spill, so a
// run that spills nothing takes no signal (and counts the same instructions under valgrind).
void arm_cpu_look() noexcept {
  int made = 1;
  if (g_cpu_look_state.load(std::memory_order_relaxed) != 1 ||
      !g_cpu_look_state.compare_exchange_strong(made, 2, std::memory_order_acq_rel))
    return;
  itimerspec every{};
  every.it_interval.tv_nsec = every.it_value.tv_nsec = 1'000'000;
  ::timer_settime(g_cpu_look, 0, &every, nullptr);
}

// An extent of `length` bytes of the file, its disk blocks reserved and counted in the stats; its
// address, or nullptr. Under the mutex.
char* take_reserved(std::uint64_t length) {
  if (!open_arena()) return nullptr;
  std::uint64_t offset = 0;
  if (!take_extent(length, offset)) return nullptr;
  // Disk blocks now, not at the first write: a sparse page written on a full disk is a SIGBUS, a
  // failed reservation only a block that stays on the heap.
  if (::fallocate(g_fd, 0, static_cast<off_t>(offset), static_cast<off_t>(length)) != 0 &&
      errno != EOPNOTSUPP) {
    fail("reserve disk space for a block in");
    keep_free({offset, length});
    return nullptr;
  }
  g_stats.in_use += length;
  detail::g_live.store(g_stats.in_use, std::memory_order_relaxed);
  arm_cpu_look();
  g_stats.peak_in_use = std::max(g_stats.peak_in_use, g_stats.in_use);
  g_stats.blocks += 1;
  g_stats.total += length;
  return g_base.load(std::memory_order_relaxed) + offset;
}

// Gives an extent back: its disk blocks and cached pages at once; the range reads as zeros until
// reused. Under the mutex.
void give_back(char* extent, std::uint64_t length) {
  auto offset = static_cast<std::uint64_t>(extent - g_base.load(std::memory_order_relaxed));
  ::fallocate(g_fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, static_cast<off_t>(offset),
              static_cast<off_t>(length));
  g_stats.in_use -= length;
  detail::g_live.store(g_stats.in_use, std::memory_order_relaxed);
  keep_free({offset, length});
}

// A chunk of the file for packed allocations, its count 1 (the Pack's); under the mutex.
char* take_chunk() {
  char* chunk = take_reserved(kPackChunk);
  if (!chunk) return nullptr;
  // No fault-around: a read of a few bytes (a table's name in each of 2,048 workers' reports) maps
  // that page alone, not the 64 KiB about it (issue 78: 60 MB mapped in 14 ms, past the guard).
  // Blocks keep it: their columns are read in order.
  ::madvise(chunk, kPackChunk, MADV_RANDOM);
  new (chunk) std::atomic<std::uint64_t>(1);
  return chunk;
}

// The chunk goes back with its last reference: its allocations' and its Pack's while it fills it.
void drop_chunk_reference(char* chunk) noexcept {
  if (live_allocations(chunk).fetch_sub(1, std::memory_order_acq_rel) != 1) return;
  std::lock_guard lock(g_mutex);
  give_back(chunk, kPackChunk);
}

}  // namespace

namespace detail {
constinit thread_local Pack* t_packing = nullptr;
constinit thread_local std::uint32_t t_allocations = 0;
constinit thread_local std::uint64_t t_allocated = 0;
constinit std::atomic<std::uint64_t> g_live{0};
}  // namespace detail

namespace {

// This thread's last look at whether the process is past a quarter of the budget (PackScope).
struct QuarterLook {
  bool looked = false;
  bool past = false;
  std::uint64_t limit = 0;      // the budget it was made under
  std::uint64_t allocated = 0;  // detail::t_allocated then
  std::uint32_t scopes = 0;     // scopes opened since
};
constinit thread_local QuarterLook t_quarter_look{};

// Whether the process's anonymous memory, and a chunk, are past a quarter of `limit`: statm read
// again only past the look's allowance of bytes and scopes (kLookBytes, kLookScopes).
bool past_a_quarter_of(std::uint64_t limit) noexcept {
  QuarterLook& look = t_quarter_look;
  if (look.looked && look.limit == limit && detail::t_allocated - look.allocated < kLookBytes &&
      ++look.scopes < kLookScopes)
    return look.past;
  look = {true, anonymous_bytes() + kPackChunk > limit / 4, limit, detail::t_allocated, 0};
  return look.past;
}

}  // namespace

void trim_if_over_budget() noexcept {
  std::uint64_t limit = g_budget.load(std::memory_order_relaxed);
  if (limit != 0 && resident_bytes() > limit / 16 * 11) trim_resident();
}

Pack::~Pack() {
  if (chunk_) drop_chunk_reference(chunk_);
}

bool Pack::next_chunk() noexcept {
  char* chunk = nullptr;
  {
    std::lock_guard lock(g_mutex);
    chunk = take_chunk();
  }
  if (!chunk) return false;
  if (chunk_) drop_chunk_reference(chunk_);
  chunk_ = chunk;
  used_ = kChunkHeader;
  return true;
}

PackScope::PackScope(Pack& pack) noexcept : previous_(detail::t_packing) {
  std::uint64_t limit = g_budget.load(std::memory_order_relaxed);
  // From a quarter of the budget, not the blocks' half: what is packed is kept to the end,
  // and the heap it would have grown keeps its pages after it is freed. Past it once, a pack goes
  // on packing: no look at /proc for each scope after that.
  bool pack_now = pack.chunk_ || (limit != 0 && past_a_quarter_of(limit));
  detail::t_packing = pack_now ? &pack : nullptr;
  // What is packed is read back at once (a run's workers made into its report): the pages it maps
  // again are let go here too, not only at the guard's next look, which a loaded machine delays.
  if (pack.chunk_) trim_if_over_budget();
}

PackScope::~PackScope() {
  detail::t_packing = previous_;
}

void* allocate_packed(std::size_t bytes) noexcept {
  Pack* pack = detail::t_packing;
  if (!pack || bytes > kMaxPacked) return nullptr;
  std::size_t need = kPackedHeader + round_up(bytes == 0 ? 1 : bytes, kPackedHeader);
  if ((!pack->chunk_ || pack->used_ + need > kPackChunk) && !pack->next_chunk()) return nullptr;
  char* p = pack->chunk_ + pack->used_ + kPackedHeader;
  pack->used_ += need;
  std::uint64_t tag = static_cast<std::uint64_t>(pack->chunk_ - g_base.load(std::memory_order_relaxed)) + 1;
  std::memcpy(p - kTagBytes, &tag, sizeof tag);
  live_allocations(pack->chunk_).fetch_add(1, std::memory_order_relaxed);
  return p;
}

void set_budget(std::uint64_t bytes, const std::string& folder_path) {
  std::lock_guard lock(g_mutex);
  g_folder = folder_path;
  g_budget.store(bytes, std::memory_order_release);
}

std::uint64_t budget() {
  return g_budget.load(std::memory_order_acquire);
}
const std::string& folder() {
  return g_folder;
}

std::uint64_t anonymous_bytes() noexcept {
  unsigned long long resident = 0, shared = 0;
  if (!statm_pages(resident, shared)) return 0;
  return resident > shared ? (resident - shared) * page_size() : 0;
}

void* allocate_if_over_budget(std::size_t bytes) noexcept {
  std::uint64_t limit = g_budget.load(std::memory_order_relaxed);
  if (limit == 0 || bytes < kMinSpillBlock) return nullptr;
  unsigned long long resident = 0, shared = 0;
  statm_pages(resident, shared);  // zeros where unread: then nothing is trimmed or spilled
  std::uint64_t anonymous = resident > shared ? (resident - shared) * page_size() : 0;
  // The block's pages will be resident as it is written, in the heap or in the file: room for them
  // now, not at the guard's next look (one reading of statm for both questions).
  if (g_guard_started.load(std::memory_order_relaxed) && resident * page_size() + bytes > limit / 16 * 11)
    trim_resident();
  if (anonymous + bytes <= limit / 2) return nullptr;
  std::lock_guard lock(g_mutex);
  std::uint64_t length = round_up(bytes + kHeader, page_size());
  char* block = take_reserved(length);
  if (!block) return nullptr;
  std::memcpy(block, &length, sizeof length);
  std::memset(block + kHeader - kTagBytes, 0, kTagBytes);  // a block, not a packed allocation
  return block + kHeader;
}

bool owns(const void* p) noexcept {
  const char* base = g_base.load(std::memory_order_acquire);
  return base && p >= base && static_cast<const char*>(p) < base + g_reserve.load(std::memory_order_relaxed);
}

void release(void* p) noexcept {
  char* base = g_base.load(std::memory_order_relaxed);
  std::uint64_t tag = 0;
  std::memcpy(&tag, static_cast<char*>(p) - kTagBytes, sizeof tag);
  if (tag != 0) {
    drop_chunk_reference(base + (tag - 1));
    return;
  }
  char* block = static_cast<char*>(p) - kHeader;
  std::uint64_t length = 0;
  std::memcpy(&length, block, sizeof length);
  std::lock_guard lock(g_mutex);
  give_back(block, length);
}

Stats stats() noexcept {
  std::lock_guard lock(g_mutex);
  return g_stats;
}

bool failed() noexcept {
  return g_failed_flag.load(std::memory_order_relaxed);
}

std::string spill_error() {
  std::lock_guard lock(g_mutex);
  if (!g_failed) return "";
  return std::string("cannot ") + g_failed_step + " " + g_folder + ": " + std::strerror(g_errno);
}

// The spilled blocks' pages are file pages mapped into the process: while mapped they count in its
// resident set (what /usr/bin/time, VmHWM and a container's limit see), and an analysis that reads a
// spilled column maps all of it again without asking for memory. Unmapping them gives the data back
// to the file (a shared file mapping: the next access maps the file's current contents again from
// the page cache, which the kernel writes back and reclaims).
void trim_resident() noexcept {
  char* base = g_base.load(std::memory_order_acquire);
  std::uint64_t used = g_used_end.load(std::memory_order_relaxed);
  if (!base || used == 0) return;
  ::madvise(base, used, MADV_DONTNEED);
}

std::uint64_t statm_reads_on_this_thread() noexcept {
  return t_statm_reads;
}

std::uint64_t resident_bytes() noexcept {
  unsigned long long resident = 0, shared = 0;
  return statm_pages(resident, shared) ? resident * page_size() : 0;
}

namespace {

// The CPU-time look's signal: async-signal-safe (open, read, close and madvise; no lock, no heap).
void on_cpu_look(int) {
  int saved = errno;
  if (detail::g_live.load(std::memory_order_relaxed) != 0) trim_if_over_budget();
  errno = saved;
}

// The timer behind arm_cpu_look, made here, outside operator new (sigaction and timer_create may
// not be called from it safely); a real-time signal no library here uses, restarting system calls.
void make_cpu_look() noexcept {
  struct sigaction action {};
  action.sa_handler = on_cpu_look;
  action.sa_flags = SA_RESTART;
  sigemptyset(&action.sa_mask);
  sigevent event{};
  event.sigev_notify = SIGEV_SIGNAL;
  event.sigev_signo = SIGRTMIN + 7;
  if (::sigaction(event.sigev_signo, &action, nullptr) == 0 &&
      ::timer_create(CLOCK_PROCESS_CPUTIME_ID, &event, &g_cpu_look) == 0)
    g_cpu_look_state.store(1, std::memory_order_release);
}

}  // namespace

void start_resident_guard() {
  if (g_guard_started.exchange(true)) return;
  make_cpu_look();
  // Past eleven sixteenths of the budget the spilled pages are unmapped: the rest is the room for
  // what an analysis maps again between two looks (1 ms apart; longer on a loaded machine, hence
  // the look on CPU time as well: arm_cpu_look). Nothing
  // to look at while no block is in the file (before the first spill, or a server between
  // requests): a look every 50 ms.
  std::thread([] {
    for (;;) {
      std::uint64_t limit = g_budget.load(std::memory_order_relaxed);
      bool spilled = detail::g_live.load(std::memory_order_relaxed) != 0;
      if (limit != 0 && spilled && resident_bytes() > limit / 16 * 11) trim_resident();
      std::this_thread::sleep_for(std::chrono::milliseconds(spilled ? 1 : 50));
    }
  }).detach();
}

std::uint64_t cgroup_memory_limit(std::istream& cgroups, const std::string& sysfs, std::uint64_t physical) {
  std::uint64_t limit = physical;
  std::string line;
  while (std::getline(cgroups, line)) {
    std::string root, file;
    if (line.starts_with("0::")) {
      root = sysfs;
      file = "memory.max";
    } else if (line.find(":memory:") != std::string::npos) {
      root = sysfs + "/memory";
      file = "memory.limit_in_bytes";
    } else {
      continue;
    }
    std::string path = line.substr(line.find(':', line.find(':') + 1) + 1);
    while (!path.empty() && path.back() == '/') path.pop_back();
    for (;;) {
      std::ifstream in(root + path + "/" + file);
      std::uint64_t value = 0;
      if (in >> value && value > 0) limit = std::min(limit, value);  // "max" (v2) reads as no number
      if (path.empty()) break;
      path = path.substr(0, path.rfind('/'));
    }
  }
  return limit;
}

std::uint64_t available_memory_limit() {
  std::ifstream cgroups("/proc/self/cgroup");
  return cgroup_memory_limit(cgroups, "/sys/fs/cgroup",
                             static_cast<std::uint64_t>(::sysconf(_SC_PHYS_PAGES)) * page_size());
}

bool folder_is_in_memory(const std::string& path) {
  struct statfs info {};
  if (::statfs(path.c_str(), &info) != 0) return false;
  return info.f_type == TMPFS_MAGIC || info.f_type == RAMFS_MAGIC;
}

}  // namespace perfgate::spill
