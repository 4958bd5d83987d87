// Growing storage for records while a trace streams in. std::vector's doubling holds the old and
// the new buffer at once (three times the data at the peak); this appends into 1 MiB chunks
// mapped straight from the kernel, never copies while growing, and take() moves the records into
// one exact-size vector while unmapping each chunk, so the peak stays near one copy.
#pragma once

#include <sys/mman.h>

#include <cstring>
#include <new>
#include <type_traits>
#include <vector>

namespace perfgate {

template <typename T>
class ChunkedAppender {
  static_assert(std::is_trivially_copyable_v<T>, "records are copied as bytes");

 public:
  ChunkedAppender() = default;
  ChunkedAppender(const ChunkedAppender&) = delete;
  ChunkedAppender& operator=(const ChunkedAppender&) = delete;
  ~ChunkedAppender() {
    for (T* chunk : chunks_) ::munmap(chunk, kChunkBytes);
  }

  void push_back(const T& value) {
    if (used_ == kPerChunk || chunks_.empty()) add_chunk();
    std::memcpy(static_cast<void*>(chunks_.back() + used_), &value, sizeof(T));
    ++used_;
    ++size_;
  }
  std::size_t size() const { return size_; }

  // Appends everything to `out` (reserved to its final size first) and empties this appender.
  void move_into(std::vector<T>& out) {
    out.reserve(out.size() + size_);
    for (std::size_t i = 0; i < chunks_.size(); ++i) {
      std::size_t n = i + 1 == chunks_.size() ? used_ : kPerChunk;
      out.insert(out.end(), chunks_[i], chunks_[i] + n);
      ::munmap(chunks_[i], kChunkBytes);
    }
    chunks_.clear();
    used_ = size_ = 0;
  }

 private:
  static constexpr std::size_t kChunkBytes = 1 << 20;
  static constexpr std::size_t kPerChunk = kChunkBytes / sizeof(T);

  void add_chunk() {
    void* p = ::mmap(nullptr, kChunkBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    chunks_.push_back(static_cast<T*>(p));
    used_ = 0;
  }

  std::vector<T*> chunks_;
  std::size_t used_ = 0;
  std::size_t size_ = 0;
};

}  // namespace perfgate
