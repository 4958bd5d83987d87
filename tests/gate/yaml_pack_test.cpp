#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "gate/rules.h"
#include "rule_files/rule_files.h"
#include "rule_files/yaml_pack.h"

namespace perfgate {
namespace {

// Whether two trees are the same: kinds, tags, scalar texts, and children in order.
::testing::AssertionResult same_tree(const YAML::Node& a, const YAML::Node& b, const std::string& at = "/") {
  if (a.Type() != b.Type()) return ::testing::AssertionFailure() << at << ": kinds differ";
  if (a.Tag() != b.Tag())
    return ::testing::AssertionFailure() << at << ": tags '" << a.Tag() << "', '" << b.Tag() << "'";
  if (a.IsScalar() && a.Scalar() != b.Scalar())
    return ::testing::AssertionFailure() << at << ": '" << a.Scalar() << "' vs '" << b.Scalar() << "'";
  if (a.size() != b.size()) return ::testing::AssertionFailure() << at << ": sizes differ";
  auto ia = a.begin();
  auto ib = b.begin();
  for (std::size_t i = 0; ia != a.end(); ++ia, ++ib, ++i) {
    std::string child = at + std::to_string(i) + "/";
    if (a.IsMap()) {
      if (auto r = same_tree(ia->first, ib->first, child + "key"); !r) return r;
      if (auto r = same_tree(ia->second, ib->second, child); !r) return r;
    } else if (auto r = same_tree(*ia, *ib, child); !r) {
      return r;
    }
  }
  return ::testing::AssertionSuccess();
}

// What a run reads for a shipped file is the tree yaml-cpp parses from its text, node for node.
TEST(PackedRules, EveryShippedFileIsPackedAsItsParsedTree) {
  ASSERT_FALSE(shipped_rule_names().empty());
  for (const std::string& name : shipped_rule_names()) {
    std::string_view packed = packed_shipped_rules(name);
    ASSERT_FALSE(packed.empty()) << name << " has no packed tree";
    YAML::Node parsed = YAML::Load(std::string(shipped_rule_text(name)));
    ASSERT_TRUE(parsed.IsMap());
    EXPECT_TRUE(same_tree(unpack_yaml(packed), parsed)) << name;
  }
  EXPECT_TRUE(packed_shipped_rules("no-such-set").empty());
}

TEST(PackedRules, KeepsNullsTagsQuotesEmptyTextAndRepeatedKeys) {
  const std::string yaml =
      "a: ~\n"
      "b: ''\n"
      "c: \"quoted: 1\"\n"
      "d: !custom 12\n"
      "e: [1, [2, {x: y}], null]\n"
      "f: {}\n"
      "g: []\n"
      "h: |\n  two\n  lines\n"
      "\"key with: colon\": \"\\u00e9t\\u00e9 \\t\"\n"
      "a: again\n";
  YAML::Node parsed = YAML::Load(yaml);
  std::string packed = pack_yaml(parsed);
  YAML::Node unpacked = unpack_yaml(packed);
  EXPECT_TRUE(same_tree(unpacked, parsed));
  EXPECT_EQ(unpacked.size(), 10u);  // both "a" entries, for the duplicate-key check
  EXPECT_TRUE(unpacked["a"].IsNull());
  EXPECT_EQ(unpacked["c"].as<std::string>(), "quoted: 1");
  EXPECT_EQ(unpacked["c"].Tag(), "!");
  EXPECT_EQ(unpacked["d"].Tag(), "!custom");
  EXPECT_EQ(unpacked["e"][1][1]["x"].as<std::string>(), "y");
  EXPECT_EQ(unpacked["h"].as<std::string>(), "two\nlines\n");
}

// The comparison above can fail: a changed scalar, tag or order is seen.
TEST(PackedRules, TheTreeComparisonSeesADifference) {
  YAML::Node a = YAML::Load("{x: [1, 2], y: z}");
  EXPECT_FALSE(same_tree(a, YAML::Load("{x: [1, 3], y: z}")));
  EXPECT_FALSE(same_tree(a, YAML::Load("{y: z, x: [1, 2]}")));
  EXPECT_FALSE(same_tree(a, YAML::Load("{x: [1, 2], y: 'z'}")));
  EXPECT_FALSE(same_tree(a, YAML::Load("{x: [1, 2], y: z, w: ~}")));
}

TEST(PackedRules, AMalformedFormIsRefused) {
  std::string packed = pack_yaml(YAML::Load("{x: [1, 2]}"));
  EXPECT_THROW(unpack_yaml(packed.substr(0, packed.size() - 1)), std::runtime_error);
  EXPECT_THROW(unpack_yaml(packed + "~0:"), std::runtime_error);
  EXPECT_THROW(unpack_yaml("?0:"), std::runtime_error);
  EXPECT_THROW(unpack_yaml("=0:x:"), std::runtime_error);
}

}  // namespace
}  // namespace perfgate
