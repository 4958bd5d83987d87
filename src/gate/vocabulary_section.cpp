#include "gate/vocabulary_section.h"

#include <algorithm>
#include <array>
#include <string_view>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "common/capture_profile.h"
#include "gate/capture_words.h"

namespace perfgate {
namespace {

// What a `for:` of `words` may name: any capture, a device kind or vendor, a workload or a
// framework.
bool known_capture(std::string_view name) {
  if (name == "default" || name == "inference") return true;
  auto in = [&](const auto& names) { return std::find(names.begin(), names.end(), name) != names.end(); };
  return in(kDeviceKindNames) || in(kDeviceVendorNames) || in(kCaptureWorkloadNames) ||
         in(vocabulary_framework_names());
}

void read_words(YamlCheck& check, const YAML::Node& node, RuleSet& out) {
  if (!check.is_list(node, "words")) return;
  out.words.clear();
  for (const auto& item : node) {
    if (!check.is_map(item, "words entry")) continue;
    VocabularyWords entry;
    for (const auto& key : item) {
      std::string name = key.first.Scalar();
      std::optional<std::string> value = check.string(key.second, name);
      if (!value) continue;
      if (name == "for") {
        entry.for_capture = *value;
        if (!known_capture(*value))
          check.error(key.second,
                      fmt::format("'for: {}' is no device kind, vendor, workload or framework", *value));
      } else if (name == "source") {
        entry.source = *value;
      } else if (std::find(vocabulary_word_names().begin(), vocabulary_word_names().end(), name) !=
                 vocabulary_word_names().end()) {
        entry.words.emplace_back(name, *value);
      } else {
        check.error(key.first, fmt::format("unknown word '{}' (one of: {})", name,
                                           fmt::join(vocabulary_word_names(), ", ")));
      }
    }
    if (entry.for_capture.empty()) check.error(item, "a words entry needs 'for'");
    if (entry.source.empty()) check.error(item, "a words entry needs 'source'");
    out.words.push_back(std::move(entry));
  }
}

void read_terms(YamlCheck& check, const YAML::Node& node, RuleSet& out) {
  static constexpr std::array<std::string_view, 6> kKeys = {"terms",     "frameworks", "devices",
                                                            "workloads", "formats",    "source"};
  if (!check.is_list(node, "framework_terms")) return;
  out.framework_terms.clear();
  for (const auto& item : node) {
    if (!check.is_map(item, "framework_terms entry")) continue;
    check.known_keys(item, kKeys, "framework_terms");
    FrameworkTerms group;
    group.terms = check.names(item["terms"], "terms");
    group.frameworks = check.names(item["frameworks"], "frameworks");
    group.devices = check.names(item["devices"], "devices");
    group.workloads = check.names(item["workloads"], "workloads");
    group.formats = check.names(item["formats"], "formats");
    if (item["source"]) group.source = check.string(item["source"], "source").value_or("");
    if (group.terms.empty() || group.source.empty())
      check.error(item, "a framework_terms entry needs 'terms' and 'source'");
    if (group.frameworks.empty() && group.devices.empty() && group.workloads.empty() && group.formats.empty())
      check.error(item,
                  "a framework_terms entry names the frameworks, devices, workloads or formats it is for");
    out.framework_terms.push_back(std::move(group));
  }
}

bool overlaps(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  return std::any_of(a.begin(), a.end(),
                     [&](const std::string& x) { return std::find(b.begin(), b.end(), x) != b.end(); });
}

// Whether the entry (none: the rule's `recommendation`) declares one of the group's captures.
bool declares(const Rule::ConditionalText* entry, const FrameworkTerms& group) {
  if (!entry) return false;
  std::vector<std::string> devices = entry->devices;
  devices.insert(devices.end(), entry->vendors.begin(), entry->vendors.end());
  std::vector<std::string> workloads = entry->workloads;
  if (!entry->workload.empty()) workloads.push_back(entry->workload);
  // "inference" is serving and offline inference together.
  if (std::find(workloads.begin(), workloads.end(), "inference") != workloads.end())
    workloads.insert(workloads.end(), {"serving", "offline-inference"});
  return overlaps(entry->frameworks, group.frameworks) || overlaps(devices, group.devices) ||
         overlaps(workloads, group.workloads) || overlaps(entry->formats, group.formats);
}

std::string group_keys(const FrameworkTerms& g) {
  std::vector<std::string> parts;
  if (!g.frameworks.empty()) parts.push_back(fmt::format("frameworks: {}", fmt::join(g.frameworks, ", ")));
  if (!g.devices.empty()) parts.push_back(fmt::format("devices: {}", fmt::join(g.devices, ", ")));
  if (!g.workloads.empty()) parts.push_back(fmt::format("workloads: {}", fmt::join(g.workloads, ", ")));
  if (!g.formats.empty()) parts.push_back(fmt::format("formats: {}", fmt::join(g.formats, ", ")));
  return fmt::format("{}", fmt::join(parts, " or "));
}

}  // namespace

void read_vocabulary_section(YamlCheck& check, const YAML::Node& node, RuleSet& out) {
  static constexpr std::array<std::string_view, 2> kKeys = {"words", "framework_terms"};
  if (!check.is_map(node, "vocabulary")) return;
  check.known_keys(node, kKeys, "vocabulary");
  if (YAML::Node words = node["words"]) read_words(check, words, out);
  if (YAML::Node terms = node["framework_terms"]) read_terms(check, terms, out);
}

void check_framework_terms(YamlCheck& check, const YAML::Node& at, const RuleSet& rules) {
  auto check_text = [&](const Rule& r, const std::string& text, const Rule::ConditionalText* entry) {
    for (const FrameworkTerms& group : rules.framework_terms) {
      if (declares(entry, group)) continue;
      for (const std::string& term : group.terms)
        if (text.find(term) != std::string::npos) {
          check.error(at, fmt::format("rule {}: {} names '{}' without declaring whom it is for ({}){}", r.id,
                                      entry ? fmt::format("the recommendations entry when '{}'", entry->when)
                                            : std::string("its recommendation"),
                                      term, group_keys(group),
                                      entry ? "" : ": move it to a recommendations entry that declares it"));
          break;
        }
    }
  };
  for (const Rule& r : rules.rules) {
    check_text(r, r.recommendation, nullptr);
    for (const Rule::ConditionalText& entry : r.recommendations) check_text(r, entry.text, &entry);
  }
}

}  // namespace perfgate
