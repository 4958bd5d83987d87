// Escaping for each output language. Every string that comes from a trace or a rule file goes
// through one of these on its way out.
#pragma once

#include <string>
#include <string_view>

namespace perfgate {

// The one escaping of HTML, SVG and XML text (issue #55): visible_text, then & < > " ' as
// entities. Every page, chart, tooltip and JUnit file writes a trace's or rule file's text so.
std::string html_escape(std::string_view s);
void append_html_escaped(std::string& out, std::string_view s);  // html_escape appended to `out`
std::string xml_escape(std::string_view s);                      // html_escape (JUnit)
// `s` as a reader should see it in a page or an XML file: control characters (C0 but line break
// and tab, DEL, C1), bidirectional controls and line or paragraph separators shown escaped as
// terminal_escape shows them (`\x1b`, `\u0085`, `\u202e`), a byte that is not UTF-8 as U+FFFD, and
// what XML 1.0 forbids besides (U+FFFE, U+FFFF) dropped. shown_as_is: whether it changes nothing.
std::string visible_text(std::string_view s);
bool shown_as_is(std::string_view s);
// The length of the run of printable ASCII (0x20 to 0x7E) that `s` starts with, read eight bytes at
// a time: nearly every text of a report is all of it, and has nothing to escape or repair.
std::size_t printable_ascii_prefix(std::string_view s);
// The code point of the 2- or 3-byte UTF-8 sequence at `i` (`n` bytes) when it is a bidirectional
// control or a line or paragraph separator; 0 otherwise.
char32_t invisible_format_character(std::string_view s, std::size_t i, std::size_t n);
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
