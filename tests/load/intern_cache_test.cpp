#include <gtest/gtest.h>

#include <string>

#include "load/kineto/event_builder.h"

namespace perfgate::kineto {
namespace {

TEST(InternCache, GivesThePoolsIdsInThePoolsOrder) {
  StringPool through_cache, direct;
  InternCache cache;
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

TEST(InternCache, InvalidUtf8MapsToItsRepairedText) {
  StringPool pool;
  InternCache cache;
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
