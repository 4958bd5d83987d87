// Escaping for each output language. Every string that comes from a trace or a rule file goes
// through one of these on its way out.
#pragma once

#include <string>
#include <string_view>

namespace perfgate {

std::string html_escape(std::string_view s);         // & < > " ' (also fit for XML and SVG text)
std::string xml_escape(std::string_view s);          // html_escape, and characters XML 1.0 forbids dropped
std::string script_json_escape(std::string_view s);  // JSON inside <script>: "</" and "<!--" defused
std::string markdown_escape(std::string_view s);     // GitHub-flavoured Markdown text and table cells
std::string github_data_escape(std::string_view s);  // workflow command message: % CR LF
std::string github_property_escape(std::string_view s);  // workflow command property: also : and ,

}  // namespace perfgate
