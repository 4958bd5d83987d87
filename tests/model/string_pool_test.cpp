#include <gtest/gtest.h>

#include <set>
#include <string>

#include "model/profile.h"

namespace perfgate {
namespace {

TEST(StringPool, EqualTextEqualIdAndViewsStay) {
  StringPool pool;
  EXPECT_EQ(pool.intern(""), kNoString);
  std::string long_name(70'000, 'k');  // stored in a block of its own
  StringId a = pool.intern("aten::conv2d");
  StringId b = pool.intern(long_name);
  std::string_view a_view = pool.view(a);
  for (int i = 0; i < 20'000; ++i) pool.intern("name " + std::to_string(i));  // several chunks
  EXPECT_EQ(pool.intern(std::string("aten::") + "conv2d"), a);
  EXPECT_EQ(pool.intern(long_name), b);
  EXPECT_EQ(pool.view(a).data(), a_view.data());
  EXPECT_EQ(pool.view(b), long_name);
  EXPECT_EQ(pool.size(), 20'003u);
}

// A pool moved into another (the first piece's pool becomes the profile's) keeps its ids there; the
// pool moved from interns again, and one assigned a new pool (a piece's block, reset) starts at "".
TEST(StringPool, AMovedPoolKeepsItsIdsAndTheOneMovedFromInternsAgain) {
  StringPool first;
  StringId conv = first.intern("aten::conv2d");
  StringId relu = first.intern("aten::relu");
  StringPool moved(std::move(first));
  EXPECT_EQ(moved.intern("aten::relu"), relu);
  EXPECT_EQ(moved.intern("aten::conv2d"), conv);
  EXPECT_EQ(moved.view(conv), "aten::conv2d");
  StringId again = first.intern("aten::add");  // NOLINT(bugprone-use-after-move): defined, as documented
  EXPECT_EQ(first.view(again), "aten::add");
  EXPECT_EQ(first.intern("aten::add"), again);
  first = StringPool();
  EXPECT_EQ(first.intern(""), kNoString);
  EXPECT_EQ(first.intern("aten::mm"), 1u);
  EXPECT_EQ(first.size(), 2u);
}

// The hash reads 8 bytes at a time and the last bytes as one word that may overlap the previous
// one: texts that differ in one byte anywhere, or only in length, hash apart.
TEST(StringPool, TheHashSeesEveryByteAndTheLength) {
  TextHash hash;
  const std::string base = "void at::native::vectorized_elementwise_kernel<4, float>";
  std::set<std::size_t> hashes;
  std::size_t texts = 0;
  for (std::size_t length = 0; length <= base.size(); ++length) {
    std::string text = base.substr(0, length);
    hashes.insert(hash(text));
    ++texts;
    for (std::size_t at = 0; at < length; ++at) {
      std::string changed = text;
      changed[at] ^= 1;
      hashes.insert(hash(changed));
      ++texts;
    }
  }
  hashes.insert(hash(std::string_view("\0", 1)));
  hashes.insert(hash(std::string_view("\0\0", 2)));
  texts += 2;
  EXPECT_EQ(hashes.size(), texts);
  EXPECT_EQ(hash(base), hash(std::string(base)));
}

}  // namespace
}  // namespace perfgate
