#include <zlib.h>

#include <vector>

#include <fmt/format.h>

#include "load/byte_source.h"
#include "perfgate/errors.h"

namespace perfgate {
namespace {

class GzipSource : public ByteSource {
 public:
  explicit GzipSource(std::unique_ptr<FileSource> file) : file_(std::move(file)), input_(kInputSize) {
    stream_.zalloc = Z_NULL;
    stream_.zfree = Z_NULL;
    stream_.opaque = Z_NULL;
    // 15 + 32: accept gzip or zlib headers.
    if (inflateInit2(&stream_, 15 + 32) != Z_OK)
      throw InputError(fmt::format("{}: cannot start gzip decompression", file_->path()));
  }
  GzipSource(const GzipSource&) = delete;
  GzipSource& operator=(const GzipSource&) = delete;
  ~GzipSource() override { inflateEnd(&stream_); }

  std::size_t read(char* out, std::size_t size) override {
    stream_.next_out = reinterpret_cast<Bytef*>(out);
    stream_.avail_out = static_cast<uInt>(size);
    while (stream_.avail_out == size && !finished_) {
      if (stream_.avail_in == 0 && !refill()) {
        if (!member_ended_) throw truncated();
        finished_ = true;
        break;
      }
      if (member_ended_) {
        // Another gzip member follows the previous one: continue as one stream.
        inflateReset(&stream_);
        member_ended_ = false;
      }
      int rc = inflate(&stream_, Z_NO_FLUSH);
      if (rc == Z_STREAM_END) {
        member_ended_ = true;
      } else if (rc == Z_BUF_ERROR) {
        continue;  // needs more input
      } else if (rc != Z_OK) {
        throw InputError(fmt::format("{}: corrupt gzip data after {} compressed bytes: {}", file_->path(),
                                     consumed(), stream_.msg ? stream_.msg : zError(rc)));
      }
    }
    return size - stream_.avail_out;
  }

  std::uint64_t file_bytes_consumed() const override { return consumed(); }

 private:
  static constexpr std::size_t kInputSize = 64 * 1024;

  bool refill() {
    std::size_t n = file_->read(input_.data(), input_.size());
    stream_.next_in = reinterpret_cast<Bytef*>(input_.data());
    stream_.avail_in = static_cast<uInt>(n);
    return n > 0;
  }
  std::uint64_t consumed() const { return file_->file_bytes_consumed() - stream_.avail_in; }
  InputError truncated() const {
    return InputError(
        fmt::format("{}: truncated gzip stream: the file ends after {} bytes inside compressed data",
                    file_->path(), file_->file_bytes_consumed()));
  }

  std::unique_ptr<FileSource> file_;
  std::vector<char> input_;
  z_stream stream_{};
  bool member_ended_ = false;
  bool finished_ = false;
};

}  // namespace

std::unique_ptr<ByteSource> make_gzip_source(std::unique_ptr<FileSource> file) {
  return std::make_unique<GzipSource>(std::move(file));
}

}  // namespace perfgate
