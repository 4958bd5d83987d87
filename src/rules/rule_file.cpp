// Reads rule files: YAML, validated key by key with file:line:col errors, all reported at once.
#include <yaml-cpp/yaml.h>

#include <array>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "analyse/pattern_set.h"
#include "perfgate/errors.h"
#include "perfgate/rules.h"
#include "rules/suggest.h"

namespace perfgate {
namespace fs = std::filesystem;
namespace {

constexpr std::size_t kMaxRuleFileBytes = 1024 * 1024;

constexpr std::array<std::string_view, 4> kTopKeys = {"schema", "extends", "classification", "attribution"};
constexpr std::array<std::string_view, 1> kAttributionKeys = {"by_time_containment"};
constexpr std::array<std::string_view, 5> kClassNames = {"tensor_core_kernels", "tensor_core_eligible_ops",
                                                         "communication_kernels", "communication_ops",
                                                         "dataloader_ops"};
constexpr std::array<std::string_view, 2> kClassKeys = {"patterns", "add"};
constexpr std::array<std::string_view, 3> kPatternKeys = {"pattern", "source", "note"};

struct RuleSource {
  std::string label;  // path, or the shipped name
  std::string text;
  fs::path directory;  // where relative `extends` paths start
};

std::vector<std::string>& class_list(Classification& c, std::string_view name) {
  if (name == "tensor_core_kernels") return c.tensor_core_kernels;
  if (name == "tensor_core_eligible_ops") return c.tensor_core_eligible_ops;
  if (name == "communication_kernels") return c.communication_kernels;
  if (name == "communication_ops") return c.communication_ops;
  return c.dataloader_ops;
}

class RuleFileReader {
 public:
  explicit RuleFileReader(RuleSet& out) : out_(out) {}

  void apply_with_base(const RuleSource& source) {
    YAML::Node root = parse(source);
    std::string base = "default";
    if (YAML::Node ext = root["extends"]) base = scalar(source, ext, "extends");
    if (base != "none") {
      if (!visiting_.insert(base).second)
        throw ConfigError(fmt::format("{}: error: 'extends: {}' forms a cycle", source.label, base));
      apply_with_base(resolve(base, source));
    }
    apply_body(source, root);
  }

  void apply_overlay(const RuleSource& source) {
    YAML::Node root = parse(source);
    if (root["extends"])
      fail(source, root["extends"], "only the first --rules file can choose what it extends");
    apply_body(source, root);
  }

 private:
  [[noreturn]] void fail(const RuleSource& source, const YAML::Node& node, const std::string& message) {
    throw ConfigError(fmt::format("{}:{}:{}: error: {}", source.label, node.Mark().line + 1,
                                  node.Mark().column + 1, message));
  }

  void error(const RuleSource& source, const YAML::Node& node, const std::string& message) {
    errors_.push_back(fmt::format("{}:{}:{}: error: {}", source.label, node.Mark().line + 1,
                                  node.Mark().column + 1, message));
  }

  YAML::Node parse(const RuleSource& source) {
    if (source.text.size() > kMaxRuleFileBytes)
      throw ConfigError(
          fmt::format("{}: error: rule file is larger than {} bytes", source.label, kMaxRuleFileBytes));
    try {
      YAML::Node root = YAML::Load(source.text);
      if (!root.IsMap() && !root.IsNull())
        throw ConfigError(fmt::format("{}:{}:{}: error: a rule file must be a mapping", source.label,
                                      root.Mark().line + 1, root.Mark().column + 1));
      return root;
    } catch (const YAML::Exception& e) {
      throw ConfigError(fmt::format("{}:{}:{}: error: invalid YAML: {}", source.label, e.mark.line + 1,
                                    e.mark.column + 1, e.msg));
    }
  }

  std::string scalar(const RuleSource& source, const YAML::Node& node, std::string_view key) {
    if (!node.IsScalar()) fail(source, node, fmt::format("'{}' must be a string", key));
    return node.as<std::string>();
  }

  RuleSource resolve(const std::string& base, const RuleSource& from) {
    std::string_view shipped = shipped_rule_text(base);
    if (!shipped.empty()) return {base, std::string(shipped), {}};
    fs::path path = fs::path(base).is_absolute() ? fs::path(base) : from.directory / base;
    return read_rule_file(path.string());
  }

  void apply_body(const RuleSource& source, const YAML::Node& root) {
    errors_.clear();
    if (root.IsMap()) {
      for (const auto& entry : root) {
        std::string key = entry.first.as<std::string>();
        if (std::find(kTopKeys.begin(), kTopKeys.end(), key) == kTopKeys.end())
          error(source, entry.first, fmt::format("unknown key '{}'{}", key, did_you_mean(key, kTopKeys)));
      }
      if (YAML::Node c = root["classification"]) apply_classification(source, c);
      if (YAML::Node a = root["attribution"]) apply_attribution(source, a);
    }
    if (!errors_.empty()) {
      std::string all;
      for (const auto& e : errors_) all += (all.empty() ? "" : "\n") + e;
      throw ConfigError(all);
    }
    out_.sources.push_back(source.label);
  }

  void apply_classification(const RuleSource& source, const YAML::Node& node) {
    if (!node.IsMap()) return error(source, node, "'classification' must be a mapping of pattern lists");
    for (const auto& entry : node) {
      std::string name = entry.first.as<std::string>();
      if (std::find(kClassNames.begin(), kClassNames.end(), name) == kClassNames.end()) {
        error(source, entry.first,
              fmt::format("unknown classification '{}'{}", name, did_you_mean(name, kClassNames)));
        continue;
      }
      apply_class(source, entry.second, name, class_list(out_.classification, name));
    }
  }

  void apply_attribution(const RuleSource& source, const YAML::Node& node) {
    if (!node.IsMap()) return error(source, node, "'attribution' must be a mapping");
    for (const auto& entry : node) {
      std::string key = entry.first.as<std::string>();
      if (std::find(kAttributionKeys.begin(), kAttributionKeys.end(), key) == kAttributionKeys.end()) {
        error(source, entry.first,
              fmt::format("unknown key '{}' in 'attribution'{}", key, did_you_mean(key, kAttributionKeys)));
        continue;
      }
      bool value = false;
      if (!entry.second.IsScalar() || !YAML::convert<bool>::decode(entry.second, value)) {
        error(source, entry.second, fmt::format("'{}' must be true or false", key));
        continue;
      }
      out_.classification.attribute_by_time_containment = value;
    }
  }

  void apply_class(const RuleSource& source, const YAML::Node& node, const std::string& name,
                   std::vector<std::string>& list) {
    if (!node.IsMap())
      return error(source, node, fmt::format("'{}' must be a mapping with 'patterns' or 'add'", name));
    for (const auto& entry : node) {
      std::string key = entry.first.as<std::string>();
      if (std::find(kClassKeys.begin(), kClassKeys.end(), key) == kClassKeys.end())
        error(source, entry.first,
              fmt::format("unknown key '{}' in '{}'{}", key, name, did_you_mean(key, kClassKeys)));
    }
    if (YAML::Node replace = node["patterns"]) {
      list.clear();
      read_patterns(source, replace, name, list);
    }
    if (YAML::Node add = node["add"]) read_patterns(source, add, name, list);
  }

  void read_patterns(const RuleSource& source, const YAML::Node& node, const std::string& name,
                     std::vector<std::string>& list) {
    if (!node.IsSequence()) return error(source, node, fmt::format("'{}' patterns must be a list", name));
    for (const auto& item : node) {
      YAML::Node pattern = item;
      if (item.IsMap()) {
        for (const auto& entry : item) {
          std::string key = entry.first.as<std::string>();
          if (std::find(kPatternKeys.begin(), kPatternKeys.end(), key) == kPatternKeys.end())
            error(source, entry.first,
                  fmt::format("unknown key '{}' in a pattern{}", key, did_you_mean(key, kPatternKeys)));
        }
        pattern = item["pattern"];
        if (!pattern) {
          error(source, item, "a pattern entry needs 'pattern'");
          continue;
        }
      }
      if (!pattern.IsScalar()) {
        error(source, pattern, "a pattern must be a string");
        continue;
      }
      std::string text = pattern.as<std::string>();
      if (std::string why = pattern_error(text); !why.empty()) {
        error(source, pattern, fmt::format("invalid regular expression '{}': {}", text, why));
        continue;
      }
      list.push_back(std::move(text));
    }
  }

  RuleSet& out_;
  std::set<std::string> visiting_;
  std::vector<std::string> errors_;

 public:
  static RuleSource read_rule_file(const std::string& path) {
    std::error_code ec;
    auto size = fs::file_size(path, ec);
    if (ec) throw ConfigError(fmt::format("{}: error: cannot read rule file: {}", path, ec.message()));
    if (size > kMaxRuleFileBytes)
      throw ConfigError(fmt::format("{}: error: rule file is larger than {} bytes", path, kMaxRuleFileBytes));
    std::ifstream in(path, std::ios::binary);
    if (!in) throw ConfigError(fmt::format("{}: error: cannot open rule file", path));
    std::ostringstream text;
    text << in.rdbuf();
    return {path, text.str(), fs::path(path).parent_path()};
  }
};

}  // namespace

RuleSet load_rules(const std::vector<std::string>& files) {
  RuleSet set;
  RuleFileReader reader(set);
  if (files.empty()) {
    reader.apply_with_base({"default", std::string(shipped_rule_text("default")), {}});
    return set;
  }
  for (std::size_t i = 0; i < files.size(); ++i) {
    std::string_view shipped = shipped_rule_text(files[i]);
    RuleSource source = !shipped.empty() && !fs::exists(files[i])
                            ? RuleSource{files[i], std::string(shipped), {}}
                            : RuleFileReader::read_rule_file(files[i]);
    if (i == 0)
      reader.apply_with_base(source);
    else
      reader.apply_overlay(source);
  }
  return set;
}

}  // namespace perfgate
