// gzip, in one place: detected by its magic, inflated as a stream while a file is read (ISA-L's
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

// gzip (or zlib) stream over a file; concatenated gzip members are read as one stream.
std::unique_ptr<ByteSource> make_gzip_source(std::unique_ptr<FileSource> file);
// A .json.gz trace's bytes: inflated on a thread of its own, ahead of the parse, when
// `inflate_ahead` (a one-thread read); else by the thread that reads (the one that cuts a
// trace into pieces for the others to parse, into the buffer it cuts, with no copy).
std::unique_ptr<ByteSource> open_gzip_file(const std::string& path, bool inflate_ahead);
// A file's bytes, inflated as they are read where it starts with gzip's magic.
std::unique_ptr<ByteSource> open_maybe_gzip_file(const std::string& path);

// `bytes` as one gzip member (zlib, level 6: the same bytes for the same input, every run).
std::string gzip_compress(std::string_view bytes);
enum class Inflated { Whole, OverLimit, Corrupt };
// One gzip member inflated into `out`, at most `limit` bytes (0: no limit). Corrupt: not gzip,
// cut short, or followed by other bytes.
Inflated gzip_inflate(std::string_view in, std::uint64_t limit, std::string& out);

}  // namespace perfgate
