#include <gtest/gtest.h>

#include <algorithm>

#include "engine/default_rule_book.h"
#include "engine/rule_book.h"
#include "gate/rules.h"
#include "support/helpers.h"

namespace perfgate::testing {
namespace {

// Reads with the snapshot the program uses for the shipped default set, then without it again.
class RulesSnapshot : public ::testing::Test {
 protected:
  void TearDown() override { use_default_rule_book_snapshot({}); }
  static std::string read_with_snapshot(const std::vector<std::string>& files) {
    use_default_rule_book_snapshot(default_rule_book_snapshot());
    std::string bytes = encode_rule_book(load_rule_book(files));
    use_default_rule_book_snapshot({});
    return bytes;
  }
};

// The build's snapshot is the default file read as a run without it reads it: every field of the
// knowledge and of the rules.
TEST_F(RulesSnapshot, IsTheDefaultFileAsRead) {
  use_default_rule_book_snapshot({});
  RuleBook from_yaml = load_rule_book({});
  EXPECT_EQ(default_rule_book_snapshot(), encode_rule_book(from_yaml));
  ASSERT_FALSE(from_yaml.rules.rules.empty());
  std::optional<RuleBook> decoded = decode_rule_book(default_rule_book_snapshot());
  ASSERT_TRUE(decoded.has_value());
  EXPECT_EQ(decoded->rules.sources, std::vector<std::string>{"default"});
  ASSERT_EQ(decoded->rules.rules.size(), from_yaml.rules.rules.size());
  EXPECT_EQ(decoded->rules.rules.front().id, from_yaml.rules.rules.front().id);
  EXPECT_EQ(decoded->rules.rules.back().defined_at, from_yaml.rules.rules.back().defined_at);
  EXPECT_EQ(decoded->knowledge.aten_ops, from_yaml.knowledge.aten_ops);
  EXPECT_EQ(effective_rules_yaml(decoded->knowledge, decoded->rules),
            effective_rules_yaml(from_yaml.knowledge, from_yaml.rules));
}

// Files applied on top of the default set (a shipped one, a user's, overlays) give the same set
// from the snapshot as from the YAML; a file that extends nothing never reads the default set.
TEST_F(RulesSnapshot, FilesOnTopGiveTheSameSets) {
  std::string dir = temp_dir();
  std::string user = write_text(dir + "/user.yaml", R"(schema: perfgate-rules/1
rules:
  - id: gpu.low-utilization
    warn: 60
)");
  std::string overlay = write_text(dir + "/overlay.yaml", R"(schema: perfgate-rules/1
critical_path:
  max_kernel_gap_us: 900
)");
  std::string alone = write_text(dir + "/alone.yaml", R"(schema: perfgate-rules/1
extends: none
rules:
  - id: my.rule
    title: GPU utilization is low
    metric: gpu.min_utilization_pct
    better: higher
    warn: 50
)");
  for (const std::vector<std::string>& files : std::vector<std::vector<std::string>>{
           {}, {"tb-plugin"}, {"default"}, {user}, {user, overlay}, {"tb-plugin", overlay}, {alone}}) {
    use_default_rule_book_snapshot({});
    std::string from_yaml = encode_rule_book(load_rule_book(files));
    EXPECT_EQ(read_with_snapshot(files), from_yaml) << ::testing::PrintToString(files);
  }
  use_default_rule_book_snapshot(default_rule_book_snapshot());
  EXPECT_EQ(load_rule_book({alone}).rules.sources, std::vector<std::string>{alone});
  EXPECT_EQ(load_rule_book({user}).rules.sources, (std::vector<std::string>{"default", user}));
}

// Bytes that are not a whole encoded set are not used: the default file is read instead.
TEST_F(RulesSnapshot, BytesThatDoNotDecodeAreNotUsed) {
  std::string_view snapshot = default_rule_book_snapshot();
  std::string cut(snapshot.substr(0, snapshot.size() / 2));
  std::string longer = std::string(snapshot) + "x";
  EXPECT_FALSE(decode_rule_book(cut).has_value());
  EXPECT_FALSE(decode_rule_book(longer).has_value());
  EXPECT_FALSE(decode_rule_book("").has_value());
  use_default_rule_book_snapshot({});
  std::string from_yaml = encode_rule_book(load_rule_book({}));
  for (const std::string& bytes : {cut, longer}) {
    use_default_rule_book_snapshot(bytes);
    EXPECT_EQ(encode_rule_book(load_rule_book({})), from_yaml);
  }
}

// The program starts from the snapshot: what it prints as the rules in effect is the default file's.
TEST_F(RulesSnapshot, TheProgramPrintsTheDefaultFilesRules) {
  use_default_rule_book_snapshot({});
  CommandResult printed = run_perfgate("rules print");
  ASSERT_EQ(printed.exit_code, 0) << printed.out;
  RuleBook book = load_rule_book({});
  EXPECT_EQ(printed.out, effective_rules_yaml(book.knowledge, book.rules));
}

// A partial report's rules digest: the same rules give the same fingerprint wherever in their file
// each was written; a changed threshold, a changed knowledge entry or another file applied does not.
TEST_F(RulesSnapshot, TheFingerprintIsTheRulesContent) {
  std::string dir = temp_dir();
  const char* rule = R"(
rules:
  - id: gpu.low-utilization
    warn: 60
)";
  std::string a = write_text(dir + "/fingerprint.yaml", std::string("schema: perfgate-rules/1\n") + rule);
  RuleBook first = load_rule_book({a});
  std::string b = write_text(dir + "/fingerprint.yaml", std::string("schema: perfgate-rules/1\n\n\n") + rule);
  RuleBook moved = load_rule_book({b});
  auto rule_of = [](const RuleSet& set) {
    return *std::find_if(set.rules.begin(), set.rules.end(),
                         [](const Rule& r) { return r.id == "gpu.low-utilization"; });
  };
  EXPECT_NE(rule_of(first.rules).defined_at, rule_of(moved.rules).defined_at);
  EXPECT_EQ(rule_book_fingerprint(first), rule_book_fingerprint(moved));
  RuleBook other = load_rule_book({write_text(dir + "/fingerprint.yaml", R"(schema: perfgate-rules/1
rules:
  - id: gpu.low-utilization
    warn: 61
)")});
  EXPECT_NE(rule_book_fingerprint(first), rule_book_fingerprint(other));
  RuleBook gap = load_rule_book({write_text(dir + "/fingerprint.yaml", std::string(R"(schema: perfgate-rules/1
critical_path:
  max_kernel_gap_us: 900
)") + rule)});
  EXPECT_NE(rule_book_fingerprint(first), rule_book_fingerprint(gap));  // the knowledge is part of it
  EXPECT_NE(rule_book_fingerprint(first), rule_book_fingerprint(load_rule_book({})));
  EXPECT_NE(rule_book_fingerprint(load_rule_book({"tb-plugin"})), rule_book_fingerprint(load_rule_book({})));
}

}  // namespace
}  // namespace perfgate::testing
