// The shipped default rule set as bytes (binary_codec's encoding of the RuleSet): made once at
// build time by tools/snapshot_rules.cpp from the same loader, decoded by every run instead of
// rebuilding and reading the default file's YAML tree (30 M instructions on every run, 15% of the
// bundled example's analysis).
#include "gate/rule_snapshot.h"

#include "common/binary_codec.h"

namespace perfgate {
namespace {

// Set once by the program's main() before any rule is read; empty in the tests that do not set it,
// which then read the YAML (both ways give the same set: RulesSnapshot tests).
std::string_view default_snapshot;

}  // namespace

std::string encode_rule_set(const RuleSet& rules) {
  binary_codec::Writer writer;
  writer.put(rules);
  return std::move(writer.bytes());
}

std::optional<RuleSet> decode_rule_set(std::string_view bytes) {
  try {
    binary_codec::Reader reader(bytes);
    RuleSet rules;
    reader.get(rules);
    if (reader.done()) return rules;
  } catch (const binary_codec::DecodeError&) {
  }
  return std::nullopt;
}

std::string rule_set_fingerprint(const RuleSet& rules) {
  RuleSet content = rules;
  for (Rule& rule : content.rules) rule.defined_at.clear();  // the same rule moved in its file
  return encode_rule_set(content);
}

void use_default_rules_snapshot(std::string_view bytes) {
  default_snapshot = bytes;
}

std::optional<RuleSet> default_rules_from_snapshot() {
  if (default_snapshot.empty()) return std::nullopt;
  return decode_rule_set(default_snapshot);
}

}  // namespace perfgate
