#include "support/read_bytes.h"

#include <fmt/format.h>

#include <memory>

#include "common/errors.h"
#include "io/byte_source.h"
#include "io/gzip.h"
#include "load/reader.h"

namespace perfgate::testing {

ReadBytes read_bytes(const std::string& bytes, bool gzip, const LoadOptions& options, unsigned threads,
                     const std::string& name) {
  SniffedInput input = sniff_input(std::make_unique<MemoryInput>(name, gzip ? gzip_compress(bytes) : bytes));
  if (!input.reader) throw InputError(fmt::format("{}: not {}", name, formats_read()));
  ReadBytes read;
  read.format = input.reader->name;
  const std::string worker = worker_name_from_path(name);
  const std::function<void(std::uint64_t)> no_progress;
  input.reader->read({*input.bytes, worker, options, threads, no_progress}, [&](Profile&& p) {
    p.source_bytes = input.bytes->stored_bytes();  // as the loader sets it
    read.profiles.push_back(std::move(p));
  });
  return read;
}

std::string read_bytes_error(const std::string& bytes, bool gzip, const LoadOptions& options,
                             const std::string& name) {
  try {
    read_bytes(bytes, gzip, options, 1, name);
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace perfgate::testing
