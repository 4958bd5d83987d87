// A partial report: what a run needs from some of its workers, written where their traces are
// (perfgate analyze --partial) and merged into the run's report elsewhere (perfgate merge).
// docs/formats.md, "Partial reports", describes the file.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analyse/analysis.h"
#include "report_model/report.h"

namespace perfgate {

inline constexpr std::string_view kPartialSchema = "perfgate-partial/2";
// The most ranks a run may state: a larger world size is refused as implausible.
inline constexpr std::int64_t kMaxWorldSize = std::int64_t{1} << 20;

// One input of the part, as the loader found it, with a checksum of its bytes; a skipped input
// keeps its place (positions count it) and why it was skipped, for the report's note.
struct PartialInput {
  ReportInput input;
  std::uint32_t crc32 = 0;  // of the file's bytes (zlib's CRC-32)
  std::string skipped;      // why the input was skipped (SkippedInput::reason); empty otherwise
};

// What must agree between the parts of one run, and what the merge needs besides the workers.
struct PartialHeader {
  std::string perfgate_version;
  std::string layout;        // digest of the encoded types: a partial of another build is refused
  std::string rules_digest;  // of the rules in effect (rule_set_fingerprint)
  AnalysisOptions options;   // threads aside
  std::vector<PartialInput> inputs;
  // Each worker's rank as its trace states it (distributedInfo), in position order, and the
  // largest world size the workers state.
  std::vector<std::optional<std::int64_t>> ranks;
  std::optional<std::int64_t> world_size;
  // The slice of the run's files this part holds (analyze --slice K/N): a merge that lacks a slice
  // lacks ranks, even when no trace states a world size (Neuron). Without --slice (`sliced` false)
  // the part is a slice of its own inputs and takes no part in the slice checks.
  bool sliced = false;
  std::uint64_t slice_index = 0;
  std::uint64_t slice_count = 1;
  // Where the file's body starts, the body's declared length, and the CRC-32 that the check line
  // declares over the two header lines and the body (every byte but the check line's).
  std::uint64_t head_bytes = 0;
  std::uint64_t body_bytes = 0;
  std::uint32_t check_crc32 = 0;
};

struct PartialReport {
  PartialHeader header;
  PartialRun run;
};

// The file's bytes: a text header (the schema line, the header as one line of JSON, the check
// line `crc32 XXXXXXXX`) and the workers and sums, encoded and gzip-compressed.
std::string encode_partial(const PartialReport& partial);
// Throws InputError naming `path` for a file that is not a partial report, is truncated or corrupt
// (its checksum, checked before anything else, or a header fact the body contradicts), or was
// written by another perfgate build. `max_memory` (0: none) bounds what decoding holds: the
// file's bytes, the inflated body and every string and list decoded from it, all together.
PartialReport decode_partial(std::string_view bytes, const std::string& path, std::uint64_t max_memory);
// The header alone, from the file's first bytes (up to the end of its third line at least); its
// checksum is not checked here (the caller has the rest of the file: verify_partial_checksum).
PartialHeader decode_partial_header(std::string_view head, const std::string& path);
// Throws InputError naming `path` unless `crc32`, continued over every byte of the file but the
// check line (bytes [head_bytes - check line, head_bytes)), is the check line's.
void verify_partial_checksum(const PartialHeader& header, std::uint32_t crc32_without_check_line,
                             const std::string& path);
// The length of the check line (`crc32 XXXXXXXX\n`), the last of the head.
inline constexpr std::size_t kPartialCheckLineBytes = 15;
// Whether a file's first bytes are a partial report's.
bool starts_like_partial(std::string_view head);
// The digest a partial records for a rule set, from its fingerprint (rule_set_fingerprint, rules.h).
std::string rules_digest(std::string_view rule_set_fingerprint);

}  // namespace perfgate
