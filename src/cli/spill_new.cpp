// The global operator new and delete of the perfgate executable: blocks of 1 MiB or more go to the
// spill file when the process is over its --max-memory budget (io/spill_arena.h), small ones
// made under a packing scope there too (spill::PackScope), everything else to malloc. Linked into the
// executable only, so the library's users keep their own.
#include <cstdint>
#include <cstdlib>
#include <new>

#include "io/spill_arena.h"

namespace {

void* allocate(std::size_t bytes) {
  perfgate::spill::count_allocation(bytes);
  if (bytes >= perfgate::spill::kMinSpillBlock) {
    if (void* p = perfgate::spill::allocate_if_over_budget(bytes)) return p;
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
  if (perfgate::spill::owns(p)) {
    perfgate::spill::release(p);
    if ((++t_released & 63U) == 0) perfgate::spill::trim_if_over_budget();
  } else {
    std::free(p);
  }
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
