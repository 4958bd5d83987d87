// Partial reports: `analyze --partial` writes one from some of a run's workers (a --slice of its
// files), `merge` reads them back into the run's report.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "analyse/analysis_fwd.h"
#include "analyse/analysis_options.h"
#include "common/errors.h"
#include "gate/rules.h"
#include "report_model/report.h"

namespace perfgate {

struct PreparedRun;
struct RuleBook;

// --slice K/N: the K-th (from 0) of N near-equal runs of consecutive files.
// Without --slice a part is a slice of its own inputs (`given` false): node-local parts hold the
// ranks their machine has, and the merge checks their inputs, not a slice count.
struct Slice {
  std::size_t index = 0;
  std::size_t count = 1;
  bool given = false;
};
// Throws ConfigError for anything but K/N with 0 <= K < N.
Slice parse_slice(const std::string& text);

// Throws InputError for a path that is a partial report: analyze reads traces, merge reads partials.
void refuse_partial_reports(const std::vector<std::string>& paths);

// What write_partial wrote.
struct WrittenPartial {
  std::size_t bytes = 0;
  std::size_t workers = 0;
  std::size_t inputs = 0;
};
// Loads and analyses the slice of the run's profiles' files (in natural path order) and writes the
// partial report to `out`.
WrittenPartial write_partial(const PreparedRun& run, const Slice& slice, const std::string& out);

// Partial reports whose headers were read and checked against each other and the rules: one run.
struct PartialSet {
  std::vector<std::string> files;                         // the partial reports, as named or found
  std::vector<std::vector<std::size_t>> input_positions;  // each file's inputs' places in the run
  AnalysisOptions options;
  std::vector<ReportInput> inputs;    // the run's inputs (skipped ones aside), in natural path order
  std::vector<std::string> profiles;  // their paths
  std::vector<Note> skipped;          // the notes of the inputs skipped, in the same order, then of
                                      // the slices missing (with --allow-missing-ranks)
};

// Reads the headers of every partial report (a folder: its *.pgp files) and refuses parts that are
// not of one run made with `book` (InputError naming them): another perfgate build, other rules
// or window options, an input or a rank twice, ranks missing from the world size (a warning
// instead with `allow_missing_ranks`, which every output states as the analysis would).
// Each header is checked against its file first (size, checksum; cli/part_files.h), reading at
// most `max_memory` bytes of it at once (0: no limit).
PartialSet read_partial_headers(const std::vector<std::string>& paths, const RuleBook& book,
                                bool allow_missing_ranks, std::uint64_t max_memory);

// The run's report, as analyze of all the inputs would make it: each part decoded and folded in
// as it is read, so only the detailed workers keep their tables.
ReportModel merge_partials(const PartialSet& set, const RuleBook& book, std::uint64_t max_memory);

}  // namespace perfgate
