#include "analyse/ops/op_info.h"

#include <algorithm>
#include <cstdlib>
#include <memory>

#include <boost/json/parse.hpp>
#include <boost/json/value.hpp>

#include "common/symbol_name.h"

namespace perfgate {
namespace {

constexpr std::string_view kAnonymous = "(anonymous namespace)";

// Index of the '(' that opens the argument list (at template depth 0), or npos.
std::size_t argument_list(std::string_view s) {
  int depth = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s.substr(i).starts_with(kAnonymous)) {
      i += kAnonymous.size() - 1;
    } else if (s[i] == '<') {
      ++depth;
    } else if (s[i] == '>') {
      depth = std::max(0, depth - 1);
    } else if (s[i] == '(' && depth == 0 && i > 0) {
      return i;
    }
  }
  return std::string_view::npos;
}

bool is_identifier(std::string_view s) {
  return !s.empty() && !(s[0] >= '0' && s[0] <= '9') && std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

}  // namespace

std::string short_kernel_name(std::string_view raw) {
  // Not mangled, no "void " to drop, no argument list nor template to cut: the name as it is (most
  // kernel names; the scan below compares each character with "(anonymous namespace)").
  if (!raw.starts_with("_Z") && !raw.starts_with("void ") &&
      std::none_of(raw.begin(), raw.end(), [](char c) { return c == '(' || c == '<'; }))
    return std::string(raw);
  std::string full = demangled(raw);
  std::string_view s = full;
  if (s.starts_with("void ")) s.remove_prefix(5);
  if (std::size_t args = argument_list(s); args != std::string_view::npos) s = s.substr(0, args);
  std::size_t open = s.find('<');
  if (open == std::string_view::npos) return std::string(s);
  std::string_view base = s.substr(0, open);
  // A generic wrapper (cutlass::Kernel<cutlass_80_tensorop_...>) is identified by its first template
  // argument when that is a generated kernel name, not a type such as float.
  std::string_view first = s.substr(open + 1);
  first = first.substr(0, std::min(first.find(','), first.find('>')));
  while (!first.empty() && first.front() == ' ') first.remove_prefix(1);
  if (is_identifier(first) && first.size() >= 12 && first.find('_') != std::string_view::npos)
    return std::string(base) + "<" + std::string(first) + ">";
  return std::string(base);
}

const std::vector<Dims>& ArgumentCache::dims(StringId id) {
  auto [it, inserted] = dims_.try_emplace(id);
  if (!inserted || id == kNoString) return it->second;
  boost::system::error_code ec;
  boost::json::value v = boost::json::parse(p_.str(id), ec);
  if (ec || !v.is_array()) return it->second;
  for (const auto& input : v.as_array()) {
    Dims d;
    if (input.is_array()) {
      for (const auto& x : input.as_array()) {
        if (!x.is_int64()) {
          d.clear();  // nested lists (TensorList) are not one tensor's shape
          break;
        }
        d.push_back(x.as_int64());
      }
    }
    it->second.push_back(std::move(d));
  }
  return it->second;
}

const std::vector<std::string>& ArgumentCache::strings(StringId id) {
  auto [it, inserted] = strings_.try_emplace(id);
  if (!inserted || id == kNoString) return it->second;
  boost::system::error_code ec;
  boost::json::value v = boost::json::parse(p_.str(id), ec);
  if (ec || !v.is_array()) return it->second;
  for (const auto& x : v.as_array())
    it->second.push_back(x.is_string() ? std::string(x.as_string()) : std::string());
  return it->second;
}

Dims ArgumentCache::integers(std::string_view text) {
  Dims out;
  boost::system::error_code ec;
  boost::json::value v = boost::json::parse(text, ec);
  if (ec) return out;
  if (v.is_int64()) return {v.as_int64()};
  if (!v.is_array()) return out;
  for (const auto& x : v.as_array()) {
    if (!x.is_int64()) return {};
    out.push_back(x.as_int64());
  }
  return out;
}

std::string tensor_types(const std::vector<std::string>& input_types) {
  std::vector<std::string_view> seen;
  for (const auto& t : input_types)
    if (precision_of(t) != Precision::Unknown && std::find(seen.begin(), seen.end(), t) == seen.end())
      seen.push_back(t);
  std::string out;
  for (auto t : seen) out += (out.empty() ? "" : ", ") + std::string(t);
  return out;
}

Precision precision_of(std::string_view t) {
  if (t.starts_with("c10::")) t.remove_prefix(5);
  // XLA's element types, as the XSpace reader writes an XLA op's operands (xla_data.proto's names).
  if (t == "f32") return Precision::Fp32;
  if (t == "f64") return Precision::Fp64;
  if (t == "f16") return Precision::Fp16;
  if (t == "bf16") return Precision::Bf16;
  if (t.starts_with("f8e")) return Precision::Fp8;
  if (t == "s8" || t == "u8") return Precision::Int8;
  if (t == "float" || t == "Float") return Precision::Fp32;
  if (t == "double" || t == "Double") return Precision::Fp64;
  if (t == "Half") return Precision::Fp16;
  if (t == "BFloat16") return Precision::Bf16;
  if (t.starts_with("Float8")) return Precision::Fp8;
  if (t == "signed char" || t == "unsigned char" || t == "Char" || t == "Byte" || t == "int8")
    return Precision::Int8;
  return Precision::Unknown;
}

const char* precision_name(Precision p) {
  switch (p) {
    case Precision::Fp64:
      return "fp64";
    case Precision::Fp32:
      return "fp32";
    case Precision::Fp16:
      return "fp16";
    case Precision::Bf16:
      return "bf16";
    case Precision::Fp8:
      return "fp8";
    case Precision::Int8:
      return "int8";
    case Precision::Unknown:
      break;
  }
  return "unknown";
}

std::string_view first_tensor_type(const std::vector<std::string>& input_types) {
  for (const auto& t : input_types)
    if (precision_of(t) != Precision::Unknown) return t;
  return {};
}

std::string call_stack(const Profile& p, std::size_t event) {
  const HostEvent& e = p.host_events[event];
  if (StringId stack = p.details(e).call_stack; stack != kNoString) return std::string(p.str(stack));
  std::string out;
  int frames = 0;
  for (std::uint32_t a = e.parent; a != kNone && frames < 32; a = p.host_events[a].parent) {
    if (p.host_events[a].kind != HostKind::PythonFunction) continue;
    out += (out.empty() ? "" : ";") + std::string(p.str(p.host_events[a].name));
    ++frames;
  }
  return out;
}

std::string user_frame(std::string_view stack, const PatternSet& library_frames) {
  while (!stack.empty()) {
    std::size_t end = std::min(stack.find(';'), stack.size());
    std::string_view frame = stack.substr(0, end);
    if (!frame.empty() && !library_frames.matches(frame)) return std::string(frame);
    stack.remove_prefix(std::min(end + 1, stack.size()));
  }
  return "";
}

std::string module_path(const Profile& p, std::size_t event) {
  constexpr std::string_view kModule = "nn.Module: ";
  std::vector<std::string_view> modules;
  for (std::uint32_t a = p.host_events[event].parent; a != kNone; a = p.host_events[a].parent) {
    std::string_view name = p.str(p.host_events[a].name);
    if (p.host_events[a].kind == HostKind::PythonFunction && name.starts_with(kModule))
      modules.push_back(name.substr(kModule.size()));
  }
  std::string out;
  for (auto it = modules.rbegin(); it != modules.rend(); ++it)
    out += (out.empty() ? "" : ".") + std::string(*it);
  return out;
}

}  // namespace perfgate
