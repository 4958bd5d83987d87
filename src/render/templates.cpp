#include "render/templates.h"

#include <algorithm>
#include <array>
#include <map>
#include <stdexcept>

#include "assets/embedded_files.h"
#include "common/utf8.h"
#include "render/escape.h"
#include "render/format.h"

namespace perfgate {

std::string_view template_text(std::string_view name) {
  std::string_view text = embedded_file("templates/" + std::string(name));
  if (text.empty()) throw std::logic_error("template not built in: " + std::string(name));
  return text;
}

namespace {

// The entities kainjow::mustache::html_escape writes, and what a byte needs on its way into the
// page: nothing (most), one of the entities, or a look at the whole text (kCheck: a control
// character, or a byte of a UTF-8 sequence: visible_text may show or repair it).
constexpr std::array<std::string_view, 6> kEntities = {"", "&amp;", "&lt;", "&gt;", "&quot;", "&apos;"};
constexpr unsigned char kPlain = 0, kCheck = 0xFF;
constexpr std::array<unsigned char, 256> kByteNeeds = [] {
  std::array<unsigned char, 256> needs{};
  for (std::size_t byte = 0; byte < needs.size(); ++byte)
    if ((byte < 0x20 && byte != '\t' && byte != '\n') || byte >= 0x7F) needs[byte] = kCheck;
  needs['&'] = 1;
  needs['<'] = 2;
  needs['>'] = 3;
  needs['"'] = 4;
  needs['\''] = 5;
  return needs;
}();

unsigned char needs_of(char c) {
  return kByteNeeds[static_cast<unsigned char>(c)];
}

}  // namespace

// One pass over the text, appending a run of plain bytes at a time; a text visible_text would
// change (seldom) is escaped as it returns it, without the copy for the others.
void append_template_escaped(std::string& out, std::string_view text) {
  std::size_t start = out.size(), plain = 0;  // plain: start of the run not yet appended
  bool checked = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    unsigned char needs = needs_of(text[i]);
    if (needs == kPlain || (needs == kCheck && checked)) continue;
    if (needs == kCheck) {
      if (!shown_as_is(text)) {
        out.resize(start);
        append_template_escaped(out, visible_text(text));  // render/escape.h: one rule for HTML
        return;
      }
      checked = true;
      continue;
    }
    out.append(text.substr(plain, i - plain)).append(kEntities[needs]);
    plain = i + 1;
  }
  out.append(text.substr(plain));
}

std::string template_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  append_template_escaped(out, text);
  return out;
}

namespace {

// A template's text in the words of the report rendered (render/format.h), and its parse.
struct ParsedTemplate {
  std::string text;
  kainjow::mustache::mustache parsed;
};
using ParsedTemplates = std::map<std::string, ParsedTemplate, std::less<>>;

// templates/<name> parsed once per thread: a page renders table.html.mustache for each of its tables
// (21 on ResNet-50), and kainjow's parse costs about 200 instructions a byte. Parsed again where the
// words differ (a TPU's page after a GPU's on the same thread). Rendering leaves a parsed template as
// it was.
kainjow::mustache::mustache& parsed_template(ParsedTemplates& parsed, std::string_view name) {
  std::string text = words(template_text(name));
  auto it = parsed.find(name);
  if (it != parsed.end() && it->second.text != text) {
    parsed.erase(it);
    it = parsed.end();
  }
  if (it == parsed.end()) {
    kainjow::mustache::mustache tmpl(text);
    it = parsed.try_emplace(std::string(name), ParsedTemplate{std::move(text), std::move(tmpl)}).first;
  }
  if (!it->second.parsed.is_valid()) {
    std::string error = std::string(name) + ": " + it->second.parsed.error_message();
    parsed.erase(it);
    throw std::logic_error(error);
  }
  return it->second.parsed;
}

}  // namespace

std::string render_template(std::string_view name, const TemplateData& data, bool escape,
                            std::size_t size_hint) {
  thread_local ParsedTemplates parsed;
  kainjow::mustache::mustache& tmpl = parsed_template(parsed, name);
  if (!escape)
    tmpl.set_custom_escape([](const std::string& s) { return s; });
  else  // invalid UTF-8 and characters HTML forbids never reach the page
    tmpl.set_custom_escape([](const std::string& s) { return template_escape(s); });
  // Appended to one string: kainjow's own render(data) goes through a stringstream, copying the
  // page twice more.
  std::string out;
  out.reserve(template_text(name).size() + size_hint);
  tmpl.render(data, [&out](const std::string& text) { out += text; });
  if (!tmpl.is_valid()) {
    std::string error = std::string(name) + ": " + tmpl.error_message();
    parsed.erase(parsed.find(name));  // not kept with its error
    throw std::logic_error(error);
  }
  return out;
}

void set_moved(TemplateData& data, const std::string& key, TemplateData&& value) {
  data[key] = std::move(value);
}

TemplateData template_list() {
  return TemplateData{TemplateData::type::list};
}

TemplateData template_partial(std::string_view name) {
  std::string text = words(template_text(name));
  return TemplateData{kainjow::mustache::partial{[text]() { return text; }}};
}

}  // namespace perfgate
