// gzip, in one place: detected by its magic, inflated as a stream while an input is read (ISA-L's
// igzip: several times zlib's speed on the JSON of traces), and whole buffers compressed and
// inflated (zlib: partial reports' bodies).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "io/byte_source.h"

namespace perfgate {

// Whether a file's first bytes are gzip's magic (1f 8b).
bool is_gzip(std::string_view head);

// gzip (or zlib) stream over the compressed bytes `compressed`; concatenated gzip members are read as
// one stream. Errors name `name` (the file).
std::unique_ptr<ByteSource> make_gzip_source(std::unique_ptr<ByteSource> compressed, std::string name);
// The inflated bytes of the gzip input `compressed` (a .json.gz file, gzip bytes in memory): each
// stream inflated as it is read; with OpenOptions::inflate_ahead, on a thread of its own.
std::unique_ptr<ByteInput> make_gzip_input(std::unique_ptr<ByteInput> compressed);
// `input` inflated where its first bytes are gzip's magic; else `input` itself.
std::unique_ptr<ByteInput> inflate_if_gzip(std::unique_ptr<ByteInput> input);
// A file's bytes, inflated as they are read where it starts with gzip's magic (a baseline report).
std::unique_ptr<ByteSource> open_maybe_gzip_file(const std::string& path);

// `bytes` as one gzip member (zlib, level 6: the same bytes for the same input, every run).
std::string gzip_compress(std::string_view bytes);
enum class Inflated { Whole, OverLimit, Corrupt };
// One gzip member inflated into `out`, at most `limit` bytes (0: no limit). Corrupt: not gzip,
// cut short, or followed by other bytes.
Inflated gzip_inflate(std::string_view in, std::uint64_t limit, std::string& out);

}  // namespace perfgate
