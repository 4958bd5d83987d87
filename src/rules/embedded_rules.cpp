#include <span>
#include <string>
#include <utility>

#include "perfgate/rules.h"

namespace perfgate {

// Defined in the generated embedded_files.cpp (cmake/EmbedFiles.cmake).
std::span<const std::pair<std::string_view, std::string_view>> embedded_files();

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
  for (const auto& [path, text] : embedded_files())
    if (path.starts_with(kPrefix) && path.ends_with(kSuffix) &&
        path.substr(kPrefix.size(), path.size() - kPrefix.size() - kSuffix.size()) == name)
      return text;
  return {};
}

}  // namespace perfgate
