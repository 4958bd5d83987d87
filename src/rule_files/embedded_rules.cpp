#include <span>
#include <string>
#include <utility>

#include "assets/embedded_files.h"
#include "rule_files/rule_files.h"

namespace perfgate {

namespace {
constexpr std::string_view kPrefix = "rules/";
constexpr std::string_view kSuffix = ".yaml";
}  // namespace

std::vector<std::string> shipped_rule_names() {
  std::vector<std::string> names;
  for (const auto& [path, text] : embedded_files())
    if (path.starts_with(kPrefix) && path.ends_with(kSuffix))
      names.emplace_back(path.substr(kPrefix.size(), path.size() - kPrefix.size() - kSuffix.size()));
  return names;
}

std::string_view shipped_rule_text(std::string_view name) {
  return embedded_file(std::string(kPrefix) + std::string(name) + std::string(kSuffix));
}

}  // namespace perfgate
