// The read-ahead source (a one-thread .json.gz read inflates on its own thread) lends its blocks
// where they lie (issue 58): what is lent and released in any sizes is the inner source's bytes, in
// order, and an error of the inner source reaches the reader.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>

#include "io/byte_source.h"

namespace perfgate {
namespace {

// Bytes 0, 1, 2, ... in reads of at most `step` bytes; fails after `fail_at` bytes when set.
class CountingSource : public ByteSource {
 public:
  CountingSource(std::size_t total, std::size_t step, std::size_t fail_at = SIZE_MAX)
      : total_(total), step_(step), fail_at_(fail_at) {}
  std::size_t read(char* out, std::size_t size) override {
    if (at_ >= fail_at_) throw std::runtime_error("inner source failed");
    std::size_t n = std::min({size, step_, total_ - at_});
    for (std::size_t i = 0; i < n; ++i) out[i] = static_cast<char>((at_ + i) * 7 % 251);
    at_ += n;
    return n;
  }
  std::uint64_t file_bytes_consumed() const override { return at_; }

 private:
  std::size_t total_, step_, fail_at_;
  std::size_t at_ = 0;
};

std::string expected(std::size_t total) {
  std::string s(total, '\0');
  for (std::size_t i = 0; i < total; ++i) s[i] = static_cast<char>(i * 7 % 251);
  return s;
}

TEST(PrefetchSource, LentBytesAreTheInnerSourcesInOrder) {
  for (std::size_t total : {0ul, 1ul, 1000ul, 3 * 256 * 1024ul + 17, 9 * 256 * 1024ul}) {
    for (std::size_t step : {1000ul, 256 * 1024ul, 1ul << 20}) {
      for (std::size_t lend : {4096ul, 100000ul, 256 * 1024ul, 1ul << 20}) {
        SCOPED_TRACE(testing::Message() << total << " " << step << " " << lend);
        auto source = make_prefetch_source(std::make_unique<CountingSource>(total, step));
        ASSERT_TRUE(source->lends());
        std::string got;
        for (std::string_view v = source->lend(lend); !v.empty(); v = source->lend(lend)) {
          got.append(v);
          source->release(v.data() + v.size());
        }
        EXPECT_EQ(got, expected(total));
        EXPECT_EQ(source->file_bytes_consumed(), total);
      }
    }
  }
}

TEST(PrefetchSource, AnInnerErrorReachesTheReader) {
  auto source = make_prefetch_source(std::make_unique<CountingSource>(10 << 20, 64 * 1024, 3 << 20));
  std::size_t read = 0;
  EXPECT_THROW(
      {
        for (std::string_view v = source->lend(1 << 20); !v.empty(); v = source->lend(1 << 20)) {
          read += v.size();
          source->release(v.data() + v.size());
        }
      },
      std::runtime_error);
  EXPECT_EQ(read, 3u << 20);
}

// A reader that stops early (a bad trace) leaves the source with blocks lent and unreleased: it is
// destroyed without waiting on them.
TEST(PrefetchSource, ADestroyedSourceStopsItsThreadWithBlocksStillLent) {
  auto source = make_prefetch_source(std::make_unique<CountingSource>(10 << 20, 64 * 1024));
  EXPECT_FALSE(source->lend(1000).empty());
  source.reset();
}

}  // namespace
}  // namespace perfgate
