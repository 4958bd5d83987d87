// Rule files as files: YAML documents, each UTF-8, one document, bounded in size, nodes and depth
// (aliases cannot make a small file a huge tree), read in the order they apply. A file applies on
// top of the shipped `default` set unless it says `extends: none` or names another file to extend;
// every --rules file after the first is an overlay. The knowledge stage reads its sections from the
// documents (knowledge/classification_section.h), the gate its own (`rules:` and the gate's
// settings); the engine reads each document's sections in turn (engine/rule_book.h).
#pragma once

#include <yaml-cpp/yaml.h>

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "rule_files/yaml_check.h"

namespace perfgate {

struct RuleDocument {
  std::string label;     // the path as given, or the shipped name ("default")
  bool shipped = false;  // a file of the program's own, which passes every check in the tests
  // The shipped default set, applied first to nothing: a snapshot of the set it makes may stand
  // for it (read_rule_documents then leaves `root` null).
  bool default_base = false;
  YAML::Node root;
};

// The documents of `files` in the order they apply: what the first file extends (recursively), the
// first file, then each other file. No files: the shipped default alone. `parse_default`: false
// where a snapshot stands for the default base, whose tree is then not built. Throws ConfigError
// ("file:line:col: error: ...") for a file that cannot be read or is not a valid rule file's YAML,
// an `extends` cycle, or an overlay that chooses what it extends.
std::vector<RuleDocument> read_rule_documents(const std::vector<std::string>& files,
                                              bool parse_default = true);

// The top-level keys of a rule file: the format's (schema, extends), the knowledge's sections and
// the gate's (rules, advice, critical_path).
std::span<const std::string_view> rule_file_keys();

// Throws ConfigError listing every error of `check`, one per line; nothing when there are none.
void throw_if_errors(const YamlCheck& check);

// The shipped rule files by name ("default", "tb-plugin"), and their text.
std::vector<std::string> shipped_rule_names();
std::string_view shipped_rule_text(std::string_view name);  // empty when unknown

}  // namespace perfgate
