// Growing storage for records while a trace streams in. std::vector's doubling holds the old and
// the new buffer at once (three times the data at the peak); this appends into chunks, never copies
// while growing, and move_into() moves the records into one exact-size vector while freeing each
// chunk, so the peak stays near one copy. The first 64 KiB are small chunks from the heap, each as
// large as those before it together (4, 4, 8, 16 and 32 KiB); from there on 1 MiB chunks are mapped
// straight from the kernel, or over the --max-memory budget taken from the spill file
// (io/spill_arena.h), so what stays on the heap whatever the budget is 64 KiB an appender.
// A tiny trace (a rank of a run of 65,536) thus costs no mapping, no look at the budget and no
// page faults of its own (issue 78: 5 maps, 5 reads of /proc/self/statm and 5 unmaps a rank).
#pragma once

#include <sys/mman.h>

#include <algorithm>
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
    std::swap(held_bytes_, other.held_bytes_);
    std::swap(chunk_bytes_, other.chunk_bytes_);
  }

  void push_back(const T& value) {
    if (chunks_.empty() || used_ == chunks_.back().capacity) add_chunk();
    std::memcpy(static_cast<void*>(chunks_.back().records + used_), &value, sizeof(T));
    ++used_;
    ++size_;
  }
  std::size_t size() const { return size_; }
  // The memory held for records, emptied chunks kept for reuse included.
  std::size_t memory_bytes() const { return held_bytes_; }
  // Chunks holding records now (not the emptied ones kept for reuse).
  std::size_t chunk_count() const { return chunks_.size(); }

  // Calls `visit(first, count)` for each run of records, in order, freeing each run after its visit,
  // and empties this appender.
  template <typename Visit>
  void drain(Visit&& visit) {
    for (std::size_t i = 0; i < chunks_.size(); ++i) {
      visit(static_cast<const T*>(chunks_[i].records), i + 1 == chunks_.size() ? used_ : chunks_[i].capacity);
      held_bytes_ -= chunks_[i].bytes;
      free_chunk(chunks_[i]);
      chunks_[i].records = nullptr;
    }
    chunks_.clear();
    used_ = size_ = 0;
    chunk_bytes_ = 0;
  }

  // Calls `visit(first, count)` for each run of records, in order, and empties this appender but
  // keeps its memory for the next records (a reused buffer costs no page faults).
  template <typename Visit>
  void visit_and_clear(Visit&& visit) {
    for (std::size_t i = 0; i < chunks_.size(); ++i)
      visit(static_cast<const T*>(chunks_[i].records), i + 1 == chunks_.size() ? used_ : chunks_[i].capacity);
    spare_.insert(spare_.end(), chunks_.rbegin(), chunks_.rend());  // reused in the same order
    chunks_.clear();
    used_ = size_ = 0;
    chunk_bytes_ = 0;
  }

  // Appends everything to `out` (reserved to its final size first) and empties this appender.
  void move_into(std::vector<T>& out) {
    out.reserve(out.size() + size_);
    drain([&](const T* first, std::size_t n) { out.insert(out.end(), first, first + n); });
  }

 private:
  static constexpr std::size_t kChunkBytes = 1 << 20;  // the largest chunk, mapped
  static constexpr std::size_t kFirstChunkBytes = 4 << 10;
  static constexpr std::size_t kHeapBytes = 64 << 10;  // in the heap's chunks at most
  static_assert(sizeof(T) <= kFirstChunkBytes, "a chunk holds a record at least");

  struct Chunk {
    T* records = nullptr;
    std::size_t capacity = 0;  // in records
    std::size_t bytes = 0;     // allocated: kChunkBytes where mapped (or spilled), else from the heap
  };

  void release() noexcept {
    for (const Chunk& chunk : chunks_)
      if (chunk.records) free_chunk(chunk);
    for (const Chunk& chunk : spare_) free_chunk(chunk);
    chunks_.clear();
    spare_.clear();
    used_ = size_ = 0;
    held_bytes_ = chunk_bytes_ = 0;
  }

  void add_chunk() {
    used_ = 0;
    if (!spare_.empty()) {
      chunks_.push_back(spare_.back());
      spare_.pop_back();
      chunk_bytes_ += chunks_.back().bytes;
      return;
    }
    // As large as the chunks before it together (doubling the room), from 4 KiB to 64 KiB in all.
    std::size_t bytes = chunk_bytes_ < kHeapBytes ? std::max(chunk_bytes_, kFirstChunkBytes) : kChunkBytes;
    void* p = nullptr;
    if (bytes < kChunkBytes) {
      p = ::operator new(bytes);
    } else {
      p = spill::allocate_if_over_budget(kChunkBytes);
      if (!p) p = ::mmap(nullptr, kChunkBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      if (p == MAP_FAILED) throw std::bad_alloc();
    }
    chunks_.push_back({static_cast<T*>(p), bytes / sizeof(T), bytes});
    chunk_bytes_ += bytes;
    held_bytes_ += bytes;
  }

  static void free_chunk(const Chunk& chunk) noexcept {
    if (chunk.bytes < kChunkBytes)
      ::operator delete(chunk.records);
    else if (spill::owns(chunk.records))
      spill::release(chunk.records);
    else
      ::munmap(chunk.records, kChunkBytes);
  }

  std::vector<Chunk> chunks_;
  std::vector<Chunk> spare_;  // emptied chunks kept by visit_and_clear, the next to reuse last
  std::size_t used_ = 0;
  std::size_t size_ = 0;
  std::size_t held_bytes_ = 0;   // chunks_ and spare_ together
  std::size_t chunk_bytes_ = 0;  // chunks_
};

}  // namespace perfgate
