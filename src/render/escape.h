// Escaping for each output language. Every string that comes from a trace or a rule file goes
// through one of these on its way out.
#pragma once

#include <string>
#include <string_view>

namespace perfgate {

std::string html_escape(std::string_view s);                     // & < > " ' (also fit for XML and SVG text)
void append_html_escaped(std::string& out, std::string_view s);  // html_escape appended to `out`
std::string xml_escape(std::string_view s);          // html_escape, and characters XML 1.0 forbids dropped
std::string script_json_escape(std::string_view s);  // JSON inside <script>: "</" and "<!--" defused
// GitHub-flavoured Markdown text and table cells; control characters shown escaped, and `@` followed
// by a zero-width space so that `@user` or `@org/team` notifies nobody.
std::string markdown_escape(std::string_view s);
std::string github_data_escape(std::string_view s);      // workflow command message: % CR LF
std::string github_property_escape(std::string_view s);  // workflow command property: also : and ,

// Text from a trace or a rule file on its way to a terminal or a CI log: control characters
// (C0, DEL, and C1 as UTF-8) shown escaped (`\n`, `\t`, `\r`, `\x1b`, `\u009b`), so that no
// escape sequence reaches the terminal and no line break can start a workflow command; also the
// bidirectional controls and the line and paragraph separators (`\u202e`, `\u2028`), which would
// reorder or break what the reader sees (markdown_escape too).
std::string terminal_escape(std::string_view s);
// Whole output for a terminal or CI log (stdout/stderr are parsed by GitHub Actions): a line whose
// first non-blank characters are `::` would be taken as a workflow command; it gets a `\` before.
std::string neutralise_workflow_commands(std::string_view text);
// A message for stderr (it may quote a trace or rule file): terminal_escape but line breaks kept,
// then neutralise_workflow_commands.
std::string log_text(std::string_view message);

}  // namespace perfgate
