#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string_view>

#include <fmt/format.h>

#include "io/gzip.h"
#include "load/legacy/legacy_reader.h"
#include "load/neuron/neuron_reader.h"
#include "perfgate/errors.h"
#include "perfgate/load.h"

namespace perfgate {

const char* format_name(InputFormat format) {
  switch (format) {
    case InputFormat::KinetoJson:
      return "kineto-json";
    case InputFormat::KinetoJsonGzip:
      return "kineto-json.gz";
    case InputFormat::NsysSqlite:
      return "nsys-sqlite";
    case InputFormat::NeuronJson:
      return "neuron-json";
    case InputFormat::NeuronSummaryJson:
      return "neuron-summary-json";
    case InputFormat::LegacyJson:
      return "pytorch-legacy-json";
    case InputFormat::Unknown:
      break;
  }
  return "unknown";
}

InputFormat detect_format(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw InputError(fmt::format("{}: cannot open: {}", path, std::strerror(errno)));
  char head[4096] = {};
  ssize_t n = ::read(fd, head, sizeof head);
  int read_errno = errno;
  ::close(fd);
  if (n < 0) throw InputError(fmt::format("{}: cannot read: {}", path, std::strerror(read_errno)));
  if (n == 0) throw InputError(fmt::format("{}: empty file (0 bytes)", path));

  std::string_view bytes(head, static_cast<std::size_t>(n));
  if (is_gzip(bytes)) return InputFormat::KinetoJsonGzip;
  if (bytes.starts_with(std::string_view("SQLite format 3\0", 16))) return InputFormat::NsysSqlite;
  if (bytes.starts_with("\xEF\xBB\xBF")) bytes.remove_prefix(3);  // UTF-8 byte order mark
  std::size_t first = bytes.find_first_not_of(" \t\r\n");
  if (first != std::string_view::npos && bytes[first] == '{') {
    // A Neuron profile is a JSON object too: its first key tells (neuron_reader.h).
    InputFormat neuron = neuron::detect_json(bytes.substr(first));
    return neuron == InputFormat::Unknown ? InputFormat::KinetoJson : neuron;
  }
  if (first != std::string_view::npos && bytes[first] == '[')
    // A bare array: a Chrome trace, or the legacy profiler's, whose first event tells (legacy_reader.h).
    return legacy::detect(bytes.substr(first)) ? InputFormat::LegacyJson : InputFormat::KinetoJson;
  return InputFormat::Unknown;
}

}  // namespace perfgate
