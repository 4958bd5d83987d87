#include "load/nsys/nvtx_names.h"
#include "load/json_text.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <utility>
#include <vector>

namespace perfgate::nsys {
namespace {

// ---- emit_nvtx: "name, seq = N, op_id = N, sizes = [[...], ...]" ----

constexpr std::string_view kSuffixes[] = {", seq = ", ", stashed seq = ", ", op_id = ", ", sizes = "};

std::size_t first_suffix(std::string_view text) {
  std::size_t at = std::string_view::npos;
  for (std::string_view s : kSuffixes) at = std::min(at, text.find(s));
  return at;
}

std::int32_t number_after(std::string_view text, std::string_view key) {
  std::size_t at = text.find(key);
  if (at == std::string_view::npos) return -1;
  std::string_view rest = text.substr(at + key.size());
  std::int32_t n = -1;
  auto [p, ec] = std::from_chars(rest.data(), rest.data() + rest.size(), n);
  return ec == std::errc() ? n : -1;
}

std::string without_spaces(std::string_view s) {
  std::string out;
  for (char c : s)
    if (c != ' ') out += c;
  return out;
}

NvtxText read_emit_nvtx(std::string_view text, std::size_t suffix_at) {
  NvtxText t;
  t.meaning = NvtxMeaning::Op;
  t.name = std::string(text.substr(0, suffix_at));
  std::string_view suffix = text.substr(suffix_at);
  t.sequence = number_after(suffix, ", seq = ");
  if (t.sequence < 0) t.sequence = number_after(suffix, ", stashed seq = ");
  if (std::size_t at = suffix.find(", sizes = "); at != std::string_view::npos) {
    std::string_view sizes = suffix.substr(at + 10);
    if (sizes.starts_with('[') && sizes.ends_with(']')) t.input_dims = without_spaces(sizes);
  }
  return t;
}

// ---- PyProf: a Python dict literal, read by a small bounded parser ----

// A dict entry is a struct defined after PyValue is complete: std::vector accepts an incomplete
// element type (C++17), std::pair<std::string, PyValue> inside PyValue does not (clang rejects it).
struct PyField;

struct PyValue {
  enum class Kind { None, Scalar, String, List, Dict } kind = Kind::None;
  std::string text;             // Scalar: number/True/False text; String
  std::vector<PyValue> items;   // List (lists and tuples)
  std::vector<PyField> fields;  // Dict with string keys

  PyValue();
  PyValue(PyValue&&) noexcept;
  PyValue& operator=(PyValue&&) noexcept;
  ~PyValue();

  const PyValue* get(std::string_view key) const;
  std::string_view string_or(std::string_view fallback) const {
    return kind == Kind::String ? std::string_view(text) : fallback;
  }
};

struct PyField {
  std::string key;
  PyValue value;
};

PyValue::PyValue() = default;
PyValue::PyValue(PyValue&&) noexcept = default;
PyValue& PyValue::operator=(PyValue&&) noexcept = default;
PyValue::~PyValue() = default;

const PyValue* PyValue::get(std::string_view key) const {
  for (const PyField& f : fields)
    if (f.key == key) return &f.value;
  return nullptr;
}

class PyLiteralParser {
 public:
  explicit PyLiteralParser(std::string_view text) : s_(text) {}

  std::optional<PyValue> parse() {
    PyValue v;
    if (!value(v, 0)) return std::nullopt;
    skip_space();
    if (pos_ != s_.size()) return std::nullopt;
    return v;
  }

 private:
  static constexpr int kMaxDepth = 16;
  static constexpr std::size_t kMaxValues = 20000;

  void skip_space() {
    while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\n' || s_[pos_] == '\t')) ++pos_;
  }
  bool eat(char c) {
    skip_space();
    if (pos_ < s_.size() && s_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }

  bool value(PyValue& v, int depth) {
    if (depth > kMaxDepth || ++values_ > kMaxValues) return false;
    skip_space();
    if (pos_ >= s_.size()) return false;
    char c = s_[pos_];
    if (c == '{') return dict(v, depth);
    if (c == '[') return sequence(v, depth, ']');
    if (c == '(') return sequence(v, depth, ')');
    if (c == '\'' || c == '"') {
      v.kind = PyValue::Kind::String;
      return string(v.text);
    }
    return scalar(v);
  }

  bool string(std::string& out) {
    char quote = s_[pos_++];
    while (pos_ < s_.size() && s_[pos_] != quote) {
      if (s_[pos_] == '\\' && pos_ + 1 < s_.size()) ++pos_;
      out += s_[pos_++];
    }
    if (pos_ >= s_.size()) return false;
    ++pos_;
    return true;
  }

  bool scalar(PyValue& v) {
    std::size_t begin = pos_;
    while (pos_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '.' ||
                                s_[pos_] == '-' || s_[pos_] == '+' || s_[pos_] == '_'))
      ++pos_;
    if (pos_ == begin) return false;
    v.text = std::string(s_.substr(begin, pos_ - begin));
    v.kind = v.text == "None" ? PyValue::Kind::None : PyValue::Kind::Scalar;
    return true;
  }

  bool sequence(PyValue& v, int depth, char close) {
    ++pos_;
    v.kind = PyValue::Kind::List;
    if (eat(close)) return true;
    do {
      if (eat(close)) return true;  // trailing comma, as in "(3,)"
      v.items.emplace_back();
      if (!value(v.items.back(), depth + 1)) return false;
    } while (eat(','));
    return eat(close);
  }

  bool dict(PyValue& v, int depth) {
    ++pos_;
    v.kind = PyValue::Kind::Dict;
    if (eat('}')) return true;
    do {
      if (eat('}')) return true;
      PyValue key;
      if (!value(key, depth + 1) || key.kind != PyValue::Kind::String || !eat(':')) return false;
      v.fields.push_back(PyField{std::move(key.text), PyValue{}});
      if (!value(v.fields.back().value, depth + 1)) return false;
    } while (eat(','));
    return eat('}');
  }

  std::string_view s_;
  std::size_t pos_ = 0;
  std::size_t values_ = 0;
};

// PyProf's dtype text ("float16", "torch.float16") in the spelling Kineto traces use.
std::string kineto_type(std::string_view dtype) {
  if (dtype.starts_with("torch.")) dtype.remove_prefix(6);
  static constexpr std::pair<std::string_view, std::string_view> kTypes[] = {{"float16", "c10::Half"},
                                                                             {"half", "c10::Half"},
                                                                             {"bfloat16", "c10::BFloat16"},
                                                                             {"float32", "float"},
                                                                             {"float", "float"},
                                                                             {"float64", "double"},
                                                                             {"double", "double"},
                                                                             {"int64", "long int"},
                                                                             {"long", "long int"},
                                                                             {"int32", "int"},
                                                                             {"int", "int"},
                                                                             {"int16", "short int"},
                                                                             {"int8", "signed char"},
                                                                             {"uint8", "unsigned char"},
                                                                             {"bool", "bool"}};
  for (auto [from, to] : kTypes)
    if (dtype == from) return std::string(to);
  return std::string(dtype);
}

std::string dims_json(const PyValue& shape) {
  std::string out = "[";
  for (std::size_t i = 0; i < shape.items.size(); ++i) {
    if (i) out += ',';
    out += shape.items[i].kind == PyValue::Kind::Scalar ? shape.items[i].text : "-1";
  }
  return out + "]";
}

// {'mod': 'torch.nn.functional', 'op': 'linear', 'args': [{'type': 'tensor', 'shape': (2, 3),
// 'dtype': 'float16'}, {'type': 'int', 'value': 3}]}
NvtxText pyprof_op(const PyValue& dict, std::string_view op) {
  NvtxText t;
  t.meaning = NvtxMeaning::Op;
  // Dunder methods ("__matmul__") are the same ATen op as the function.
  if (op.size() > 4 && op.starts_with("__") && op.ends_with("__")) op = op.substr(2, op.size() - 4);
  t.name = "aten::" + std::string(op);
  const PyValue* args = dict.get("args");
  if (!args || args->kind != PyValue::Kind::List) return t;
  std::string dims = "[", types = "[";
  for (std::size_t i = 0; i < args->items.size(); ++i) {
    const PyValue& arg = args->items[i];
    std::string_view type = arg.get("type") ? arg.get("type")->string_or("") : "";
    const PyValue* shape = arg.get("shape");
    bool tensor = type == "tensor" && shape && shape->kind == PyValue::Kind::List;
    if (i) {
      dims += ',';
      types += ',';
    }
    dims += tensor ? dims_json(*shape) : "[]";
    std::string_view dtype = arg.get("dtype") ? arg.get("dtype")->string_or("") : "";
    types += json_string(tensor                                               ? kineto_type(dtype)
                         : type == "int" || type == "float" || type == "bool" ? "Scalar"
                                                                              : "");
  }
  t.input_dims = dims + "]";
  t.input_types = types + "]";
  return t;
}

NvtxText read_pyprof(const PyValue& dict) {
  NvtxText t;
  if (const PyValue* stack = dict.get("traceMarker"); stack && stack->kind == PyValue::Kind::List) {
    t.meaning = NvtxMeaning::CallStack;
    t.name = "PyProf call stack";
    for (const PyValue& frame : stack->items) {
      if (!t.call_stack.empty()) t.call_stack += ';';
      t.call_stack += frame.string_or("?");
    }
    return t;
  }
  const PyValue* op = dict.get("op");
  if (op && op->kind == PyValue::Kind::String && !op->text.empty()) return pyprof_op(dict, op->text);
  // A module marker ({'mod': 'Linear', 'strRepr': ...}) is a region named after the module.
  const PyValue* mod = dict.get("mod");
  t.name = mod && mod->kind == PyValue::Kind::String ? mod->text : "PyProf marker";
  return t;
}

}  // namespace

NvtxText read_nvtx_text(std::string_view text) {
  constexpr std::size_t kMaxDictText = 1 << 20;
  if (text.starts_with('{') && text.ends_with('}') && text.size() <= kMaxDictText) {
    if (auto dict = PyLiteralParser(text).parse(); dict && dict->kind == PyValue::Kind::Dict)
      return read_pyprof(*dict);
  }
  if (text.starts_with('{') &&
      (text.find("'op'") != std::string_view::npos || text.find("'traceMarker'") != std::string_view::npos)) {
    NvtxText unreadable;  // a PyProf marker too long, deep or broken to read: never shown raw
    unreadable.name = "PyProf marker (unreadable)";
    return unreadable;
  }
  if (std::size_t at = first_suffix(text); at != std::string_view::npos && at > 0)
    return read_emit_nvtx(text, at);
  NvtxText t;
  t.name = std::string(text);
  // Older emit_nvtx wrote ops without any suffix ("aten::view"): PyTorch's op namespaces mark
  // those; "fusion_executor::allocate" or "TransformReplay::replay" are a program's own regions.
  static constexpr std::string_view kOpNamespaces[] = {
      "aten::", "prim::", "c10d::", "_c10d_functional::", "c10d_functional::", "quantized::"};
  for (std::string_view ns : kOpNamespaces)
    if (text.starts_with(ns) && text.find(' ') == std::string_view::npos) t.meaning = NvtxMeaning::Op;
  return t;
}

}  // namespace perfgate::nsys
