#include "rule_files/yaml_pack.h"

#include <charconv>
#include <stdexcept>

namespace perfgate {
namespace {

void put_text(std::string& out, std::string_view text) {
  out += std::to_string(text.size());
  out += ':';
  out += text;
}

void pack_node(std::string& out, const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Scalar:
      out += '=';
      put_text(out, node.Tag());
      put_text(out, node.Scalar());
      return;
    case YAML::NodeType::Sequence:
      out += '[';
      put_text(out, node.Tag());
      put_text(out, std::to_string(node.size()));
      for (const auto& child : node) pack_node(out, child);
      return;
    case YAML::NodeType::Map:
      out += '{';
      put_text(out, node.Tag());
      put_text(out, std::to_string(node.size()));
      for (const auto& pair : node) {
        pack_node(out, pair.first);
        pack_node(out, pair.second);
      }
      return;
    default:  // Null, Undefined
      out += '~';
      put_text(out, node.Tag());
  }
}

class Unpacker {
 public:
  explicit Unpacker(std::string_view packed) : rest_(packed) {}

  YAML::Node node() {
    char kind = take(1).front();
    std::string tag(text());
    YAML::Node out;
    if (kind == '~') {
      out = YAML::Node(YAML::NodeType::Null);
    } else if (kind == '=') {
      out = YAML::Node(std::string(text()));
    } else if (kind == '[') {
      out = YAML::Node(YAML::NodeType::Sequence);
      for (std::size_t n = count(); n > 0; --n) out.push_back(node());
    } else if (kind == '{') {
      out = YAML::Node(YAML::NodeType::Map);
      // force_insert keeps a repeated key, as the parser does, for the duplicate-key check to see.
      for (std::size_t n = count(); n > 0; --n) {
        YAML::Node key = node();
        out.force_insert(key, node());
      }
    } else {
      throw std::runtime_error("packed YAML: unknown node kind");
    }
    out.SetTag(tag);
    return out;
  }
  bool done() const { return rest_.empty(); }

 private:
  std::string_view take(std::size_t n) {
    if (n > rest_.size()) throw std::runtime_error("packed YAML: truncated");
    std::string_view out = rest_.substr(0, n);
    rest_.remove_prefix(n);
    return out;
  }
  std::size_t number(std::string_view digits) {
    std::size_t n = 0;
    auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), n);
    if (ec != std::errc() || end != digits.data() + digits.size())
      throw std::runtime_error("packed YAML: bad length");
    return n;
  }
  std::string_view text() {
    std::size_t colon = rest_.find(':');
    if (colon == std::string_view::npos) throw std::runtime_error("packed YAML: truncated");
    std::size_t n = number(take(colon));
    take(1);
    return take(n);
  }
  std::size_t count() { return number(text()); }

  std::string_view rest_;
};

}  // namespace

std::string pack_yaml(const YAML::Node& root) {
  std::string out;
  pack_node(out, root);
  return out;
}

YAML::Node unpack_yaml(std::string_view packed) {
  Unpacker unpacker(packed);
  YAML::Node root = unpacker.node();
  if (!unpacker.done()) throw std::runtime_error("packed YAML: data after the tree");
  return root;
}

}  // namespace perfgate
