// The Mustache templates of templates/ (kainjow-mustache), built into the binary.
#pragma once

#include <kainjow/mustache.hpp>

#include <string>
#include <string_view>

namespace perfgate {

using TemplateData = kainjow::mustache::data;

// The text of templates/<name>; throws std::logic_error when it is not built in.
std::string_view template_text(std::string_view name);

// Renders templates/<name> with `data`. Values are HTML-escaped unless `escape` is false (the
// Markdown renderer escapes its own values). Throws std::logic_error for a template error.
// `size_hint`: about the bytes the values add (their big pieces), reserved up front with the
// template's own: a page of a megabyte would otherwise grow by copying itself.
std::string render_template(std::string_view name, const TemplateData& data, bool escape = true,
                            std::size_t size_hint = 0);

// How render_template escapes a value: characters XML forbids dropped, then & < > " ' as entities.
// For markup written in code that goes into a template unescaped ({{{...}}}).
std::string template_escape(std::string_view text);
// template_escape appended to `out`, for markup written straight into one string.
void append_template_escaped(std::string& out, std::string_view text);

// `data` (an object) given `value` as `key` without a copy of it: set() copies a list or object
// whole, and the page's tables are lists of their HTML.
void set_moved(TemplateData& data, const std::string& key, TemplateData&& value);

// A list, and a partial (another template by name) for use as data.
TemplateData template_list();
TemplateData template_partial(std::string_view name);

}  // namespace perfgate
