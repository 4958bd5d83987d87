#include "render/templates.h"

#include <algorithm>
#include <stdexcept>

#include "assets/embedded_files.h"
#include "common/utf8.h"

namespace perfgate {

std::string_view template_text(std::string_view name) {
  std::string_view text = embedded_file("templates/" + std::string(name));
  if (text.empty()) throw std::logic_error("template not built in: " + std::string(name));
  return text;
}

namespace {

bool printable_ascii(std::string_view text) {
  return std::all_of(text.begin(), text.end(), [](char c) { return c >= 0x20 && c < 0x7F; });
}

// kainjow::mustache::html_escape's entities, appended a run of plain characters at a time.
void append_html_escaped(std::string& out, std::string_view text) {
  std::size_t plain = 0;  // start of the run not yet appended
  for (std::size_t i = 0; i < text.size(); ++i) {
    std::string_view entity;
    switch (text[i]) {
      case '&':
        entity = "&amp;";
        break;
      case '<':
        entity = "&lt;";
        break;
      case '>':
        entity = "&gt;";
        break;
      case '"':
        entity = "&quot;";
        break;
      case '\'':
        entity = "&apos;";
        break;
      default:
        continue;
    }
    out.append(text.substr(plain, i - plain)).append(entity);
    plain = i + 1;
  }
  out.append(text.substr(plain));
}

}  // namespace

void append_template_escaped(std::string& out, std::string_view text) {
  // Printable ASCII (nearly every cell) has nothing xml_safe_text would drop or repair.
  if (printable_ascii(text))
    append_html_escaped(out, text);
  else
    append_html_escaped(out, xml_safe_text(text));
}

std::string template_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  append_template_escaped(out, text);
  return out;
}

std::string render_template(std::string_view name, const TemplateData& data, bool escape) {
  kainjow::mustache::mustache tmpl{std::string(template_text(name))};
  if (!tmpl.is_valid()) throw std::logic_error(std::string(name) + ": " + tmpl.error_message());
  if (!escape)
    tmpl.set_custom_escape([](const std::string& s) { return s; });
  else  // invalid UTF-8 and characters HTML forbids never reach the page
    tmpl.set_custom_escape([](const std::string& s) { return template_escape(s); });
  // Appended to one string: kainjow's own render(data) goes through a stringstream, copying the
  // page twice more.
  std::string out;
  tmpl.render(data, [&out](const std::string& text) { out += text; });
  if (!tmpl.is_valid()) throw std::logic_error(std::string(name) + ": " + tmpl.error_message());
  return out;
}

TemplateData template_list() {
  return TemplateData{TemplateData::type::list};
}

TemplateData template_partial(std::string_view name) {
  std::string text(template_text(name));
  return TemplateData{kainjow::mustache::partial{[text]() { return text; }}};
}

}  // namespace perfgate
