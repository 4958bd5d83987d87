// A partial report: what a run needs from some of its workers, written where their traces are
// (perfgate analyze --partial) and merged into the run's report elsewhere (perfgate merge).
// docs/formats.md, "Partial reports", describes the file.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "perfgate/analysis.h"
#include "perfgate/report.h"

namespace perfgate {

inline constexpr std::string_view kPartialSchema = "perfgate-partial/1";

// One input of the part, as the loader found it, with a checksum of its bytes; a skipped input
// keeps its place (positions count it) and the warning the report shows for it.
struct PartialInput {
  ReportInput input;
  std::uint32_t crc32 = 0;  // of the file's bytes (zlib's CRC-32)
  std::string skipped;      // the warning, when the input was skipped; empty otherwise
};

// What must agree between the parts of one run, and what the merge needs besides the workers.
struct PartialHeader {
  std::string perfgate_version;
  std::string layout;        // digest of the encoded types: a partial of another build is refused
  std::string rules_digest;  // of the effective rules (perfgate analyze --print-effective-rules)
  AnalysisOptions options;   // threads aside
  std::vector<PartialInput> inputs;
  // Each worker's rank as its trace states it (distributedInfo), in position order, and the
  // largest world size the workers state.
  std::vector<std::optional<std::int64_t>> ranks;
  std::optional<std::int64_t> world_size;
};

struct PartialReport {
  PartialHeader header;
  PartialRun run;
};

// The file's bytes: a text header (the schema line, then the header as one line of JSON) and the
// workers and sums, encoded and gzip-compressed.
std::string encode_partial(const PartialReport& partial);
// Throws InputError naming `path` for a file that is not a partial report, is truncated or corrupt,
// or was written by another perfgate build; `max_memory` bounds the decoded workers (0: none).
PartialReport decode_partial(std::string_view bytes, const std::string& path, std::uint64_t max_memory);
// The header alone, from the file's first bytes (up to the end of its second line at least).
PartialHeader decode_partial_header(std::string_view head, const std::string& path);
// Whether a file's first bytes are a partial report's.
bool starts_like_partial(std::string_view head);
// zlib's CRC-32 of `bytes` continued from `crc` (0 to start): an input's checksum.
std::uint32_t crc32_update(std::uint32_t crc, std::string_view bytes);
// The digest a partial records for a rule set, from its effective YAML.
std::string rules_digest(std::string_view effective_rules_yaml);

}  // namespace perfgate
