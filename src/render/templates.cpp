#include "render/templates.h"

#include <stdexcept>

#include "assets/embedded_files.h"
#include "common/utf8.h"

namespace perfgate {

std::string_view template_text(std::string_view name) {
  std::string_view text = embedded_file("templates/" + std::string(name));
  if (text.empty()) throw std::logic_error("template not built in: " + std::string(name));
  return text;
}

std::string template_escape(std::string_view text) {
  return kainjow::mustache::html_escape<std::string>(xml_safe_text(text));
}

std::string render_template(std::string_view name, const TemplateData& data, bool escape) {
  kainjow::mustache::mustache tmpl{std::string(template_text(name))};
  if (!tmpl.is_valid()) throw std::logic_error(std::string(name) + ": " + tmpl.error_message());
  if (!escape)
    tmpl.set_custom_escape([](const std::string& s) { return s; });
  else  // invalid UTF-8 and characters HTML forbids never reach the page
    tmpl.set_custom_escape([](const std::string& s) { return template_escape(s); });
  std::string out = tmpl.render(data);
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
