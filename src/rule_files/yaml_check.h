// Checking YAML nodes against an expected shape, collecting every error of a file as
// "file:line:col: error: ..." so that one run reports them all.
#pragma once

#include <yaml-cpp/yaml.h>

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace perfgate {

// Validates one RE2 pattern of a rule file: empty if it compiles, else RE2's message.
std::string pattern_error(const std::string& pattern);

class YamlCheck {
 public:
  // `positions`: false for YAML made from command-line text, where lines mean nothing.
  // `shipped`: a rule file of the program's own, whose patterns the tests compile (each pattern is
  // compiled once more when the rules are used; compiling it here too cost 1% of a run).
  explicit YamlCheck(std::string file, bool positions = true, bool shipped = false)
      : file_(std::move(file)), positions_(positions), shipped_(shipped) {}

  const std::string& file() const { return file_; }
  const std::vector<std::string>& errors() const { return errors_; }
  void error(const YAML::Node& at, const std::string& message);

  // Reports keys of `map` that are not in `allowed` ("unknown key 'x' in 'where', did you mean ...").
  void known_keys(const YAML::Node& map, std::span<const std::string_view> allowed, std::string_view where);
  bool is_map(const YAML::Node& node, std::string_view what);
  bool is_list(const YAML::Node& node, std::string_view what);
  std::optional<std::string> string(const YAML::Node& node, std::string_view what);
  // `key: name` or `key: [a, b]` as a list of names; none where the node is absent.
  std::vector<std::string> names(const YAML::Node& node, std::string_view what);
  std::optional<double> number(const YAML::Node& node, std::string_view what);
  std::optional<bool> boolean(const YAML::Node& node, std::string_view what);
  // The percentage (0 to 100) under `key` of the map `node`; nothing when the key is absent or
  // the value is not one (with an error).
  std::optional<double> percentage(const YAML::Node& node, const char* key);
  // A valid RE2 pattern, or nothing (with an error).
  std::optional<std::string> pattern(const YAML::Node& node, std::string_view what);
  // Reports every key given twice in a mapping of the tree, at the second ("duplicate key 'warn'
  // (first at line 3)"): YAML keeps only the first, so the second would be ignored silently.
  void duplicate_keys(const YAML::Node& root);

 private:
  std::string file_;
  bool positions_ = true;
  bool shipped_ = false;
  std::vector<std::string> errors_;
};

}  // namespace perfgate
