#include "engine/partials.h"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include <fmt/format.h>

#include "common/errors.h"
#include "engine/analyse_profiles.h"
#include "engine/engine.h"
#include "engine/part_files.h"
#include "io/io.h"
#include "load/load.h"
#include "report/build_report.h"
#include "report/partial.h"

namespace perfgate {
namespace fs = std::filesystem;
namespace {

std::optional<std::size_t> parse_count(std::string_view text) {
  std::size_t v = 0;
  if (!text.empty() && (text[0] == '+' || text[0] == '-')) return std::nullopt;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || text.empty()) return std::nullopt;
  return v;
}

std::uint32_t file_crc32(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::uint32_t crc = 0;
  std::string chunk(1 << 20, '\0');
  while (in.read(chunk.data(), static_cast<std::streamsize>(chunk.size())).gcount() > 0)
    crc = crc32_update(crc, std::string_view(chunk.data(), static_cast<std::size_t>(in.gcount())));
  return crc;
}

// n * k / count without overflow (k <= count): where the k-th slice of n files starts.
std::size_t slice_bound(std::size_t n, std::size_t k, std::size_t count) {
  __extension__ using Wide = unsigned __int128;
  return static_cast<std::size_t>(static_cast<Wide>(n) * k / count);
}

// A folder stands for its *.pgp files, in natural order.
std::vector<std::string> partial_files(const std::vector<std::string>& paths) {
  std::vector<std::string> files;
  for (const std::string& path : paths) {
    std::error_code ec;
    if (!fs::is_directory(path, ec)) {
      if (!fs::exists(path, ec)) throw InputError(fmt::format("{}: no such file or folder", path));
      files.push_back(path);
      continue;
    }
    std::vector<std::string> found;
    for (const auto& entry : fs::directory_iterator(path, ec))
      if (entry.path().extension() == ".pgp") found.push_back(entry.path().string());
    if (ec) throw InputError(fmt::format("{}: cannot list folder: {}", path, ec.message()));
    if (found.empty()) throw InputError(fmt::format("{}: the folder holds no partial reports (*.pgp)", path));
    std::sort(found.begin(), found.end(), natural_path_less);
    files.insert(files.end(), found.begin(), found.end());
  }
  return files;
}

// "0-3, 7": ranks as ranges.
std::string rank_ranges(const std::vector<std::int64_t>& ranks) {
  std::string out;
  for (std::size_t i = 0; i < ranks.size();) {
    std::size_t j = i;
    while (j + 1 < ranks.size() && ranks[j + 1] == ranks[j] + 1) ++j;
    out += fmt::format("{}{}", out.empty() ? "" : ", ",
                       j > i ? fmt::format("{}-{}", ranks[i], ranks[j]) : std::to_string(ranks[i]));
    i = j + 1;
  }
  return out;
}

bool same_options(const AnalysisOptions& a, const AnalysisOptions& b) {
  return a.window.iter_start == b.window.iter_start && a.window.iter_stop == b.window.iter_stop &&
         a.window.skip_first == b.window.skip_first && a.window.time_start == b.window.time_start &&
         a.window.time_stop == b.window.time_stop && a.device == b.device && a.key_op == b.key_op &&
         a.step_pattern == b.step_pattern && a.detailed_workers == b.detailed_workers &&
         a.device_memory == b.device_memory;
}

// Every part made with the merge's rules and the first part's window options.
void check_same_run(const std::vector<std::string>& files, const std::vector<PartialHeader>& headers,
                    const std::string& digest) {
  std::vector<std::string> other_rules;
  for (std::size_t i = 0; i < files.size(); ++i)
    if (headers[i].rules_digest != digest) other_rules.push_back(files[i]);
  if (!other_rules.empty())
    throw RefusedError(
        fmt::format("{}: made with other rules than this merge's ({} here): give merge the "
                    "--rules, --set and --disable the partial reports were made with",
                    fmt::join(other_rules, ", "), digest));
  for (std::size_t i = 1; i < files.size(); ++i)
    if (!same_options(headers[i].options, headers[0].options))
      throw RefusedError(
          fmt::format("{} and {}: made with different window options (--iter-start, "
                      "--iter-stop, --skip-first, --key-op, --step-pattern, --detailed-workers)",
                      files[0], files[i]));
}

// Ranks missing from the world size. A rank stated twice is the analysis' warning, as for analyze
// (docs/formats.md, "Ranks"); the same input twice is refused by place_inputs.
void check_ranks(const std::vector<PartialHeader>& headers, bool allow_missing) {
  std::set<std::int64_t> owner;
  std::optional<std::int64_t> world_size;
  for (const PartialHeader& header : headers) {
    if (header.world_size) world_size = std::max(world_size.value_or(0), *header.world_size);
    for (const std::optional<std::int64_t>& rank : header.ranks)
      if (rank) owner.insert(*rank);
  }
  if (!world_size || allow_missing) return;
  // The gaps between the ranks present, below the world size: exact count and ranges in
  // O(ranks present), whatever the world size.
  constexpr std::size_t kShownGaps = 20;
  std::uint64_t missing = 0, more_gaps = 0;
  std::vector<std::string> gaps;
  std::int64_t next = 0;  // the lowest rank not yet accounted for
  auto gap_before = [&](std::int64_t end) {
    if (end <= next) return;
    missing += static_cast<std::uint64_t>(end - next);
    if (gaps.size() == kShownGaps)
      ++more_gaps;
    else
      gaps.push_back(end - next == 1 ? std::to_string(next) : fmt::format("{}-{}", next, end - 1));
  };
  for (std::int64_t rank : owner) {
    if (rank < 0 || rank >= *world_size) continue;
    gap_before(rank);
    next = rank + 1;
  }
  gap_before(*world_size);
  if (missing > 0)
    throw RefusedError(
        fmt::format("{} of {} ranks are missing from the partial reports (rank{} {}); merge the "
                    "missing slices too, or give --allow-missing-ranks to report on these ranks",
                    missing, *world_size, missing == 1 ? "" : "s",
                    fmt::format("{}", fmt::join(gaps, ", ")) +
                        (more_gaps > 0 ? fmt::format(" and {} more ranges", more_gaps) : "")));
}

// Every slice of one --slice count, once: a part missing is ranks missing, even where no trace
// states a world size (Neuron). Returns the note the merged report gives, with
// --allow-missing-ranks, when slices are missing.
std::optional<Note> check_slices(const std::vector<std::string>& files,
                                 const std::vector<PartialHeader>& headers, bool allow_missing) {
  std::map<std::uint64_t, std::size_t> owner;
  std::optional<std::size_t> first;  // the first sliced part; parts without --slice are their own slice
  for (std::size_t f = 0; f < headers.size(); ++f) {
    if (!headers[f].sliced) continue;
    if (!first) first = f;
    const PartialHeader& head = headers[*first];
    if (headers[f].slice_count != head.slice_count)
      throw RefusedError(fmt::format("{} and {}: slices of different counts (--slice {}/{} and {}/{})",
                                     files[*first], files[f], head.slice_index, head.slice_count,
                                     headers[f].slice_index, headers[f].slice_count));
    auto [it, added] = owner.try_emplace(headers[f].slice_index, f);
    if (!added)
      throw RefusedError(fmt::format("{} and {}: both are slice {} of {}", files[it->second], files[f],
                                     headers[f].slice_index, headers[f].slice_count));
  }
  if (!first) return {};
  std::uint64_t count = headers[*first].slice_count;
  if (owner.size() == count) return {};
  std::vector<std::int64_t> missing;
  for (std::uint64_t k = 0; k < count && missing.size() < 1000; ++k)
    if (!owner.contains(k)) missing.push_back(static_cast<std::int64_t>(k));
  std::uint64_t absent = count - owner.size();
  bool more = missing.size() < absent;  // only the first 1000 are named
  if (!allow_missing)
    throw RefusedError(
        fmt::format("{} of {} slices present (slice{} {}{} missing): merge every slice's partial report, or "
                    "give --allow-missing-ranks to report on these",
                    owner.size(), count, absent == 1 ? "" : "s", rank_ranges(missing), more ? ", ..." : ""));
  return note<NoteId::merge_slices_missing>(arg<"present">(owner.size()), arg<"count">(count),
                                            arg<"missing_count">(absent),
                                            arg<"missing">(rank_ranges(missing)), arg<"more">(more));
}

// Each file's inputs placed in the run's natural path order; an input twice is refused.
void place_inputs(PartialSet& set, const std::vector<PartialHeader>& headers) {
  struct Place {
    const PartialInput* input;
    std::size_t file, local;
  };
  std::vector<Place> all;
  for (std::size_t f = 0; f < headers.size(); ++f)
    for (std::size_t i = 0; i < headers[f].inputs.size(); ++i) all.push_back({&headers[f].inputs[i], f, i});
  std::stable_sort(all.begin(), all.end(), [](const Place& a, const Place& b) {
    return natural_path_less(a.input->input.path, b.input->input.path);
  });
  set.input_positions.resize(headers.size());
  for (std::size_t f = 0; f < headers.size(); ++f) set.input_positions[f].resize(headers[f].inputs.size());
  for (std::size_t g = 0; g < all.size(); ++g) {
    const Place& p = all[g];
    if (g > 0 && all[g - 1].input->input.path == p.input->input.path)
      throw RefusedError(fmt::format("{}: the input {} twice (also in {})", set.files[p.file],
                                     p.input->input.path, set.files[all[g - 1].file]));
    set.input_positions[p.file][p.local] = g;
    if (!p.input->skipped.empty()) {
      set.skipped.push_back(skipped_note({g, p.input->skipped}));
    } else {
      set.inputs.push_back(p.input->input);
      set.profiles.push_back(p.input->input.path);
    }
  }
}

}  // namespace

Slice parse_slice(const std::string& text) {
  std::size_t slash = text.find('/');
  std::optional<std::size_t> k, n;
  if (slash != std::string::npos) {
    k = parse_count(std::string_view(text).substr(0, slash));
    n = parse_count(std::string_view(text).substr(slash + 1));
  }
  if (!k || !n || *n == 0 || *k >= *n)
    throw ConfigError(fmt::format("--slice {}: give K/N, the K-th (from 0) of N slices, 0 <= K < N", text));
  if (*n > static_cast<std::size_t>(kMaxWorldSize))
    throw ConfigError(fmt::format("--slice {}: {} slices is more than any run has ranks (at most {})", text,
                                  *n, kMaxWorldSize));
  return {*k, *n, true};
}

void refuse_partial_reports(const std::vector<std::string>& paths) {
  for (const std::string& path : paths) {
    std::error_code ec;
    if (!fs::is_regular_file(path, ec)) continue;
    std::ifstream in(path, std::ios::binary);
    char head[32] = {};
    in.read(head, sizeof head);
    if (starts_like_partial(std::string_view(head, static_cast<std::size_t>(in.gcount()))))
      throw InputError(
          fmt::format("{}: a perfgate partial report, not a trace: merge partial reports "
                      "with `perfgate merge`",
                      path));
  }
}

WrittenPartial write_partial(const PreparedRun& prepared, const Slice& slice, const std::string& out) {
  const RunRequest& request = prepared.request;
  // A partial report records each input's checksum, which the merge checks against its file.
  if (!request.profile_bytes.empty())
    throw ConfigError("a partial report is made of profile files, not of profiles given as bytes");
  refuse_partial_reports(request.paths);
  // The slice's share of the run's files, in the natural order of their paths.
  auto choose_slice = [&](std::vector<InputFile> inputs) {
    std::stable_sort(inputs.begin(), inputs.end(), [](const InputFile& x, const InputFile& y) {
      return natural_path_less(x.path, y.path);
    });
    std::size_t n = inputs.size();
    return std::vector<InputFile>(
        inputs.begin() + static_cast<std::ptrdiff_t>(slice_bound(n, slice.index, slice.count)),
        inputs.begin() + static_cast<std::ptrdiff_t>(slice_bound(n, slice.index + 1, slice.count)));
  };
  RunCombiner run(request.options.detailed_workers);
  const RuleBook& book = *prepared.book;
  RunInputs read = load_into(run, request.paths, load_options_of(request, book.knowledge), book.knowledge,
                             request.options, choose_slice);
  const std::vector<InputFile>& inputs = read.inputs;
  const std::vector<SkippedInput>& skipped = read.skipped;
  PartialReport partial{.header = {}, .run = run.finish_partial()};
  partial.header.rules_digest = rules_digest(rule_book_fingerprint(book));
  partial.header.sliced = slice.given;
  partial.header.slice_index = slice.index;
  partial.header.slice_count = slice.count;
  partial.header.options = request.options;
  std::size_t next_skipped = 0;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const InputFile& f = inputs[i];
    PartialInput p{{f.path, f.bytes, f.format, f.worker, f.folder}, file_crc32(f.path), ""};
    if (next_skipped < skipped.size() && skipped[next_skipped].input == i)
      p.skipped = skipped[next_skipped++].reason;
    partial.header.inputs.push_back(std::move(p));
  }
  std::string bytes = encode_partial(partial);
  write_file_atomically(out, bytes);
  return {bytes.size(), partial.run.workers.size(), inputs.size()};
}

PartialSet read_partial_headers(const std::vector<std::string>& paths, const RuleBook& book,
                                bool allow_missing_ranks, std::uint64_t max_memory) {
  PartialSet set;
  set.files = partial_files(paths);
  std::vector<PartialHeader> headers;
  for (const std::string& file : set.files) headers.push_back(read_checked_partial_header(file, max_memory));
  check_same_run(set.files, headers, rules_digest(rule_book_fingerprint(book)));
  place_inputs(set, headers);  // an input twice is named before the ranks it leaves missing
  check_ranks(headers, allow_missing_ranks);
  if (std::optional<Note> missing = check_slices(set.files, headers, allow_missing_ranks))
    set.skipped.push_back(std::move(*missing));
  if (set.inputs.empty()) throw InputError("merge: the partial reports hold no profile");
  set.options = headers[0].options;
  return set;
}

ReportModel merge_partials(const PartialSet& set, const RuleBook& book, std::uint64_t max_memory) {
  RunCombiner run(set.options.detailed_workers);
  for (std::size_t f = 0; f < set.files.size(); ++f) {
    PartialReport part =
        decode_partial(read_partial_file(set.files[f], max_memory), set.files[f], max_memory);
    if (part.header.inputs.size() != set.input_positions[f].size())
      throw InputError(fmt::format("{}: changed while it was merged", set.files[f]));
    const std::vector<std::size_t>& place = set.input_positions[f];
    for (PositionedWorker& w : part.run.workers) w.position.input = place[w.position.input];
    for (RankCollectiveSums& r : part.run.collectives.ranks) r.position.input = place[r.position.input];
    for (MatchedCollective& c : part.run.collectives.collectives)
      if (c.timed > 0) c.latest.input = place[c.latest.input];
    run.add(std::move(part.run));
  }
  RunAnalysis analysis = run.finish();
  analysis.warnings.insert(analysis.warnings.begin(), set.skipped.begin(), set.skipped.end());
  return build_report(set.inputs, std::move(analysis), book.rules.sources, set.options);
}

}  // namespace perfgate
