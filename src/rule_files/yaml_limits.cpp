#include "rule_files/yaml_limits.h"

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/parser.h>

#include <algorithm>
#include <sstream>
#include <utility>
#include <vector>

namespace perfgate {
namespace {

// Keeps the anchors of the collections open at the current event; an alias to one of them is a
// cycle. Scalars and closed collections can be aliased freely.
class CycleFinder : public YAML::EventHandler {
 public:
  std::optional<YAML::Mark> found;
  std::optional<YAML::Mark> document_start;

  void OnDocumentStart(const YAML::Mark& mark) override { document_start = mark; }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t, const std::string&) override {}
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    if (!found && std::find(open_.begin(), open_.end(), anchor) != open_.end()) found = mark;
  }
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t anchor,
                       YAML::EmitterStyle::value) override {
    open_.push_back(anchor);
  }
  void OnSequenceEnd() override { open_.pop_back(); }
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t anchor,
                  YAML::EmitterStyle::value) override {
    open_.push_back(anchor);
  }
  void OnMapEnd() override { open_.pop_back(); }

 private:
  std::vector<YAML::anchor_t> open_;  // 0 for a collection without an anchor
};

}  // namespace

YamlDocumentCheck check_yaml_document(const std::string& text) {
  std::istringstream in(text);
  YAML::Parser parser(in);
  YamlDocumentCheck result;
  CycleFinder first;
  parser.HandleNextDocument(first);
  result.cycle = first.found;
  // One more document at most: a loop over all of them never ended on a file starting with ',',
  // for which yaml-cpp 0.7 hands out the same empty document forever (found by a 30-minute fuzz
  // run of the rule-file loader), and YAML::Load silently read only that empty one.
  CycleFinder second;
  if (parser.HandleNextDocument(second))
    result.second_document = second.document_start.value_or(YAML::Mark());
  return result;
}

YamlSize measure_yaml(const YAML::Node& root, std::size_t node_budget, std::size_t max_depth) {
  YamlSize size;
  std::vector<std::pair<YAML::Node, std::size_t>> pending{{root, 1}};
  while (!pending.empty() && size.nodes < node_budget) {
    auto [node, depth] = std::move(pending.back());
    pending.pop_back();
    ++size.nodes;
    size.depth = std::max(size.depth, depth);
    if (depth > max_depth) break;
    if (!node.IsSequence() && !node.IsMap()) continue;
    for (const auto& child : node)
      pending.emplace_back(node.IsMap() ? child.second : static_cast<const YAML::Node&>(child), depth + 1);
  }
  return size;
}

}  // namespace perfgate
