// The global operator new and delete of the perfgate executable: blocks of 1 MiB or more go to the
// spill file when the process is over its --max-memory budget (io/spill_arena.h), small ones
// made under a packing scope there too (spill::PackScope), everything else to malloc. Linked into the
// executable only, so the library's users keep their own.
#include <sys/mman.h>

#include <cstdint>
#include <cstdlib>
#include <new>

#if defined(PERFGATE_MIMALLOC)
#include <mimalloc.h>
#endif

#include "io/spill_arena.h"

namespace {

#if defined(PERFGATE_MIMALLOC)
// Blocks of 1 MiB or more are mapped on their own and unmapped when freed, as glibc's malloc did
// under main's M_MMAP_THRESHOLD: mimalloc keeps what is freed 25 ms before it gives it back, and the
// analysis's stages free and allocate large arrays faster than that (a 300 MB trace peaked at
// 117 MB against glibc's 96 MB). Giving every page back at once instead (a decommit delay of 0)
// cost a run of 65,536 tiny ranks 17% more page faults. The block's mapping size is kept in front of
// it, kMappedHeader bytes, which keeps every alignment operator new owes.
constexpr std::size_t kMappedHeader = 64;
constexpr std::uintptr_t kPage = 4096;

void* map_large(std::size_t bytes) {
  std::size_t total = bytes + kMappedHeader;
  void* mapping = ::mmap(nullptr, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mapping == MAP_FAILED) return nullptr;
  *static_cast<std::size_t*>(mapping) = total;
  return static_cast<char*>(mapping) + kMappedHeader;
}

// Whether `p` was mapped by map_large (and is now unmapped): it sits kMappedHeader bytes into a
// page, which few of mimalloc's blocks do, and mimalloc does not own it.
bool unmap_large(void* p) {
  if ((reinterpret_cast<std::uintptr_t>(p) & (kPage - 1)) != kMappedHeader || mi_is_in_heap_region(p))
    return false;
  char* mapping = static_cast<char*>(p) - kMappedHeader;
  ::munmap(mapping, *reinterpret_cast<std::size_t*>(mapping));
  return true;
}
#endif

void* allocate(std::size_t bytes) {
  perfgate::spill::count_allocation(bytes);
  if (bytes >= perfgate::spill::kMinSpillBlock) {
    if (void* p = perfgate::spill::allocate_if_over_budget(bytes)) return p;
#if defined(PERFGATE_MIMALLOC)
    if (void* p = map_large(bytes)) return p;
#endif
  } else if (perfgate::spill::packing()) {
    if (void* p = perfgate::spill::allocate_packed(bytes)) return p;
  }
  for (;;) {
    if (void* p = std::malloc(bytes ? bytes : 1)) return p;
    std::new_handler handler = std::get_new_handler();
    if (!handler) throw std::bad_alloc();
    handler();
  }
}

// Spilled blocks freed on this thread. Freeing what a run held of each rank (its summaries, their
// collectives, the report's sections: packed allocations, one page each apart) maps a page per
// block; 4,096 frees between count_allocation's looks mapped 16-30 MB at 8,192 tiny ranks (issue
// 78), so every 64th spilled block freed looks as well.
constinit thread_local std::uint32_t t_released = 0;

void deallocate(void* p) noexcept {
  perfgate::spill::count_allocation();  // freeing a spilled run reads its pages back too
  // No block is in the file while none of it is in use (g_live, which count_allocation has just
  // read): the look-up of the file's range, a call a free, is skipped (0.7% of a tiny rank's run).
  if (perfgate::spill::detail::g_live.load(std::memory_order_relaxed) != 0 && perfgate::spill::owns(p)) {
    perfgate::spill::release(p);
    if ((++t_released & 63U) == 0) perfgate::spill::trim_if_over_budget();
    return;
  }
#if defined(PERFGATE_MIMALLOC)
  if (unmap_large(p)) return;
#endif
  std::free(p);
}

}  // namespace

void* operator new(std::size_t bytes) {
  return allocate(bytes);
}
void* operator new[](std::size_t bytes) {
  return allocate(bytes);
}
void* operator new(std::size_t bytes, const std::nothrow_t&) noexcept {
  try {
    return allocate(bytes);
  } catch (...) {
    return nullptr;
  }
}
void* operator new[](std::size_t bytes, const std::nothrow_t&) noexcept {
  try {
    return allocate(bytes);
  } catch (...) {
    return nullptr;
  }
}
void operator delete(void* p) noexcept {
  deallocate(p);
}
void operator delete[](void* p) noexcept {
  deallocate(p);
}
void operator delete(void* p, std::size_t) noexcept {
  deallocate(p);
}
void operator delete[](void* p, std::size_t) noexcept {
  deallocate(p);
}
void operator delete(void* p, const std::nothrow_t&) noexcept {
  deallocate(p);
}
void operator delete[](void* p, const std::nothrow_t&) noexcept {
  deallocate(p);
}
