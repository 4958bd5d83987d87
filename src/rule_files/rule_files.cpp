// Reads rule files as YAML documents in the order they apply (rule_files/rule_files.h).
#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/yaml.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <memory>

#include <fmt/format.h>

#include "common/errors.h"
#include "common/path_confinement.h"
#include "common/utf8.h"
#include "rule_files/rule_files.h"
#include "rule_files/yaml_limits.h"
#include "rule_files/yaml_pack.h"

namespace perfgate {
namespace fs = std::filesystem;
namespace {

constexpr std::size_t kMaxRuleFileBytes = 1024 * 1024;

constexpr std::array<std::string_view, 17> kTopKeys = {
    "schema",   "extends",           "classification",    "attribution", "gpu_peaks",     "op_models",
    "aten_ops", "fused_patterns",    "gpu_architectures", "compute",     "critical_path", "advice",
    "rules",    "kernel_precisions", "memory_categories", "vocabulary",  "capture"};
// YAML aliases share nodes, so a small file can stand for an exponentially large tree (a
// "billion laughs"): walking it is refused beyond this many nodes.
constexpr std::size_t kMaxYamlNodes = 200'000;

// Rule files nest a few levels; aliases could make the tree deep enough to exhaust the stack of the
// recursive walks that check it.
constexpr std::size_t kMaxYamlDepth = 64;

constexpr std::string_view kShipped = "shipped:";
constexpr std::string_view kShippedDefault = "shipped:default";

struct RuleSource {
  std::string label;  // path, or the shipped name
  std::string text;
  fs::path directory;    // where relative `extends` paths start
  std::string identity;  // the canonical path, or "shipped:" and the name: how a cycle is recognised
};

class RuleFileReader {
 public:
  RuleFileReader(std::vector<RuleDocument>& out, bool parse_default)
      : out_(out), parse_default_(parse_default) {}

  // A shipped file. Its text is left out where the snapshot stands for it: copying the default
  // file's text cost every run 0.26 M instructions (issue 96).
  RuleSource shipped_source(const std::string& name) const {
    RuleSource source{name, {}, {}, std::string(kShipped) + name};
    if (!snapshot_stands_for(source)) source.text = shipped_rule_text(name);
    return source;
  }

  void apply_with_base(const RuleSource& source) {
    if (snapshot_stands_for(source)) {
      out_.push_back({source.label, true, true, YAML::Node()});
      return;
    }
    chain_.push_back(source);
    YAML::Node root = parse(source);
    std::string base = "default";
    YAML::Node ext = root["extends"];
    if (ext) base = scalar(source, ext, "extends");
    if (base != "none") {
      RuleSource parent = resolve(base, source);
      if (std::string cycle = cycle_through(parent); !cycle.empty())
        fail(source, ext ? ext : root, fmt::format("'extends: {}' forms a cycle: {}", base, cycle));
      apply_with_base(parent);
    }
    add(source, std::move(root));
    chain_.pop_back();
  }

  void apply_overlay(const RuleSource& source) {
    YAML::Node root = parse(source);
    if (root["extends"])
      fail(source, root["extends"], "only the first --rules file can choose what it extends");
    add(source, std::move(root));
  }

 private:
  void add(const RuleSource& source, YAML::Node root) {
    bool shipped = source.identity.starts_with(kShipped);
    bool default_base = source.identity == kShippedDefault && out_.empty();
    out_.push_back({source.label, shipped, default_base, std::move(root)});
  }

  [[noreturn]] void fail(const RuleSource& source, const YAML::Node& node, const std::string& message) {
    throw ConfigError(fmt::format("{}:{}:{}: error: {}", source.label, node.Mark().line + 1,
                                  node.Mark().column + 1, message));
  }

  YAML::Node parse(const RuleSource& source) {
    if (source.text.size() > kMaxRuleFileBytes)
      throw ConfigError(
          fmt::format("{}: error: rule file is larger than {} bytes", source.label, kMaxRuleFileBytes));
    // The shipped files are part of the program and pass these checks in the tests
    // (RuleFiles.ShippedFilesPassTheChecksOfUserFiles); reading their events twice on every run cost
    // 4% of a ResNet-50 analysis.
    bool shipped = source.identity.starts_with(kShipped);
    if (shipped) {
      std::string_view tree = packed_shipped_rules(std::string_view(source.identity).substr(kShipped.size()));
      if (!tree.empty()) return unpack_yaml(tree);
    }
    if (!shipped) check_utf8(source);
    try {
      YamlDocumentCheck document = shipped ? YamlDocumentCheck{} : check_yaml_document(source.text);
      if (document.cycle)
        throw ConfigError(
            fmt::format("{}:{}:{}: error: the alias refers to a node that contains it "
                        "(a cycle); refusing to read it",
                        source.label, document.cycle->line + 1, document.cycle->column + 1));
      if (document.second_document)
        throw ConfigError(fmt::format(
            "{}:{}:{}: error: a rule file is one YAML document; another one starts here", source.label,
            document.second_document->line + 1, document.second_document->column + 1));
      YAML::Node root = YAML::Load(source.text);
      if (!root.IsMap() && !root.IsNull())
        throw ConfigError(fmt::format("{}:{}:{}: error: a rule file must be a mapping", source.label,
                                      root.Mark().line + 1, root.Mark().column + 1));
      if (!shipped) check_size(source, root);
      return root;
    } catch (const YAML::DeepRecursion& e) {
      throw ConfigError(
          fmt::format("{}:{}:{}: error: YAML nested more than {} levels deep; refusing to read it",
                      source.label, e.mark.line + 1, e.mark.column + 1, e.depth()));
    } catch (const YAML::Exception& e) {
      throw ConfigError(fmt::format("{}:{}:{}: error: invalid YAML: {}", source.label, e.mark.line + 1,
                                    e.mark.column + 1, e.msg));
    }
  }

  // YAML is Unicode text: rule texts end up in every report, so bad bytes are refused with their
  // position rather than carried into the outputs.
  static void check_utf8(const RuleSource& source) {
    std::size_t line = 1, column = 1;
    for (std::size_t i = 0; i < source.text.size();) {
      std::size_t n = utf8_sequence(source.text, i);
      if (n == 0)
        throw ConfigError(
            fmt::format("{}:{}:{}: error: invalid UTF-8 (byte 0x{:02x}); save the file as UTF-8",
                        source.label, line, column, static_cast<unsigned char>(source.text[i])));
      bool newline = source.text[i] == '\n';
      line += newline ? 1 : 0;
      column = newline ? 1 : column + 1;
      i += n;
    }
  }

  static void check_size(const RuleSource& source, const YAML::Node& root) {
    YamlSize size = measure_yaml(root, kMaxYamlNodes, kMaxYamlDepth);
    if (size.nodes >= kMaxYamlNodes)
      throw ConfigError(
          fmt::format("{}: error: the rule file expands to more than {} YAML nodes "
                      "(aliases of aliases?); refusing to read it",
                      source.label, kMaxYamlNodes));
    if (size.depth > kMaxYamlDepth)
      throw ConfigError(fmt::format(
          "{}: error: the rule file is nested more than {} levels (through aliases); refusing to read it",
          source.label, kMaxYamlDepth));
  }

  std::string scalar(const RuleSource& source, const YAML::Node& node, std::string_view key) {
    if (!node.IsScalar()) fail(source, node, fmt::format("'{}' must be a string", key));
    return node.as<std::string>();
  }

  // "a.yaml -> b.yaml -> a.yaml" when `next` is already being applied, else empty.
  std::string cycle_through(const RuleSource& next) const {
    auto first = std::find_if(chain_.begin(), chain_.end(),
                              [&](const RuleSource& s) { return s.identity == next.identity; });
    if (first == chain_.end()) return {};
    std::string out;
    for (auto it = first; it != chain_.end(); ++it) out += it->label + " -> ";
    return out + first->label;
  }

  RuleSource resolve(const std::string& base, const RuleSource& from) {
    if (!shipped_rule_text(base).empty()) return shipped_source(base);
    fs::path path = fs::path(base).is_absolute() ? fs::path(base) : from.directory / base;
    return read_rule_file(path.string());
  }

  // The default file extends nothing, so it is always the first applied, to an empty set: a
  // snapshot of that set may stand for it.
  bool snapshot_stands_for(const RuleSource& source) const {
    return source.identity == kShippedDefault && out_.empty() && !parse_default_;
  }

  std::vector<RuleDocument>& out_;
  bool parse_default_ = true;
  std::vector<RuleSource> chain_;  // the files being applied: the first, then what each extends

 public:
  static RuleSource read_rule_file(const std::string& path) {
    // Under a confinement (perfgate mcp), a file or an `extends:` outside the roots is never read,
    // so that no message quotes it: refused by where its name leads (nothing outside is opened),
    // then by the descriptor it is read through, so that a link swapped in between is refused too.
    check_confined_path(path);
    std::string text = read_rule_bytes(path);
    std::error_code ec;
    fs::path canonical = fs::weakly_canonical(path, ec);
    return {path, std::move(text), fs::path(path).parent_path(), ec ? path : canonical.string()};
  }

 private:
  // The file's bytes, read through one descriptor: checked against the roots, a regular file, at
  // most kMaxRuleFileBytes. Opened without blocking, so that a FIFO is refused, not waited on.
  static std::string read_rule_bytes(const std::string& path) {
    auto refuse = [&](const std::string& why) {
      return ConfigError(fmt::format("{}: error: cannot read rule file: {}", path, why));
    };
    int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) throw refuse(std::strerror(errno));
    std::unique_ptr<int, void (*)(int*)> closing(&fd, [](int* f) { ::close(*f); });
    check_confined_descriptor(fd, path);
    struct stat status {};
    if (::fstat(fd, &status) != 0) throw refuse(std::strerror(errno));
    if (!S_ISREG(status.st_mode)) throw refuse("not a regular file");
    if (static_cast<std::uint64_t>(status.st_size) > kMaxRuleFileBytes)
      throw ConfigError(fmt::format("{}: error: rule file is larger than {} bytes", path, kMaxRuleFileBytes));
    std::string text(static_cast<std::size_t>(status.st_size), '\0');
    std::size_t got = 0;
    while (got < text.size()) {
      ssize_t n = ::read(fd, text.data() + got, text.size() - got);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) throw refuse(std::strerror(errno));
      if (n == 0) break;  // shorter now than when it was looked at
      got += static_cast<std::size_t>(n);
    }
    text.resize(got);
    return text;
  }
};

}  // namespace

std::vector<RuleDocument> read_rule_documents(const std::vector<std::string>& files, bool parse_default) {
  std::vector<RuleDocument> documents;
  RuleFileReader reader(documents, parse_default);
  if (files.empty()) {
    reader.apply_with_base(reader.shipped_source("default"));
    return documents;
  }
  for (std::size_t i = 0; i < files.size(); ++i) {
    std::string_view shipped = shipped_rule_text(files[i]);
    RuleSource source = !shipped.empty() && !fs::exists(files[i]) ? reader.shipped_source(files[i])
                                                                  : RuleFileReader::read_rule_file(files[i]);
    if (i == 0)
      reader.apply_with_base(source);
    else
      reader.apply_overlay(source);
  }
  return documents;
}

std::span<const std::string_view> rule_file_keys() {
  return kTopKeys;
}

void throw_if_errors(const YamlCheck& check) {
  if (check.errors().empty()) return;
  std::string all;
  for (const auto& e : check.errors()) all += (all.empty() ? "" : "\n") + e;
  throw ConfigError(all);
}

}  // namespace perfgate
