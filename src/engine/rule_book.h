// The rules of a run and the knowledge its analyses read, from its rule files read once: the
// knowledge stage reads each file's classification sections, the gate its rules and settings
// (engine/rule_book.cpp). The shipped default set is decoded from a snapshot made at build time
// where the program set one (use_default_rule_book_snapshot), instead of reading its YAML.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gate/rules.h"
#include "knowledge/classification.h"

namespace perfgate {

struct RuleBook {
  Classification knowledge;  // the analyses' and the readers' data (rules/*.yaml's sections)
  RuleSet rules;             // the gate's rules and settings, and the files applied
};

// The shipped default set, then each file in order (what it extends first); --set and --disable
// on top. Throws ConfigError listing every problem of a file ("file:line:col: error: ...").
RuleBook load_rule_book(const std::vector<std::string>& files, const std::vector<std::string>& settings = {},
                        const std::vector<std::string>& disabled = {});

// The book's content as bytes, to tell whether two runs used the same rules and knowledge (a
// partial report's rules_digest): every setting, rule and file applied, but not the line each
// rule was defined at. binary_codec's encoding, not effective_rules_yaml (yaml-cpp's emitter took
// 77 M instructions for the shipped set).
std::string rule_book_fingerprint(const RuleBook& book);

// binary_codec's encoding of a whole book, field by field, and the book again (nullopt for bytes
// that are not one whole encoded book of this build): the build's snapshot of the default set.
std::string encode_rule_book(const RuleBook& book);
std::optional<RuleBook> decode_rule_book(std::string_view bytes);

// The shipped default set as the build encoded it (tools/snapshot_rules.cpp: the bytes of
// load_rule_book({}) of the same build). Once set, load_rule_book decodes it where it would read the
// shipped default file, the start of every set; until then (and after an empty view) it reads the
// file.
void use_default_rule_book_snapshot(std::string_view bytes);

}  // namespace perfgate
