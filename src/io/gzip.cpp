// gzip (gzip.h). A stream is inflated with ISA-L's igzip (isal_inflate): several times zlib's speed
// on the highly compressible JSON of traces (35 MB of ResNet-50 trace: 0.11 s with zcat, 0.01 s with
// igzip), so that the parser, not the inflater, sets the pace of a .json.gz read on all cores. Whole
// buffers (partial reports' bodies) and checksums are zlib's.
#include "io/gzip.h"

#include <zlib.h>

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <vector>

#include <fmt/format.h>

#include "common/errors.h"
#include "io/io.h"
#include "io/isal_library.h"

namespace perfgate {
namespace {

const char* inflate_error(int rc) {
  switch (rc) {
    case ISAL_INVALID_BLOCK:
      return "invalid deflate block";
    case ISAL_INVALID_SYMBOL:
      return "invalid deflate symbol";
    case ISAL_INVALID_LOOKBACK:
      return "invalid distance too far back";
    case ISAL_INVALID_WRAPPER:
      return "incorrect header check";
    case ISAL_UNSUPPORTED_METHOD:
      return "unknown compression method";
    case ISAL_INCORRECT_CHECKSUM:
      return "incorrect data check";
    default:
      return "data error";
  }
}

class GzipSource : public ByteSource {
 public:
  GzipSource(std::unique_ptr<ByteSource> compressed, std::string name)
      : isal_(isal_library()),
        compressed_(std::move(compressed)),
        name_(std::move(name)),
        input_(kInputSize) {
    isal_.isal_inflate_init(&state_);
  }
  GzipSource(const GzipSource&) = delete;
  GzipSource& operator=(const GzipSource&) = delete;

  std::size_t read(char* out, std::size_t size) override {
    state_.next_out = reinterpret_cast<std::uint8_t*>(out);
    state_.avail_out = static_cast<std::uint32_t>(std::min<std::size_t>(size, 1u << 30));
    const std::uint32_t asked = state_.avail_out;
    while (state_.avail_out == asked && !finished_) {
      if (state_.avail_in == 0 && !refill()) {
        if (!member_ended_) throw truncated();
        finished_ = true;
        break;
      }
      if (member_ended_ || !started_) start_member();  // another gzip member continues the stream
      int rc = isal_.isal_inflate(&state_);
      if (rc < 0)
        throw InputError(fmt::format("{}: corrupt gzip data after {} compressed bytes: {}", name_, consumed(),
                                     inflate_error(rc)));
      if (state_.block_state == ISAL_BLOCK_FINISH) member_ended_ = true;
    }
    return asked - state_.avail_out;
  }

  std::uint64_t file_bytes_consumed() const override { return consumed(); }

 private:
  static constexpr std::size_t kInputSize = 64 * 1024;

  // gzip, or a zlib stream (as zlib's automatic header detection accepted before).
  void start_member() {
    std::uint8_t* next_in = state_.next_in;
    std::uint32_t avail_in = state_.avail_in;
    std::uint8_t* next_out = state_.next_out;
    std::uint32_t avail_out = state_.avail_out;
    isal_.isal_inflate_reset(&state_);
    state_.next_in = next_in;
    state_.avail_in = avail_in;
    state_.next_out = next_out;
    state_.avail_out = avail_out;
    state_.crc_flag = avail_in > 0 && next_in[0] != 0x1f ? ISAL_ZLIB : ISAL_GZIP;
    member_ended_ = false;
    started_ = true;
  }

  bool refill() {
    std::size_t n = compressed_->read(input_.data(), input_.size());
    state_.next_in = reinterpret_cast<std::uint8_t*>(input_.data());
    state_.avail_in = static_cast<std::uint32_t>(n);
    return n > 0;
  }
  std::uint64_t consumed() const { return compressed_->file_bytes_consumed() - state_.avail_in; }
  InputError truncated() const {
    return InputError(
        fmt::format("{}: truncated gzip stream: the file ends after {} bytes inside compressed data", name_,
                    compressed_->file_bytes_consumed()));
  }

  const IsalLibrary& isal_;
  std::unique_ptr<ByteSource> compressed_;
  std::string name_;
  std::vector<char> input_;
  inflate_state state_{};
  bool started_ = false;
  bool member_ended_ = false;
  bool finished_ = false;
};

// The inflated bytes of a gzip input: each stream a GzipSource over a stream of the compressed bytes.
class GzipInput : public ByteInput {
 public:
  explicit GzipInput(std::unique_ptr<ByteInput> compressed)
      : ByteInput(compressed->name()), compressed_(std::move(compressed)) {}
  std::uint64_t stored_bytes() const override { return compressed_->stored_bytes(); }
  std::unique_ptr<ByteSource> open(const OpenOptions& options) const override {
    auto gzip = make_gzip_source(compressed_->open({.map = false}), name());
    return options.inflate_ahead ? make_prefetch_source(std::move(gzip)) : std::move(gzip);
  }

 private:
  std::unique_ptr<ByteInput> compressed_;
};

}  // namespace

bool is_gzip(std::string_view head) {
  return head.size() >= 2 && static_cast<unsigned char>(head[0]) == 0x1f &&
         static_cast<unsigned char>(head[1]) == 0x8b;
}

std::unique_ptr<ByteSource> make_gzip_source(std::unique_ptr<ByteSource> compressed, std::string name) {
  return std::make_unique<GzipSource>(std::move(compressed), std::move(name));
}

std::unique_ptr<ByteInput> make_gzip_input(std::unique_ptr<ByteInput> compressed) {
  return std::make_unique<GzipInput>(std::move(compressed));
}

std::unique_ptr<ByteInput> inflate_if_gzip(std::unique_ptr<ByteInput> input) {
  if (is_gzip(read_head(*input, 2))) return make_gzip_input(std::move(input));
  return input;
}

std::unique_ptr<ByteSource> open_maybe_gzip_file(const std::string& path) {
  auto file = std::make_unique<FileSource>(path);
  char magic[2] = {0, 0};
  std::size_t got = read_fully(*file, magic, sizeof magic);
  file = std::make_unique<FileSource>(path);  // from the start again
  if (is_gzip(std::string_view(magic, got))) return make_gzip_source(std::move(file), path);
  return file;
}

std::string gzip_compress(std::string_view in) {
  z_stream z{};
  if (deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
    throw std::runtime_error("zlib: cannot start compressing");
  std::string out(deflateBound(&z, in.size()), '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  z.avail_in = static_cast<uInt>(in.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  int rc = deflate(&z, Z_FINISH);
  out.resize(z.total_out);
  deflateEnd(&z);
  if (rc != Z_STREAM_END) throw std::runtime_error("zlib: cannot compress");
  return out;
}

Inflated gzip_inflate(std::string_view in, std::uint64_t limit, std::string& out) {
  z_stream z{};
  if (inflateInit2(&z, 15 + 16) != Z_OK) throw std::runtime_error("zlib: cannot start inflating");
  out.clear();
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  z.avail_in = static_cast<uInt>(in.size());
  int rc = Z_OK;
  while (rc == Z_OK) {
    std::size_t have = out.size();
    if (limit && have >= limit) break;
    out.resize(have + (std::size_t{1} << 20));
    z.next_out = reinterpret_cast<Bytef*>(out.data() + have);
    z.avail_out = 1u << 20;
    rc = inflate(&z, Z_NO_FLUSH);
    out.resize(z.total_out);
  }
  inflateEnd(&z);
  if (rc == Z_OK) return Inflated::OverLimit;
  if (rc != Z_STREAM_END || z.avail_in != 0) return Inflated::Corrupt;
  return Inflated::Whole;
}

std::uint32_t crc32_update(std::uint32_t crc, std::string_view bytes) {
  uLong sum = crc;
  while (!bytes.empty()) {
    auto n = static_cast<uInt>(std::min<std::size_t>(bytes.size(), std::numeric_limits<uInt>::max()));
    sum = crc32(sum, reinterpret_cast<const Bytef*>(bytes.data()), n);
    bytes.remove_prefix(n);
  }
  return static_cast<std::uint32_t>(sum);
}

}  // namespace perfgate
