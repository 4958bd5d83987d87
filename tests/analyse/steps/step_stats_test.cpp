#include <gtest/gtest.h>

#include "analyse/steps/step_stats.h"

namespace perfgate {
namespace {

TEST(StepStats, SummarizesWithSampleStddevAndInterpolatedPercentiles) {
  auto s = summarize({400, 100, 300, 200});
  ASSERT_TRUE(s);
  EXPECT_EQ(s->count, 4u);
  EXPECT_DOUBLE_EQ(s->mean, 250);
  EXPECT_DOUBLE_EQ(s->median, 250);
  ASSERT_TRUE(s->stddev);
  EXPECT_NEAR(*s->stddev, 129.09944487, 1e-6);  // sqrt(50000 / 3)
  EXPECT_DOUBLE_EQ(s->min, 100);
  EXPECT_DOUBLE_EQ(s->max, 400);
  EXPECT_DOUBLE_EQ(s->p90, 370);  // rank 2.7 between 300 and 400
}

TEST(StepStats, OneValueHasNoStddevAndNoneHasNoSummary) {
  auto s = summarize({42});
  ASSERT_TRUE(s);
  EXPECT_FALSE(s->stddev);
  EXPECT_DOUBLE_EQ(s->p90, 42);
  EXPECT_FALSE(summarize({}));
}

}  // namespace
}  // namespace perfgate
