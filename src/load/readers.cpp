// The registry of readers (reader.h): every format perfgate reads, one line each. A new format is
// its reader's file, which defines `extern const Reader kNameReader{...}`, and its line here.
#include "load/reader.h"

#include <algorithm>

namespace perfgate {

// In the order that breaks a tie between equally sure sniffs, and that the message refusing an
// unknown file names the formats in.
#define PERFGATE_READERS(X)   \
  X(kKinetoJsonReader)        \
  X(kKinetoJsonGzipReader)    \
  X(kLegacyJsonReader)        \
  X(kNsysSqliteReader)        \
  X(kNeuronJsonReader)        \
  X(kNeuronSummaryJsonReader) \
  X(kXplaneReader)            \
  X(kRocprofJsonReader)       \
  X(kRocprofV1JsonReader)     \
  X(kMemorySnapshotReader)

#define PERFGATE_DECLARE_READER(reader) extern const Reader reader;
PERFGATE_READERS(PERFGATE_DECLARE_READER)

namespace {

#define PERFGATE_READER_ADDRESS(reader) &reader,
const Reader* const kReaders[] = {PERFGATE_READERS(PERFGATE_READER_ADDRESS)};

}  // namespace

std::span<const Reader* const> readers() {
  return kReaders;
}

FileHead::FileHead(std::string_view bytes, bool inflated) : bytes_(bytes), inflated_(inflated) {
  std::string_view text = bytes;
  if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);  // UTF-8 byte order mark
  std::size_t first = text.find_first_not_of(" \t\r\n");
  if (first != std::string_view::npos && (text[first] == '{' || text[first] == '['))
    json_ = text.substr(first);
}

const Reader* sniff_reader(const FileHead& head) {
  const Reader* best = nullptr;
  Sniffed best_sniff = Sniffed::No;
  for (const Reader* reader : kReaders)
    if (Sniffed s = reader->sniff(head); s > best_sniff) {
      best = reader;
      best_sniff = s;
    }
  return best;
}

const Reader* find_reader(std::string_view name) {
  auto at = std::find_if(std::begin(kReaders), std::end(kReaders),
                         [&](const Reader* r) { return name == r->name; });
  return at == std::end(kReaders) ? nullptr : *at;
}

std::string formats_read() {
  std::vector<std::string_view> named;
  for (const Reader* reader : kReaders)
    if (reader->description) named.push_back(reader->description);
  std::string text;
  for (std::size_t i = 0; i < named.size(); ++i) {
    if (i > 0) text += i + 1 == named.size() ? " or " : ", ";
    text += named[i];
  }
  return text;
}

}  // namespace perfgate
