// Growing storage for records while a trace streams in. std::vector's doubling holds the old and
// the new buffer at once (three times the data at the peak); this appends into 1 MiB chunks
// mapped straight from the kernel, never copies while growing, and take() moves the records into
// one exact-size vector while unmapping each chunk, so the peak stays near one copy. Over the
// --max-memory budget the chunks come from the spill file instead (io/spill_arena.h).
#pragma once

#include <sys/mman.h>

#include <cstring>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

#include "io/spill_arena.h"

namespace perfgate {

template <typename T>
class ChunkedAppender {
  static_assert(std::is_trivially_copyable_v<T>, "records are copied as bytes");

 public:
  ChunkedAppender() = default;
  ChunkedAppender(const ChunkedAppender&) = delete;
  ChunkedAppender& operator=(const ChunkedAppender&) = delete;
  ChunkedAppender(ChunkedAppender&& other) noexcept { swap(other); }
  ChunkedAppender& operator=(ChunkedAppender&& other) noexcept {
    release();
    swap(other);
    return *this;
  }
  ~ChunkedAppender() { release(); }

  void swap(ChunkedAppender& other) noexcept {
    chunks_.swap(other.chunks_);
    spare_.swap(other.spare_);
    std::swap(used_, other.used_);
    std::swap(size_, other.size_);
  }

  void push_back(const T& value) {
    if (used_ == kPerChunk || chunks_.empty()) add_chunk();
    std::memcpy(static_cast<void*>(chunks_.back() + used_), &value, sizeof(T));
    ++used_;
    ++size_;
  }
  std::size_t size() const { return size_; }
  // The memory mapped for records, emptied chunks kept for reuse included.
  std::size_t memory_bytes() const { return (chunks_.size() + spare_.size()) * kChunkBytes; }

  // Calls `visit(first, count)` for each run of records, in order, unmapping each run after its
  // visit, and empties this appender.
  template <typename Visit>
  void drain(Visit&& visit) {
    for (std::size_t i = 0; i < chunks_.size(); ++i) {
      visit(static_cast<const T*>(chunks_[i]), i + 1 == chunks_.size() ? used_ : kPerChunk);
      free_chunk(chunks_[i]);
      chunks_[i] = nullptr;
    }
    chunks_.clear();
    used_ = size_ = 0;
  }

  // Calls `visit(first, count)` for each run of records, in order, and empties this appender but
  // keeps its memory for the next records (a reused buffer costs no page faults).
  template <typename Visit>
  void visit_and_clear(Visit&& visit) {
    for (std::size_t i = 0; i < chunks_.size(); ++i)
      visit(static_cast<const T*>(chunks_[i]), i + 1 == chunks_.size() ? used_ : kPerChunk);
    spare_.insert(spare_.end(), chunks_.begin(), chunks_.end());
    chunks_.clear();
    used_ = size_ = 0;
  }

  // Appends everything to `out` (reserved to its final size first) and empties this appender.
  void move_into(std::vector<T>& out) {
    out.reserve(out.size() + size_);
    drain([&](const T* first, std::size_t n) { out.insert(out.end(), first, first + n); });
  }

 private:
  static constexpr std::size_t kChunkBytes = 1 << 20;
  static constexpr std::size_t kPerChunk = kChunkBytes / sizeof(T);

  void release() noexcept {
    for (T* chunk : chunks_)
      if (chunk) free_chunk(chunk);
    for (T* chunk : spare_) free_chunk(chunk);
    chunks_.clear();
    spare_.clear();
    used_ = size_ = 0;
  }

  void add_chunk() {
    used_ = 0;
    if (!spare_.empty()) {
      chunks_.push_back(spare_.back());
      spare_.pop_back();
      return;
    }
    void* p = spill::allocate_if_over_budget(kChunkBytes);
    if (!p) p = ::mmap(nullptr, kChunkBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    chunks_.push_back(static_cast<T*>(p));
  }

  static void free_chunk(T* chunk) noexcept {
    if (spill::owns(chunk))
      spill::release(chunk);
    else
      ::munmap(chunk, kChunkBytes);
  }

  std::vector<T*> chunks_;
  std::vector<T*> spare_;  // emptied chunks kept by visit_and_clear
  std::size_t used_ = 0;
  std::size_t size_ = 0;
};

}  // namespace perfgate
