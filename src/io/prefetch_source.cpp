// Reads a ByteSource ahead on its own thread: decompression runs on one core while the JSON parser
// runs on the other. A small ring of blocks bounds the memory it holds.
#include <algorithm>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <string_view>
#include <thread>
#include <vector>

#include "io/byte_source.h"

namespace perfgate {
namespace {

class PrefetchSource : public ByteSource {
 public:
  explicit PrefetchSource(std::unique_ptr<ByteSource> inner) : inner_(std::move(inner)) {
    for (auto& b : blocks_) b.data.resize(kBlockSize);
    worker_ = std::thread([this] { produce(); });
  }
  PrefetchSource(const PrefetchSource&) = delete;
  PrefetchSource& operator=(const PrefetchSource&) = delete;
  ~PrefetchSource() override {
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    changed_.notify_all();
    worker_.join();
  }

  std::size_t read(char* out, std::size_t size) override {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [this] { return filled_ > 0 || done_; });
    if (filled_ == 0) {
      if (error_) std::rethrow_exception(error_);
      return 0;
    }
    Block& b = blocks_[head_];
    std::size_t n = std::min(size, b.size - b.offset);
    std::copy_n(b.data.data() + b.offset, n, out);
    b.offset += n;
    consumed_ = b.consumed_after;
    if (b.offset == b.size) {
      head_ = (head_ + 1) % kBlocks;
      --filled_;
      lock.unlock();
      changed_.notify_all();
    }
    return n;
  }

  // The head block's next bytes lent where they lie (issue 58: the copy into the parser's buffer
  // was 3-5% of a one-thread .json.gz run): the block stays the consumer's until release() passes
  // its end, and only then goes back to the producer. The reader releases what it was lent before
  // it asks again.
  bool lends() const override { return true; }
  std::string_view lend(std::size_t size) override {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [this] { return filled_ > 0 || done_; });
    if (filled_ == 0) {
      if (error_) std::rethrow_exception(error_);
      return {};
    }
    Block& b = blocks_[head_];
    std::size_t n = std::min(size, b.size - b.offset);
    std::string_view lent(b.data.data() + b.offset, n);
    b.offset += n;
    consumed_ = b.consumed_after;
    return lent;
  }
  void release(const char* end) override {
    std::unique_lock lock(mutex_);
    if (filled_ == 0) return;
    Block& b = blocks_[head_];
    if (b.offset < b.size || end != b.data.data() + b.size) return;  // the block is still being read
    head_ = (head_ + 1) % kBlocks;
    --filled_;
    lock.unlock();
    changed_.notify_all();
  }

  std::uint64_t file_bytes_consumed() const override {
    std::lock_guard lock(mutex_);
    return consumed_;
  }

 private:
  static constexpr std::size_t kBlocks = 4;
  static constexpr std::size_t kBlockSize = 256 * 1024;
  struct Block {
    std::vector<char> data;
    std::size_t size = 0;
    std::size_t offset = 0;
    std::uint64_t consumed_after = 0;
  };

  void produce() {
    std::size_t tail = 0;
    try {
      for (;;) {
        {
          std::unique_lock lock(mutex_);
          changed_.wait(lock, [this] { return filled_ < kBlocks || stopping_; });
          if (stopping_) return;
        }
        Block& b = blocks_[tail];  // the consumer does not touch a block until it is counted in filled_
        b.size = inner_->read(b.data.data(), b.data.size());
        b.offset = 0;
        b.consumed_after = inner_->file_bytes_consumed();
        std::lock_guard lock(mutex_);
        if (b.size == 0) {
          done_ = true;
          changed_.notify_all();
          return;
        }
        tail = (tail + 1) % kBlocks;
        ++filled_;
        changed_.notify_all();
      }
    } catch (...) {
      std::lock_guard lock(mutex_);
      error_ = std::current_exception();
      done_ = true;
      changed_.notify_all();
    }
  }

  std::unique_ptr<ByteSource> inner_;
  Block blocks_[kBlocks];
  std::size_t head_ = 0;
  std::size_t filled_ = 0;
  bool done_ = false;
  bool stopping_ = false;
  std::exception_ptr error_;
  std::uint64_t consumed_ = 0;
  mutable std::mutex mutex_;
  std::condition_variable changed_;
  std::thread worker_;
};

}  // namespace

std::unique_ptr<ByteSource> make_prefetch_source(std::unique_ptr<ByteSource> inner) {
  return std::make_unique<PrefetchSource>(std::move(inner));
}

}  // namespace perfgate
