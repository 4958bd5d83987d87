// A partial report carries its ranks' collectives matched so far, compactly, and refuses counts
// that do not fit them.
#include <gtest/gtest.h>

#include "common/errors.h"
#include "report/partial.h"
#include "support/helpers.h"

namespace perfgate::testing {
namespace {

PartialReport partial_of_late_rank_run(std::string& bytes) {
  std::string dir = write_late_rank_run(temp_dir() + "/late");
  std::string part = temp_dir() + "/late.pgp";
  CommandResult r = run_perfgate("analyze '" + dir + "' -q --partial '" + part + "'");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  bytes = read_text(part);
  return decode_partial(bytes, part, 0);
}

// The late-rank run (write_late_rank_run): 6 collectives, each timed on the 4 ranks; each rank's 6
// calls are 6 runs of one (one per type).
TEST(PartialCollectives, APartCarriesItsMatchedCollectives) {
  std::string bytes;
  PartialReport p = partial_of_late_rank_run(bytes);
  ASSERT_EQ(p.run.collectives.collectives.size(), 6u);
  for (const MatchedCollective& c : p.run.collectives.collectives) {
    EXPECT_EQ(c.timed, 4u);
    EXPECT_EQ(c.shortest, 100'000);
    EXPECT_EQ(c.latest.input, 3u);  // rank-3.json
  }
  ASSERT_EQ(p.run.collectives.ranks.size(), 4u);
  for (const RankCollectiveSums& r : p.run.collectives.ranks) {
    EXPECT_EQ(r.calls, 6u);
    EXPECT_EQ(r.spans.size(), 6u);
  }
  // The workers let their own call lists go once folded.
  for (const PositionedWorker& w : p.run.workers) EXPECT_TRUE(w.worker.collective_calls.calls.empty());
}

TEST(PartialCollectives, CountsBeyondThePartAreCorrupt) {
  std::string bytes;
  PartialReport p = partial_of_late_rank_run(bytes);
  PartialReport corrupt = p;
  corrupt.run.collectives.ranks[0].spans[0].count = 4'000'000'000u;  // would walk 4e9 indices
  EXPECT_THROW(decode_partial(encode_partial(corrupt), "corrupt.pgp", 0), InputError);
  corrupt = p;
  corrupt.run.collectives.collectives[0].latest.input = 9;  // no such input
  EXPECT_THROW(decode_partial(encode_partial(corrupt), "corrupt.pgp", 0), InputError);
  EXPECT_NO_THROW(decode_partial(encode_partial(p), "whole.pgp", 0));
}

}  // namespace
}  // namespace perfgate::testing
