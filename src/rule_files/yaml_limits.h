// Limits on what a YAML document may expand to, checked before anything walks its node tree:
// aliases share nodes, so a small file can stand for a huge tree ("billion laughs"), a deep one,
// or a cycle (`x: &a [*a]`), and every recursive walk of such a tree would exhaust the stack.
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstddef>
#include <optional>
#include <string>

namespace perfgate {

struct YamlDocumentCheck {
  // The first alias of the first document (the one YAML::Load reads) that refers to a collection
  // still open around it: an anchored node that contains itself.
  std::optional<YAML::Mark> cycle;
  // Where a second document starts, if there is one: YAML::Load would ignore it.
  std::optional<YAML::Mark> second_document;
};

// Reads the events only; throws what YAML::Parser throws on invalid YAML.
YamlDocumentCheck check_yaml_document(const std::string& text);

struct YamlSize {
  std::size_t nodes = 0;  // nodes visited by a walk that follows aliases, stopped at the budget
  std::size_t depth = 0;  // the deepest level reached (the root is level 1), at most max_depth + 1
};

// Walks an acyclic tree without recursion, stopping at `node_budget` nodes or past `max_depth`.
YamlSize measure_yaml(const YAML::Node& root, std::size_t node_budget, std::size_t max_depth);

}  // namespace perfgate
