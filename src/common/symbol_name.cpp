#include "common/symbol_name.h"

#include <cxxabi.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdlib>
#include <memory>
#include <vector>

namespace perfgate {
namespace {

constexpr std::size_t kNone = std::string_view::npos;

bool identifier_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

bool is_identifier(std::string_view s) {
  return !s.empty() && !std::isdigit(static_cast<unsigned char>(s[0])) &&
         std::all_of(s.begin(), s.end(), identifier_char);
}

// A '<' right after a name opens a template argument list ("Kernel<", "Array<"), as does one after
// "::" (EDG's "at::native::<unnamed>::"); one after a space or at the start does not ("a < b",
// "<built-in method ...>").
bool opens_template(std::string_view s, std::size_t i) {
  return s[i] == '<' && i > 0 && (identifier_char(s[i - 1]) || s[i - 1] == ':');
}

bool opens_group(std::string_view s, std::size_t i) {
  return s[i] == '(' || s[i] == '{' || s[i] == '[' || opens_template(s, i);
}

// The index just past the bracket group opened at s[open], or kNone where it does not close. A '>'
// that closes nothing ("->" inside parentheses) is text.
std::size_t group_end(std::string_view s, std::size_t open) {
  std::vector<char> closers;
  for (std::size_t i = open; i < s.size(); ++i) {
    char c = s[i];
    if (c == '(') {
      closers.push_back(')');
    } else if (c == '{') {
      closers.push_back('}');
    } else if (c == '[') {
      closers.push_back(']');
    } else if (c == '<' && (i == open || opens_template(s, i))) {
      closers.push_back('>');
    } else if (!closers.empty() && c == closers.back()) {
      closers.pop_back();
      if (closers.empty()) return i + 1;
    }
  }
  return kNone;
}

// Whether an argument list reads as C++ parameter types ("ncclDevComm*, unsigned long",
// "Storage<4096ul>") rather than words in parentheses ("train_step", "in_features=64").
bool reads_as_types(std::string_view args) {
  if (args.empty()) return true;
  if (args.find_first_of("*&<") != kNone || args.find("::") != kNone) return true;
  static constexpr std::array<std::string_view, 11> kTypes = {
      "int", "float", "double", "char", "bool", "long", "short", "unsigned", "signed", "void", "size_t"};
  std::size_t i = 0;
  while (i < args.size()) {
    std::size_t end = i;
    while (end < args.size() && identifier_char(args[end])) ++end;
    if (end > i && std::find(kTypes.begin(), kTypes.end(), args.substr(i, end - i)) != kTypes.end())
      return true;
    i = std::max(end, i + 1);
  }
  return false;
}

// The name without its parameter list: the top-level "(...)" that ends it (a " const" after it
// too), opened right after the name, where the name or the list reads as C++; else `s`.
std::string_view without_arguments(std::string_view s, bool cxx) {
  std::string_view t = s;
  if (t.ends_with(" const")) t.remove_suffix(6);
  if (!t.ends_with(')')) return s;
  std::size_t last_open = kNone;
  for (std::size_t i = 0; i < t.size();) {
    if (!opens_group(t, i)) {
      ++i;
      continue;
    }
    std::size_t end = group_end(t, i);
    if (end == kNone) return s;
    if (t[i] == '(' && end == t.size()) last_open = i;
    i = end;
  }
  if (last_open == kNone || last_open == 0) return s;
  if (char before = t[last_open - 1]; !identifier_char(before) && before != '>') return s;
  std::string_view name = t.substr(0, last_open);
  std::string_view args = t.substr(last_open + 1, t.size() - last_open - 2);
  if (cxx || name.find("::") != kNone || name.find('<') != kNone || reads_as_types(args)) return name;
  return s;
}

// The name split at its top-level "::"; empty where a bracket does not close.
std::vector<std::string_view> scope_parts(std::string_view s) {
  std::vector<std::string_view> parts;
  std::size_t start = 0;
  for (std::size_t i = 0; i < s.size();) {
    if (opens_group(s, i)) {
      std::size_t end = group_end(s, i);
      if (end == kNone) return {};
      i = end;
    } else if (s.substr(i).starts_with("::")) {
      parts.push_back(s.substr(start, i - start));
      start = i += 2;
    } else {
      ++i;
    }
  }
  parts.push_back(s.substr(start));
  return parts;
}

// Template argument lists folded to "<…>"; a wrapper whose one argument is a generated kernel's
// name ("cutlass::Kernel<cutlass_80_tensorop_...>") keeps it, as short_kernel_name does.
std::string fold_templates(std::string_view part) {
  std::string out;
  for (std::size_t i = 0; i < part.size();) {
    if (!opens_group(part, i)) {
      out += part[i++];
      continue;
    }
    std::size_t end = group_end(part, i);
    if (end == kNone) return out + std::string(part.substr(i));
    if (part[i] != '<') {
      out += part.substr(i, end - i);
      i = end;
      continue;
    }
    std::string_view inner = part.substr(i + 1, end - i - 2);
    std::size_t comma = inner.size();
    for (std::size_t k = 0; k < inner.size();) {
      if (inner[k] == ',') {
        comma = k;
        break;
      }
      std::size_t skip = opens_group(inner, k) ? group_end(inner, k) : k + 1;
      k = skip == kNone ? inner.size() : skip;
    }
    std::string_view first = inner.substr(0, comma);
    while (!first.empty() && first.front() == ' ') first.remove_prefix(1);
    while (!first.empty() && first.back() == ' ') first.remove_suffix(1);
    // The wrapper's one argument; not a type of the compiler's ("__nv_bfloat16").
    bool generated = comma == inner.size() && is_identifier(first) && first.size() >= 12 &&
                     first.find('_') != kNone && !first.starts_with("__");
    out += generated ? "<" + std::string(first) + ">" : "<…>";
    i = end;
  }
  return out;
}

}  // namespace

std::string demangled(std::string_view name) {
  if (!name.starts_with("_Z")) return std::string(name);
  int status = 0;
  std::string copy(name);
  std::unique_ptr<char, void (*)(void*)> out(abi::__cxa_demangle(copy.c_str(), nullptr, nullptr, &status),
                                             std::free);
  return status == 0 && out ? std::string(out.get()) : copy;
}

std::string short_symbol(std::string_view name) {
  std::string full = demangled(name);
  std::string_view s = full;
  bool cxx = full != name;  // it was mangled
  if (s.starts_with("void ")) {
    s.remove_prefix(5);
    cxx = true;
  }
  s = without_arguments(s, cxx);
  std::vector<std::string_view> parts = scope_parts(s);
  if (parts.empty()) return full;  // an unbalanced bracket: not a signature to fold
  std::string first = fold_templates(parts.front());
  if (parts.size() == 1) return first;
  std::string last = fold_templates(parts.back());
  if (parts.size() >= 3) return first + "::…::" + last;
  return first + "::" + last;
}

std::string short_symbols(std::string_view label) {
  std::string out;
  std::size_t start = 0;
  bool first = true;
  for (std::size_t i = 0; i <= label.size();) {
    if (i < label.size() && opens_group(label, i)) {
      std::size_t end = group_end(label, i);
      if (end == kNone) return std::string(label);  // an unbalanced bracket: as it is
      i = end;
      continue;
    }
    if (i < label.size() && label[i] != ' ') {
      ++i;
      continue;
    }
    std::string_view part = label.substr(start, i - start);
    if (part != "void" || i == label.size()) {  // "void" is the signature's that follows
      out += (first ? "" : " ") + short_symbol(part);
      first = false;
      start = i + 1;
    }
    ++i;
  }
  return out;
}

}  // namespace perfgate
