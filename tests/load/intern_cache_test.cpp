#include <gtest/gtest.h>

#include <string>

#include "load/kineto/event_builder.h"

namespace perfgate::kineto {
namespace {

TEST(InternCache, GivesThePoolsIdsInThePoolsOrder) {
  StringPool through_cache, direct;
  InternCache cache;
  // "aXbYc" and "aZbWc" share the length and the first, middle and last bytes: one slot.
  for (const char* text : {"aXbYc", "aZbWc", "aXbYc", "", "aten::mm", "aZbWc", "aten::mm", "aXbYc"}) {
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
}

}  // namespace
}  // namespace perfgate::kineto
