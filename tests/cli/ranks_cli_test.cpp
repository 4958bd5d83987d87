// Issue #44, defect 4: one rule for ranks (docs/formats.md, "Ranks"). A rank that two workers state
// gets the same warning from analyze and from merge, across Kineto and Neuron inputs, and the
// merged report is the one-process report; ranks missing below the highest are found for Neuron
// profile_rank_<i> folders, which state no world size.
#include <gtest/gtest.h>

#include <filesystem>

#include <fmt/format.h>
#include <boost/json/parse.hpp>

#include "neuron/neuron_fixture.h"
#include "support/helpers.h"
#include "support/trace_builder.h"

namespace perfgate::testing {
namespace {

namespace fs = std::filesystem;

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

// analyze of `folder` and merge of its two slices: both reports, which must be equal.
std::pair<std::string, std::string> analysed_and_merged(const std::string& folder) {
  std::string dir = temp_dir();
  CommandResult whole =
      run_perfgate(fmt::format("analyze '{}' --fail-on never -q --json '{}/whole.json'", folder, dir));
  EXPECT_EQ(whole.exit_code, 0) << whole.out;
  std::vector<std::string> parts;
  for (int k = 0; k < 2; ++k) {
    parts.push_back(fmt::format("{}/part-{}.pgp", dir, k));
    CommandResult r =
        run_perfgate(fmt::format("analyze '{}' --slice {}/2 --partial '{}' -q", folder, k, parts.back()));
    EXPECT_EQ(r.exit_code, 0) << r.out;
  }
  CommandResult merged = run_perfgate(
      fmt::format("merge '{}' '{}' --fail-on never -q --json '{}/merged.json'", parts[0], parts[1], dir));
  EXPECT_EQ(merged.exit_code, 0) << merged.out;
  return {read_text(dir + "/whole.json"), read_text(dir + "/merged.json")};
}

TEST(Ranks, ACopiedKinetoRankIsTheSameWarningInAnalyzeAndMerge) {
  std::string folder = write_late_rank_run(temp_dir() + "/run");
  fs::copy_file(folder + "/rank-0.json", folder + "/rank-0b.json");
  auto [whole, merged] = analysed_and_merged(folder);
  EXPECT_TRUE(contains(whole, "More than one worker states the same rank: rank 0 (rank-0")) << whole;
  EXPECT_EQ(whole, merged);
}

TEST(Ranks, AKinetoAndANeuronProfileOfOneRankAreTheSameRankTwice) {
  std::string folder = temp_dir() + "/mixed";
  fs::create_directories(folder);
  write_text(folder + "/profile_rank_1.json", neuron_full_json());
  write_text(folder + "/profile_rank_01.json", neuron_full_json());
  std::string kineto = write_late_rank_run(temp_dir() + "/late");
  fs::copy_file(kineto + "/rank-1.json", folder + "/rank-1.json");  // states rank 1 of 4
  CommandResult r =
      run_perfgate(fmt::format("analyze '{}' --fail-on never --json '{}/r.json'", folder, folder));
  EXPECT_EQ(r.exit_code, 0) << r.out;
  std::string report = read_text(folder + "/r.json");
  EXPECT_TRUE(contains(report, "states the same rank: rank 1 (")) << report;
  for (const char* worker : {"profile_rank_1", "profile_rank_01", "rank-1"})
    EXPECT_TRUE(contains(report.substr(report.find("states the same rank")).substr(0, 300), worker))
        << report;
}

TEST(Ranks, MissingNeuronRanksAreReported) {
  std::string folder = temp_dir() + "/neuron";
  fs::create_directories(folder);
  for (int rank : {0, 1, 3})
    write_text(fmt::format("{}/profile_rank_{}.json", folder, rank), neuron_full_json());
  auto [whole, merged] = analysed_and_merged(folder);
  EXPECT_TRUE(contains(whole, "3 of 4 ranks present (rank 2 missing)")) << whole;
  // The metrics count it too: 3 present of the 4 expected (no world size is stated).
  EXPECT_TRUE(contains(whole, "\"ranks.present\": 3")) << whole;
  EXPECT_TRUE(contains(whole, "\"ranks.expected\": 4")) << whole;
  EXPECT_EQ(whole, merged);
  // The parts carry each profile's device family: the merged report states it as analyze does.
  boost::json::object report = boost::json::parse(merged).as_object();
  ASSERT_EQ(report.at("families").as_array().size(), 1u);
  EXPECT_EQ(report.at("families").as_array()[0].as_string(), "neuron");
  ASSERT_EQ(report.at("workers").as_array().size(), 3u);
  for (const auto& w : report.at("workers").as_array())
    EXPECT_EQ(w.at("system").at("family").as_string(), "neuron");
}

// Issue 43: the job's critical path runs through collectives of ranks in both parts; the merge
// of the parts states it as one process does (tests/analyse/critical_path/job_critical_path_test.cpp has the
// numbers).
TEST(Ranks, TheJobCriticalPathOfAMergeIsTheOneProcessOne) {
  std::string folder = write_late_rank_run(temp_dir() + "/late", 2);
  auto [whole, merged] = analysed_and_merged(folder);
  EXPECT_TRUE(contains(whole, "\"critical_path.job_bounding_rank\": 2")) << whole;
  EXPECT_TRUE(contains(whole, "\"job_critical_path_ranks\"")) << whole;
  EXPECT_EQ(whole, merged);
}

// A merge of 1 of 2 Neuron parts: no world size is stated, but the part says it is slice 0 of 2.
TEST(Ranks, AMergeWithoutEverySliceIsRefusedOrSaysSo) {
  std::string folder = temp_dir() + "/neuron";
  fs::create_directories(folder);
  for (int rank : {0, 1})
    write_text(fmt::format("{}/profile_rank_{}.json", folder, rank), neuron_full_json());
  std::string dir = temp_dir(), part = dir + "/part-0.pgp";
  ASSERT_EQ(run_perfgate(fmt::format("analyze '{}' --slice 0/2 --partial '{}' -q", folder, part)).exit_code,
            0);
  CommandResult refused = run_perfgate(fmt::format("merge '{}' --json '{}/r.json'", part, dir));
  EXPECT_EQ(refused.exit_code, 4) << refused.out;
  EXPECT_TRUE(contains(refused.out, "1 of 2 slices present (slice 1 missing)")) << refused.out;
  EXPECT_FALSE(fs::exists(dir + "/r.json"));
  CommandResult allowed = run_perfgate(
      fmt::format("merge '{}' --allow-missing-ranks --fail-on never -q --json '{}/r.json'", part, dir));
  EXPECT_EQ(allowed.exit_code, 0) << allowed.out;
  EXPECT_TRUE(contains(read_text(dir + "/r.json"), "1 of 2 slices present (slice 1 missing)"));
}

// Item 9: a world size of 2^62 is refused as implausible (the issue's report listed "1000001 of
// 4611686018427387904 ranks are missing"), naming the file.
TEST(Ranks, AnImplausibleWorldSizeIsRefused) {
  std::string folder = write_late_rank_run(temp_dir() + "/run");
  std::string trace = read_text(folder + "/rank-1.json");
  const std::string key = "\"world_size\": 4";
  ASSERT_NE(trace.find(key), std::string::npos);
  trace.replace(trace.find(key), key.size(), "\"world_size\": 4611686018427387904");
  write_text(folder + "/rank-1.json", trace);
  CommandResult r = run_perfgate(fmt::format("analyze '{}' -q", folder));
  EXPECT_EQ(r.exit_code, 3) << r.out;
  EXPECT_TRUE(contains(r.out, folder + "/rank-1.json: 'distributedInfo' states an implausible world size"))
      << r.out;
}

// Issue 55, item 12: -q hid the warning that a rank appears twice, though the run's metrics count
// it twice; run-integrity warnings go to stderr under -q.
TEST(Ranks, QuietKeepsIntegrityWarnings) {
  std::string folder = write_late_rank_run(temp_dir() + "/run");
  fs::copy_file(folder + "/rank-0.json", folder + "/rank-0b.json");
  CommandResult r = run_perfgate(fmt::format("analyze '{}' -q --fail-on never", folder));
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_TRUE(contains(r.out, "perfgate: warning: More than one worker states the same rank: rank 0 (rank-0"))
      << r.out;
}

// `folder`'s rank-1.json with its distributedInfo's `key` value (4 or 1) replaced by `value`.
void restate(const std::string& folder, const std::string& key, const std::string& value) {
  std::string trace = read_text(folder + "/rank-1.json");
  std::size_t at = trace.find("\"" + key + "\": ");
  ASSERT_NE(at, std::string::npos) << key;
  std::size_t from = at + key.size() + 4, to = trace.find_first_of(",}", from);
  trace.replace(from, to - from, value);
  write_text(folder + "/rank-1.json", trace);
}

// Issue 55, item 9: a world size or rank that is not one is refused, naming the field and value:
// -1, 0, 1e300, 2^64 (null before, silently) and 2.5 (2) were accepted, "4" became null, and ranks
// 0 and 1000 of a world of 4 were "2 of 4 ranks present".
TEST(Ranks, ImplausibleWorldSizesAndRanksAreRefused) {
  for (const char* world : {"-1", "0", "1e300", "18446744073709551616", "2.5", "\"4\""}) {
    std::string folder = write_late_rank_run(temp_dir() + "/run");
    restate(folder, "world_size", world);
    CommandResult r = run_perfgate(fmt::format("analyze '{}' -q", folder));
    EXPECT_EQ(r.exit_code, 3) << world << ": " << r.out;
    EXPECT_TRUE(contains(r.out, folder + "/rank-1.json: 'distributedInfo' states world size ")) << r.out;
    EXPECT_TRUE(contains(r.out, "not a number of ranks (1 to 1048576)")) << r.out;
  }
  std::string folder = write_late_rank_run(temp_dir() + "/run");
  restate(folder, "rank", "1000");
  CommandResult r = run_perfgate(fmt::format("analyze '{}' -q", folder));
  EXPECT_EQ(r.exit_code, 3) << r.out;
  EXPECT_TRUE(contains(r.out, folder +
                                  "/rank-1.json: 'distributedInfo' states rank 1000: not a rank of its world "
                                  "size 4 (0 to 3)"))
      << r.out;
  restate(folder, "rank", "4.0");
  EXPECT_EQ(run_perfgate(fmt::format("analyze '{}' -q", folder)).exit_code, 3);
  restate(folder, "rank", "1.0");  // an integral number is a rank
  EXPECT_EQ(run_perfgate(fmt::format("analyze '{}' -q --fail-on never", folder)).exit_code, 0);
}

// Issue 55, item 9: the merge enumerated missing ranks up to 1,000,001 and printed the cut list as
// if whole: "1000001 of 1048576 ranks are missing (ranks 2-1000002)". Two ranks of 2^20: 2^20 - 2
// = 1,048,574 missing, ranks 2 to 1,048,575.
TEST(Ranks, MissingCountIsExactForAHugeWorld) {
  std::string folder = write_late_rank_run(temp_dir() + "/run");
  for (const char* file : {"rank-0.json", "rank-1.json"}) {
    std::string path = folder + "/" + file, trace = read_text(path);
    const std::string key = "\"world_size\": 4";
    ASSERT_NE(trace.find(key), std::string::npos);
    write_text(path, trace.replace(trace.find(key), key.size(), "\"world_size\": 1048576"));
  }
  std::string dir = temp_dir(), part = dir + "/a.pgp";
  ASSERT_EQ(run_perfgate(
                fmt::format("analyze '{0}/rank-0.json' '{0}/rank-1.json' --partial '{1}' -q", folder, part))
                .exit_code,
            0);
  CommandResult merged = run_perfgate(fmt::format("merge '{}' --json '{}/r.json'", part, dir));
  EXPECT_EQ(merged.exit_code, 4) << merged.out;
  EXPECT_TRUE(contains(merged.out,
                       "1048574 of 1048576 ranks are missing from the partial reports (ranks "
                       "2-1048575)"))
      << merged.out;
}

}  // namespace
}  // namespace perfgate::testing
