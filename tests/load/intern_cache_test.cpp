#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "load/kineto/event_builder.h"

namespace perfgate::kineto {
namespace {

template <typename Cache>
class InternCacheTest : public ::testing::Test {};
using Caches = ::testing::Types<InternCache<1>, InternCache<4>>;
TYPED_TEST_SUITE(InternCacheTest, Caches);

TYPED_TEST(InternCacheTest, GivesThePoolsIdsInThePoolsOrder) {
  StringPool through_cache, direct;
  TypeParam cache;
  // "aXbYcZdWe" and "aQbRcSdTe" share the length and the bytes the slot is hashed from (the first,
  // the last, and those at a quarter, a half and three quarters): one slot.
  for (const char* text :
       {"aXbYcZdWe", "aQbRcSdTe", "aXbYcZdWe", "", "aten::mm", "aQbRcSdTe", "aten::mm", "aXbYcZdWe"}) {
    StringId id = cache.intern(through_cache, text);
    EXPECT_EQ(id, direct.intern(text)) << text;
    EXPECT_EQ(through_cache.view(id), text);
  }
  EXPECT_EQ(through_cache.size(), direct.size());
}

// Six texts of one set, more than it holds, given in turns and out of turn: each time the id the
// pool gives, whichever entries the set has kept or let go.
TYPED_TEST(InternCacheTest, TextsOfOneSetBeyondItsWaysKeepThePoolsIds) {
  StringPool through_cache, direct;
  TypeParam cache;
  std::vector<std::string> texts;
  for (char c : std::string("QRSTUV")) texts.push_back(std::string("aXb") + c + "cZdWe");
  for (int round = 0; round < 3; ++round)
    for (std::size_t i = 0; i < texts.size(); ++i) {
      const std::string& text = texts[(i * (round + 1)) % texts.size()];
      StringId id = cache.intern(through_cache, text);
      EXPECT_EQ(id, direct.intern(text)) << text;
      EXPECT_EQ(through_cache.view(id), text);
    }
  EXPECT_EQ(through_cache.size(), direct.size());
}

// Issue 78: a tiny trace's cache is a sixteenth of the table (no 24 KiB zeroed per cache and
// trace); it takes the full size once it has missed as many texts as it holds, and the ids stay the
// pool's across the change.
TYPED_TEST(InternCacheTest, StartsSmallAndGrowsOnceItHasMissedAsManyTextsAsItHolds) {
  StringPool through_cache, direct;
  TypeParam cache;
  EXPECT_EQ(cache.sets(), TypeParam::kFirstSets);
  std::vector<std::string> texts;
  for (std::size_t i = 0; i < 4 * TypeParam::kSets; ++i) texts.push_back("op" + std::to_string(i));
  std::size_t entries = TypeParam::kFirstSets * TypeParam::kWays;
  for (std::size_t i = 0; i < entries; ++i) cache.intern(through_cache, texts[i]);
  EXPECT_EQ(cache.sets(), TypeParam::kFirstSets) << "as many misses as entries: still small";
  for (int round = 0; round < 2; ++round)
    for (const std::string& text : texts) {
      StringId id = cache.intern(through_cache, text);
      EXPECT_EQ(id, direct.intern(text)) << text;
    }
  EXPECT_EQ(cache.sets(), TypeParam::kSets);
  EXPECT_EQ(through_cache.size(), direct.size());
}

TYPED_TEST(InternCacheTest, InvalidUtf8MapsToItsRepairedText) {
  StringPool pool;
  TypeParam cache;
  StringId bad = cache.intern(pool, "k\xff");
  EXPECT_EQ(pool.view(bad), "k\xEF\xBF\xBD");
  EXPECT_EQ(cache.intern(pool, "k\xff"), bad);
  EXPECT_EQ(cache.intern(pool, "k\xEF\xBF\xBD"), bad);
  // Each time an invalid text is given it is counted (the cache holds the repaired text, so the
  // invalid one is checked again); a valid one, or the repaired text itself, is not.
  EXPECT_EQ(cache.invalid(), 2u);
  cache.intern(pool, "k");
  cache.intern(pool, "k");
  EXPECT_EQ(cache.invalid(), 2u);
}

}  // namespace
}  // namespace perfgate::kineto
