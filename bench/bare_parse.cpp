// perfgate-bare-parse TRACE.json: Boost.JSON's basic_parser over a mapped file with a handler that
// keeps nothing (bench/noop_handler.h), in the pieces and with the options perfgate's reader uses
// (256 KiB views of the mapped file; trailing commas and invalid UTF-8 allowed), built with the
// project's flags. Run under callgrind, it is the floor the reader's instructions are measured
// against (docs/performance.md): `valgrind --tool=callgrind build/perfgate-bare-parse TRACE`.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>

#include <boost/json/basic_parser_impl.hpp>

#include "bench/noop_handler.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: perfgate-bare-parse TRACE.json\n");
    return 2;
  }
  int fd = ::open(argv[1], O_RDONLY);
  struct stat st {};
  if (fd < 0 || ::fstat(fd, &st) != 0 || st.st_size == 0) {
    std::fprintf(stderr, "perfgate-bare-parse: cannot read %s\n", argv[1]);
    return 3;
  }
  auto size = static_cast<std::size_t>(st.st_size);
  void* mapped = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
  if (mapped == MAP_FAILED) {
    std::fprintf(stderr, "perfgate-bare-parse: cannot map %s\n", argv[1]);
    return 3;
  }
  const char* data = static_cast<const char*>(mapped);
  boost::json::parse_options options;
  options.max_depth = 64;
  options.allow_trailing_commas = true;
  options.allow_invalid_utf8 = true;
  boost::json::basic_parser<NoOpHandler> parser(options);
  boost::system::error_code ec;
  constexpr std::size_t kPiece = 256 << 10;  // kineto_reader.cpp's kLentChunkSize
  for (std::size_t offset = 0; offset < size && !ec; offset += kPiece) {
    std::size_t n = std::min(kPiece, size - offset);
    parser.write_some(offset + n < size, data + offset, n, ec);
  }
  if (ec) {
    std::fprintf(stderr, "perfgate-bare-parse: %s: %s\n", argv[1], ec.message().c_str());
    return 3;
  }
  std::printf("%zu bytes parsed\n", size);
  ::munmap(mapped, size);
  ::close(fd);
  return 0;
}
