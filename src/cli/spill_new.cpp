// The global operator new and delete of the perfgate executable: blocks of 1 MiB or more go to the
// spill file when the process is over its --max-memory budget (io/spill_arena.h), small ones
// made under a packing scope there too (spill::PackScope), everything else to malloc. Linked into the
// executable only, so the library's users keep their own.
#include <cstdlib>
#include <new>

#include "io/spill_arena.h"

namespace {

void* allocate(std::size_t bytes) {
  perfgate::spill::count_allocation();
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

void deallocate(void* p) noexcept {
  perfgate::spill::count_allocation();  // freeing a spilled run reads its pages back too
  if (perfgate::spill::owns(p))
    perfgate::spill::release(p);
  else
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
