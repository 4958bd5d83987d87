// A harness's input as a file, for the harnesses that read what perfgate reads from a file on disk
// (mapped, or opened by SQLite by its path): each input is written to one temp file per process
// (libFuzzer runs one input at a time in a process) and read from there.
#pragma once

#include <unistd.h>
#include <zlib.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

namespace perfgate::fuzz {

inline std::string write_input(const std::uint8_t* data, std::size_t size, const char* suffix) {
  const char* dir = std::getenv("TMPDIR");
  std::string path =
      std::string(dir && *dir ? dir : "/tmp") + "/perfgate-fuzz-" + std::to_string(getpid()) + suffix;
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) std::abort();  // the harness's own failure, not perfgate's
  if (size && std::fwrite(data, 1, size, f) != size) std::abort();
  if (std::fclose(f) != 0) std::abort();
  return path;
}

// `in` as a gzip member (level 1: the harnesses want speed, not size).
inline std::string gzip(std::string_view in) {
  std::string out(compressBound(static_cast<uLong>(in.size())) + 32, '\0');
  z_stream z{};
  deflateInit2(&z, 1, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  z.avail_in = static_cast<uInt>(in.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  deflate(&z, Z_FINISH);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

}  // namespace perfgate::fuzz
