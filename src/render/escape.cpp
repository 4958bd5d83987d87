#include "render/escape.h"

#include <array>
#include <cstdint>

#include <fmt/format.h>

#include "common/utf8.h"
#include "render/byte_scan.h"

namespace perfgate {

// The code point of the 2- or 3-byte UTF-8 sequence at `i` when it is a bidirectional control
// (U+061C, U+200E, U+200F, U+202A..U+202E, U+2066..U+2069: they reorder what a reader sees, e.g.
// a right-to-left override) or a line or paragraph separator (U+2028, U+2029: a line break to some
// viewers); 0 otherwise.
char32_t invisible_format_character(std::string_view s, std::size_t i, std::size_t n) {
  auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[i + k]); };
  char32_t cp = 0;
  if (n == 2) cp = (char32_t{b(0)} & 0x1F) << 6 | (char32_t{b(1)} & 0x3F);
  if (n == 3) cp = (char32_t{b(0)} & 0x0F) << 12 | (char32_t{b(1)} & 0x3F) << 6 | (char32_t{b(2)} & 0x3F);
  bool hidden = cp == 0x061C || cp == 0x200E || cp == 0x200F || (cp >= 0x2028 && cp <= 0x202E) ||
                (cp >= 0x2066 && cp <= 0x2069);
  return hidden ? cp : 0;
}

std::string html_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  append_html_escaped(out, text);
  return out;
}

namespace {

// The entity html_escape writes for a byte, "" for most.
constexpr std::array<std::string_view, 256> kHtmlEntities = [] {
  std::array<std::string_view, 256> entities{};
  entities['&'] = "&amp;";
  entities['<'] = "&lt;";
  entities['>'] = "&gt;";
  entities['"'] = "&quot;";
  entities['\''] = "&#39;";
  return entities;
}();

}  // namespace

void append_html_escaped(std::string& out, std::string_view text) {
  std::string shown = shown_as_is(text) ? std::string() : visible_text(text);
  std::string_view s = shown.empty() ? text : std::string_view(shown);
  std::size_t plain = 0;  // start of the run of characters not yet appended
  for (std::size_t i = 0; i < s.size(); ++i) {
    std::string_view entity = kHtmlEntities[static_cast<unsigned char>(s[i])];
    if (entity.empty()) continue;
    out.append(s.substr(plain, i - plain)).append(entity);
    plain = i + 1;
  }
  out.append(s.substr(plain));
}

std::string xml_escape(std::string_view s) {
  return html_escape(s);  // html_escape shows or drops every character XML 1.0 forbids
}

std::string script_json_escape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  // "<" as \u003c inside JSON strings keeps "</script>" and "<!--" from ending the element.
  std::size_t plain = 0;  // start of the run not yet appended
  for (std::size_t lt = s.find('<'); lt != std::string_view::npos; lt = s.find('<', plain)) {
    out.append(s.substr(plain, lt - plain)).append("\\u003c");
    plain = lt + 1;
  }
  out.append(s.substr(plain));
  return out;
}

namespace {

// "\\n", "\\x1b", "\\u009b" for control character `c` (C1 when `c1` is true), empty when `c` is
// printable.
std::string control_text(unsigned char c, bool c1) {
  if (c1) return fmt::format("\\u{:04x}", c);
  switch (c) {
    case '\n':
      return "\\n";
    case '\r':
      return "\\r";
    case '\t':
      return "\\t";
    default:
      return c < 0x20 || c == 0x7f ? fmt::format("\\x{:02x}", c) : std::string();
  }
}

// Appends `s` with control characters escaped; `keep` lists the C0 controls left as they are.
void append_escaped(std::string& out, std::string_view s, std::string_view keep) {
  for (std::size_t i = 0; i < s.size();) {
    std::size_t n = utf8_sequence(s, i);
    if (n == 0) {
      out += "\xEF\xBF\xBD";  // U+FFFD for a byte that is not valid UTF-8
      ++i;
      continue;
    }
    auto u = static_cast<unsigned char>(s[i]);
    // C1 controls (U+0080..U+009F) are the bytes C2 80..C2 9F in UTF-8; a terminal may read U+009B
    // as CSI, the start of an escape sequence.
    bool c1 = n == 2 && u == 0xC2 && static_cast<unsigned char>(s[i + 1]) <= 0x9F;
    std::string text;
    if (c1)
      text = control_text(static_cast<unsigned char>(s[i + 1]), true);
    else if (n == 1 && keep.find(static_cast<char>(u)) == std::string_view::npos)
      text = control_text(u, false);
    else if (char32_t cp = n > 1 ? invisible_format_character(s, i, n) : 0)
      text = fmt::format("\\u{:04x}", static_cast<std::uint32_t>(cp));
    out += text.empty() ? s.substr(i, n) : std::string_view(text);
    i += n;
  }
}

}  // namespace

std::size_t printable_ascii_prefix(std::string_view s) {
  using namespace byte_scan;
  return first_flagged(
      s, 0, [](std::uint64_t w) { return bytes_from_0x80(w) | bytes_below(w, 0x20) | bytes_equal(w, 0x7F); });
}

bool shown_as_is(std::string_view s) {
  for (std::size_t i = printable_ascii_prefix(s); i < s.size();) {
    auto u = static_cast<unsigned char>(s[i]);
    if (u >= 0x20 && u < 0x7f) {
      ++i;
      continue;
    }
    if (u == '\n' || u == '\t') {
      ++i;
      continue;
    }
    std::size_t n = utf8_sequence(s, i);
    if (n <= 1) return false;  // a control character, or a byte that is not UTF-8
    if (n == 2 && u == 0xC2 && static_cast<unsigned char>(s[i + 1]) <= 0x9F) return false;  // C1
    if (invisible_format_character(s, i, n)) return false;
    if (n == 3 && u == 0xEF && static_cast<unsigned char>(s[i + 1]) == 0xBF &&
        static_cast<unsigned char>(s[i + 2]) >= 0xBE)
      return false;  // U+FFFE, U+FFFF: not characters, and XML forbids them
    i += n;
  }
  return true;
}

namespace {

std::string escaped(std::string_view s, std::string_view keep) {
  std::string out;
  out.reserve(s.size());
  append_escaped(out, s, keep);
  return out;
}

}  // namespace

std::string visible_text(std::string_view s) {
  return xml_safe_text(escaped(s, "\n\t"));
}

std::string terminal_escape(std::string_view s) {
  return escaped(s, "");
}

std::string neutralise_workflow_commands(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    std::string_view line = text.substr(start, end == std::string_view::npos ? end : end - start + 1);
    std::size_t first = line.find_first_not_of(" \t");
    if (first != std::string_view::npos && line.substr(first, 2) == "::") {
      out += line.substr(0, first);
      out += '\\';
      out += line.substr(first);
    } else {
      out += line;
    }
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  return out;
}

std::string log_text(std::string_view message) {
  return neutralise_workflow_commands(escaped(message, "\n"));
}

std::string markdown_escape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  std::string clean;
  append_escaped(clean, s, "\n");
  for (char c : clean) {
    switch (c) {
      case '@':
        out += "@\u200b";
        break;
      case '\\':
      case '|':
      case '`':
      case '*':
      case '_':
      case '[':
      case ']':
      case '#':
        out += '\\';
        out += c;
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '&':
        out += "&amp;";
        break;
      case '\n':
      case '\r':
        out += ' ';
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string github_data_escape(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '%')
      out += "%25";
    else if (c == '\r')
      out += "%0D";
    else if (c == '\n')
      out += "%0A";
    else
      out += c;
  }
  return out;
}

std::string github_property_escape(std::string_view s) {
  std::string out;
  for (char c : github_data_escape(s)) {
    if (c == ':')
      out += "%3A";
    else if (c == ',')
      out += "%2C";
    else
      out += c;
  }
  return out;
}

}  // namespace perfgate
