// Files at the byte level, for every stage that reads or writes them: the memory limit on one
// input, outputs replaced atomically, and the checksum of a file's bytes.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace perfgate {

// The most memory one input (a trace, a baseline report) may make perfgate hold: the records,
// names and tables kept from it, as counted while it is read. A hostile or corrupt file (a gzip
// bomb of events) stops there with an input error instead of taking the machine's memory. 4 GiB is
// far above real traces (the model holds 0.17 to 0.4 times a trace's JSON) and well below a CI
// runner's memory. 0: no limit. docs/formats.md#memory-limits.
inline constexpr std::uint64_t kDefaultMaxInputMemory = std::uint64_t{4} << 30;
inline constexpr const char* kMaxInputMemoryVariable = "PERFGATE_MAX_INPUT_MEMORY";

// A profile given as bytes, not as a file (a test's trace, a program that holds its trace in
// memory): read as a file named `name` would be, and named so in reports and messages.
struct ProfileBytes {
  std::string name;
  std::shared_ptr<const std::string> bytes;
};

// "4G", "512MiB", "1.5G", "100k" or a number of bytes; K, M, G and T are powers of 1024 (an "i"
// and a "B" may follow). Empty when malformed or beyond 2^64.
std::optional<std::uint64_t> parse_byte_size(std::string_view text);
// "4 GiB", "1.5 GiB", "1000 bytes": a limit as messages show it.
std::string byte_size_text(std::uint64_t bytes);
// PERFGATE_MAX_INPUT_MEMORY where set, else kDefaultMaxInputMemory. Throws ConfigError naming the
// variable when its value is not a size.
std::uint64_t max_input_memory_from_environment();
// Why `path` is refused when holding it needs more than `limit` bytes.
std::string input_memory_message(const std::string& path, std::uint64_t limit);

// Writes `content` to `path` through a temporary file in the same folder and a rename, so a
// reader never sees half a file. Throws OutputError naming the path.
void write_file_atomically(const std::string& path, const std::string& content);
// The same, with the content produced in pieces: `produce` calls its argument with each.
using ContentProducer = std::function<void(const std::function<void(std::string_view)>& write)>;
void write_file_atomically(const std::string& path, const ContentProducer& produce);
// Appends `content` in one write (for files that others append to, like $GITHUB_STEP_SUMMARY).
void append_to_file(const std::string& path, const std::string& content);

// zlib's CRC-32 of `bytes` continued from `crc` (0 to start): an input's checksum.
std::uint32_t crc32_update(std::uint32_t crc, std::string_view bytes);

}  // namespace perfgate
