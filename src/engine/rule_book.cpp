#include "engine/rule_book.h"

#include "common/binary_codec.h"
#include "gate/rule_sections.h"
#include "gate/rules.h"
#include "knowledge/classification_section.h"
#include "rule_files/rule_files.h"

namespace perfgate {
namespace {

// Set once by the program's main() before any rule is read; empty in the tests that do not set it,
// which then read the YAML (both ways give the same book: RulesSnapshot tests).
std::string_view default_snapshot;

}  // namespace

RuleBook load_rule_book(const std::vector<std::string>& files, const std::vector<std::string>& settings,
                        const std::vector<std::string>& disabled) {
  std::optional<RuleBook> snapshot;
  if (!default_snapshot.empty()) snapshot = decode_rule_book(default_snapshot);
  RuleBook book;
  for (const RuleDocument& doc : read_rule_documents(files, !snapshot)) {
    if (doc.default_base && snapshot) {
      book = std::move(*snapshot);
      continue;
    }
    YamlCheck check(doc.label, true, doc.shipped);
    check.duplicate_keys(doc.root);
    if (doc.root.IsMap()) {
      check.known_keys(doc.root, rule_file_keys(), "");
      read_classification_sections(check, doc.root, book.knowledge);
      read_gate_sections(check, doc.root, book.rules);
    }
    throw_if_errors(check);
    book.rules.sources.push_back(doc.label);
  }
  apply_rule_overrides(book.rules, settings, disabled);
  book.rules.min_flops_coverage_pct = book.knowledge.mfu_min_flops_coverage_pct;
  return book;
}

std::string encode_rule_book(const RuleBook& book) {
  binary_codec::Writer writer;
  writer.put(book);
  return std::move(writer.bytes());
}

std::optional<RuleBook> decode_rule_book(std::string_view bytes) {
  try {
    binary_codec::Reader reader(bytes);
    RuleBook book;
    reader.get(book);
    if (reader.done()) return book;
  } catch (const binary_codec::DecodeError&) {
  }
  return std::nullopt;
}

std::string rule_book_fingerprint(const RuleBook& book) {
  RuleBook content = book;
  for (Rule& rule : content.rules.rules) rule.defined_at.clear();  // the same rule moved in its file
  return encode_rule_book(content);
}

void use_default_rule_book_snapshot(std::string_view bytes) {
  default_snapshot = bytes;
}

}  // namespace perfgate
