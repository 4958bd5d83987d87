// Partial reports (analyze --partial) merged (perfgate merge) give the report of analysing every
// rank file in one process, byte for byte, whatever the split and the order the parts are named in;
// parts that are not of one run are refused, naming them.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <random>

#include <fmt/format.h>

#include "support/helpers.h"

namespace perfgate::testing {
namespace {

namespace fs = std::filesystem;

std::string quoted_paths(const std::vector<std::string>& paths) {
  std::string out;
  for (const std::string& p : paths) out += fmt::format(" '{}'", p);
  return out;
}

// The one-process JSON report of `input` with `options`.
std::string whole_report(const std::string& input, const std::string& dir, const std::string& options) {
  std::string json = dir + "/whole.json";
  CommandResult r = run_perfgate(
      fmt::format("analyze --verbose '{}' {} --fail-on never -q --json '{}'", input, options, json));
  EXPECT_EQ(r.exit_code, 0) << r.out;
  return read_text(json);
}

// `input` written as `parts` partial reports (slices 0..parts-1), run side by side.
std::vector<std::string> make_parts(const std::string& input, int parts, const std::string& dir,
                                    const std::string& options) {
  std::vector<std::string> args, files;
  for (int k = 0; k < parts; ++k) {
    files.push_back(fmt::format("{}/part-{}-of-{}.pgp", dir, k, parts));
    args.push_back(fmt::format("analyze --verbose '{}' {} --slice {}/{} --partial '{}' -q", input, options, k,
                               parts, files.back()));
  }
  for (const CommandResult& r : run_perfgate_all(args)) EXPECT_EQ(r.exit_code, 0) << r.out;
  return files;
}

std::string merged_report(const std::vector<std::string>& parts, const std::string& dir,
                          const std::string& options) {
  std::string json = dir + "/merged.json";
  CommandResult r = run_perfgate(
      fmt::format("merge{} {} --fail-on never -q --json '{}'", quoted_paths(parts), options, json));
  EXPECT_EQ(r.exit_code, 0) << r.out;
  return read_text(json);
}

// Splits `input` into 1, 2, 4 and 8 parts and merges each split forward, reversed and shuffled.
void expect_merges_equal_the_whole(const std::string& input, const std::string& analyze_options = "",
                                   const std::string& merge_options = "") {
  std::string dir = temp_dir();
  std::string whole = whole_report(input, dir, analyze_options);
  ASSERT_GT(whole.size(), 1000u);
  std::mt19937 shuffle(7);
  for (int parts : {1, 2, 4, 8}) {
    std::vector<std::string> files = make_parts(input, parts, dir, analyze_options);
    EXPECT_EQ(merged_report(files, dir, merge_options), whole) << input << ": " << parts << " parts, forward";
    std::reverse(files.begin(), files.end());
    EXPECT_EQ(merged_report(files, dir, merge_options), whole)
        << input << ": " << parts << " parts, reversed";
    std::shuffle(files.begin(), files.end(), shuffle);
    EXPECT_EQ(merged_report(files, dir, merge_options), whole)
        << input << ": " << parts << " parts, shuffled";
  }
}

// A 32-rank run from the shared sampled ranks: each file a copy of rank 0 or 1 that states rank r
// of 32.
std::string thirty_two_ranks(const std::string& shared) {
  std::string dir = temp_dir() + "/ranks32";
  fs::create_directories(dir);
  std::string ranks[2] = {read_gzip(shared + "/distributed_128ranks_sampled/rank-0.json.gz"),
                          read_gzip(shared + "/distributed_128ranks_sampled/rank-1.json.gz")};
  for (int r = 0; r < 32; ++r) {
    std::string text = ranks[r % 2];
    std::string from = fmt::format("\"rank\": {}, \"world_size\": 128", r % 2);
    std::size_t at = text.find(from);
    EXPECT_NE(at, std::string::npos);
    text.replace(at, from.size(), fmt::format("\"rank\": {}, \"world_size\": 32", r));
    write_text(fmt::format("{}/rank-{}.json", dir, r), text);
  }
  return dir;
}

// 12 hand-made ranks of different speeds, so that --detailed-workers 3 keeps a few whole and the
// parts' candidates matter: mean steps 500 + 37 x (5r mod 12) us.
std::string twelve_ranks() {
  return write_paced_ranks(
      temp_dir() + "/ranks12", 12, [](int rank) { return 500.0 + 37 * ((rank * 5) % 12); }, 2000);
}

TEST(MergeCli, HandMadeRanksMergeToTheWholeReport) {
  std::string dir = twelve_ranks();
  expect_merges_equal_the_whole(dir, "--detailed-workers 3");
  expect_merges_equal_the_whole(dir, "--detailed-workers 0");
}

// Collectives matched across ranks (the late-rank run): parts carry their matching so far, and the
// merge matches exactly as one process, straggler and ties included (ranks 0-2 start together).
TEST(MergeCli, MatchedCollectivesMergeToTheWholeReport) {
  std::string dir = write_late_rank_run(temp_dir() + "/late");
  expect_merges_equal_the_whole(dir);
  expect_merges_equal_the_whole(dir, "--detailed-workers 1");
}

TEST(MergeCli, TheExampleAsOnePartIsTheWholeReport) {
  std::string example = std::string(PERFGATE_SOURCE_DIR) + "/examples/small_training.pt.trace.json.gz";
  std::string dir = temp_dir();
  std::string whole = whole_report(example, dir, "");
  EXPECT_EQ(merged_report(make_parts(example, 1, dir, ""), dir, ""), whole);
}

TEST(MergeCli, SharedRunFoldersMergeToTheWholeReport) {
  std::string shared = shared_traces_dir();
  if (shared.empty()) GTEST_SKIP() << "../shared/traces not found";
  // 2 of 128 ranks: the merge must be told that ranks are missing; the report says which are present.
  expect_merges_equal_the_whole(shared + "/distributed_128ranks_sampled", "", "--allow-missing-ranks");
  std::string ranks32 = thirty_two_ranks(shared);
  expect_merges_equal_the_whole(ranks32, "--detailed-workers 3");
  expect_merges_equal_the_whole(ranks32);
  // A baseline gate and every report format read the merged run as they read the whole one.
  std::string dir = temp_dir();
  std::string base = dir + "/base.json";
  ASSERT_EQ(run_perfgate(fmt::format("analyze --verbose '{}' -q --fail-on never --json '{}'", ranks32, base))
                .exit_code,
            0);
  std::vector<std::string> parts = make_parts(ranks32, 4, dir, "");
  CommandResult whole =
      run_perfgate(fmt::format("analyze --verbose '{0}' --baseline '{1}' --fail-on never --no-color --md "
                               "'{2}/w.md' --junit '{2}/w.xml'",
                               ranks32, base, dir));
  CommandResult merged = run_perfgate(fmt::format(
      "merge{0} --verbose --baseline '{1}' --fail-on never --no-color --md '{2}/m.md' --junit '{2}/m.xml'",
      quoted_paths(parts), base, dir));
  EXPECT_EQ(merged.exit_code, whole.exit_code) << merged.out;
  EXPECT_EQ(merged.out, whole.out);  // the terminal summary
  EXPECT_EQ(read_text(dir + "/m.md"), read_text(dir + "/w.md"));
  EXPECT_EQ(read_text(dir + "/m.xml"), read_text(dir + "/w.xml"));
}

TEST(MergeCli, APartialFolderStandsForItsParts) {
  std::string ranks = twelve_ranks();
  std::string dir = temp_dir();
  std::string whole = whole_report(ranks, dir, "");
  fs::create_directories(dir + "/parts");
  make_parts(ranks, 3, dir + "/parts", "");
  EXPECT_EQ(merged_report({dir + "/parts"}, dir, ""), whole);
}

// Node-local parts (docs/formats.md, "Partial reports"): each machine writes a part of the ranks it
// holds, without --slice; such a part is a slice of its own inputs, so the merge checks the inputs
// (none twice) and the world size, not a slice count. Sliced parts beside them keep their checks.
TEST(MergeCli, NodeLocalPartsMergeAsOneProcess) {
  std::string ranks = twelve_ranks();
  std::string dir = temp_dir();
  std::string whole = whole_report(ranks, dir, "");
  auto files = [&](int from, int to) {
    std::string out;
    for (int r = from; r < to; ++r) out += fmt::format(" '{}/rank-{}.json'", ranks, r);
    return out;
  };
  std::string a = dir + "/a.pgp", b = dir + "/b.pgp", c = dir + "/c.pgp", s0 = dir + "/s0.pgp",
              s1 = dir + "/s1.pgp";
  for (const auto& [inputs, part] : {std::pair{files(0, 5), a}, {files(5, 12), b}, {files(6, 9), c}})
    ASSERT_EQ(run_perfgate(fmt::format("analyze{} --partial '{}' -q", inputs, part)).exit_code, 0) << part;
  EXPECT_EQ(merged_report({a, b}, dir, ""), whole);
  EXPECT_EQ(merged_report({b, a}, dir, ""), whole);
  // A slice of the first machine's files (0-5 in two slices) beside the other machines' whole parts.
  ASSERT_EQ(run_perfgate(fmt::format("analyze{} --slice 1/2 --partial '{}' -q", files(0, 6), s1)).exit_code,
            0);
  ASSERT_EQ(run_perfgate(fmt::format("analyze{} --slice 0/2 --partial '{}' -q", files(0, 6), s0)).exit_code,
            0);
  ASSERT_EQ(run_perfgate(fmt::format("analyze{} --partial '{}' -q", files(9, 12), b)).exit_code, 0);
  EXPECT_EQ(merged_report({s0, c, s1, b}, dir, ""), whole);
  // The same part twice is the same inputs twice, named; a sliced part alone still lacks its slice.
  CommandResult twice = run_perfgate(fmt::format("merge --verbose '{}' '{}' --json '{}/t.json'", a, a, dir));
  EXPECT_EQ(twice.exit_code, 4) << twice.out;
  EXPECT_NE(twice.out.find("rank-0.json twice"), std::string::npos) << twice.out;
  CommandResult lacking =
      run_perfgate(fmt::format("merge --verbose '{}' '{}' --json '{}/t.json'", s0, c, dir));
  EXPECT_EQ(lacking.exit_code, 4) << lacking.out;
  EXPECT_NE(lacking.out.find("1 of 2 slices present"), std::string::npos) << lacking.out;
}

class MergeRefusals : public ::testing::Test {
 protected:
  void SetUp() override {
    ranks = twelve_ranks();
    dir = temp_dir();
    parts = make_parts(ranks, 3, dir, "");
  }
  CommandResult merge(const std::string& args) {
    return run_perfgate(fmt::format("merge --verbose {} --json '{}/out.json'", args, dir));
  }
  void expect_refused(const CommandResult& r, int code, const std::vector<std::string>& said) {
    EXPECT_EQ(r.exit_code, code) << r.out;
    for (const std::string& s : said) EXPECT_NE(r.out.find(s), std::string::npos) << s << " in: " << r.out;
    EXPECT_FALSE(fs::exists(dir + "/out.json")) << "nothing is written";
  }
  std::string ranks, dir;
  std::vector<std::string> parts;
};

TEST_F(MergeRefusals, PartsMadeWithOtherRules) {
  std::string other = dir + "/other-rules.pgp";
  ASSERT_EQ(run_perfgate(
                fmt::format(
                    "analyze --verbose '{}' --slice 0/3 --set gpu.low-utilization.warn=40 --partial '{}' -q",
                    ranks, other))
                .exit_code,
            0);
  expect_refused(merge(quoted_paths({other, parts[1], parts[2]})), 4, {other, "other rules"});
  // The merge's own rules must be the parts': the same --set lets them through.
  expect_refused(merge(quoted_paths(parts) + " --set gpu.low-utilization.warn=40"), 4,
                 {parts[0], "other rules"});
}

TEST_F(MergeRefusals, PartsWithOtherWindowOptions) {
  std::string other = dir + "/skip.pgp";
  ASSERT_EQ(run_perfgate(fmt::format("analyze --verbose '{}' --slice 0/3 --skip-first 1 --partial '{}' -q",
                                     ranks, other))
                .exit_code,
            0);
  expect_refused(merge(quoted_paths({parts[1], other, parts[2]})), 4, {other, "window options"});
}

TEST_F(MergeRefusals, TheSamePartOrRankTwice) {
  expect_refused(merge(quoted_paths({parts[0], parts[1], parts[2], parts[1]})), 4, {parts[1], "twice"});
  std::string copy = dir + "/copy.pgp";
  fs::copy_file(parts[0], copy);
  expect_refused(merge(quoted_paths({parts[0], copy})), 4, {copy, "twice", "also in " + parts[0]});
}

TEST_F(MergeRefusals, MissingRanksAreAnErrorUnlessAllowed) {
  std::string shared = shared_traces_dir();
  if (shared.empty()) GTEST_SKIP() << "../shared/traces not found";
  std::string ranks32 = thirty_two_ranks(shared);
  std::vector<std::string> four = make_parts(ranks32, 4, dir, "");
  four.erase(four.begin() + 2);  // ranks 16-23
  expect_refused(merge(quoted_paths(four)), 4,
                 {"8 of 32 ranks are missing", "ranks 16-23", "--allow-missing-ranks"});
  CommandResult allowed = merge(quoted_paths(four) + " --allow-missing-ranks --fail-on never");
  EXPECT_EQ(allowed.exit_code, 0) << allowed.out;
  EXPECT_NE(allowed.out.find("24 of 32 ranks present"), std::string::npos) << allowed.out;
  EXPECT_NE(read_text(dir + "/out.json").find("24 of 32 ranks present"), std::string::npos);
}

TEST_F(MergeRefusals, CorruptTruncatedOrForeignFiles) {
  std::string bytes = read_text(parts[0]);
  std::string truncated = write_text(dir + "/truncated.pgp", bytes.substr(0, bytes.size() - 10));
  expect_refused(merge(quoted_paths({truncated})), 3, {truncated, "truncated"});
  std::string flipped = bytes;
  flipped[flipped.size() - 20] ^= 0x40;
  std::string corrupt = write_text(dir + "/corrupt.pgp", flipped);
  expect_refused(merge(quoted_paths({corrupt})), 3, {corrupt, "corrupt"});
  std::string header_cut = write_text(dir + "/header.pgp", bytes.substr(0, 30));
  expect_refused(merge(quoted_paths({header_cut})), 3, {header_cut, "truncated in its header"});
  std::string other_version = bytes;
  other_version.replace(other_version.find("\"perfgate\":\""), 12, "\"perfgate\":\"9");
  std::string old = write_text(dir + "/old.pgp", other_version);
  expect_refused(merge(quoted_paths({old})), 3, {old, "written by perfgate 9"});
  // A trace is not a partial report, and a partial report is not a trace.
  std::string example = std::string(PERFGATE_SOURCE_DIR) + "/examples/small_training.pt.trace.json.gz";
  expect_refused(merge(quoted_paths({example})), 3, {example, "not a perfgate partial report"});
  CommandResult analyzed =
      run_perfgate(fmt::format("analyze --verbose '{}' --json '{}/out.json'", parts[0], dir));
  expect_refused(analyzed, 3, {parts[0], "perfgate merge"});
}

TEST(PartialCli, PartialOptionsAreCheckedBeforeAnyWork) {
  std::string dir = temp_dir();
  std::string example = std::string(PERFGATE_SOURCE_DIR) + "/examples/small_training.pt.trace.json.gz";
  for (const char* slice : {"3/3", "1", "a/2", "0/0", "-1/2"}) {
    CommandResult r = run_perfgate(
        fmt::format("analyze --verbose '{}' --partial '{}/p.pgp' --slice '{}'", example, dir, slice));
    EXPECT_EQ(r.exit_code, 2) << slice << ": " << r.out;
    EXPECT_NE(r.out.find("--slice"), std::string::npos) << r.out;
  }
  CommandResult no_partial = run_perfgate(fmt::format("analyze --verbose '{}' --slice 0/2", example));
  EXPECT_EQ(no_partial.exit_code, 2) << no_partial.out;
  CommandResult with_report = run_perfgate(
      fmt::format("analyze --verbose '{}' --partial '{}/p.pgp' --json '{}/r.json'", example, dir, dir));
  EXPECT_EQ(with_report.exit_code, 2) << with_report.out;
  EXPECT_NE(with_report.out.find("perfgate merge"), std::string::npos) << with_report.out;
  EXPECT_FALSE(fs::exists(dir + "/p.pgp"));
}

}  // namespace
}  // namespace perfgate::testing
