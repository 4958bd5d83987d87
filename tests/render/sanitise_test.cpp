// Issue 13: names from a trace and text from a rule file cannot inject terminal escape sequences,
// GitHub Actions workflow commands or @mentions through the terminal, --github and Markdown outputs.
#include <gtest/gtest.h>

#include "gate/gate.h"
#include "render/escape.h"
#include "render/render.h"
#include "support/helpers.h"

namespace perfgate::testing {
namespace {

constexpr const char* kInjectedOp = "aten::mm\n::error title=x::pwned";
constexpr const char* kColouredKernel = "\x1b[31mred\x1b[0m_kernel";

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

// Every line of `text` that a GitHub runner would take as a workflow command: after optional
// blanks, "::".
std::size_t command_lines(const std::string& text) {
  std::size_t n = 0, start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    std::string line = text.substr(start, end == std::string::npos ? std::string::npos : end - start);
    std::size_t first = line.find_first_not_of(" \t");
    if (first != std::string::npos && line.compare(first, 2, "::") == 0) ++n;
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return n;
}

ReportModel injected_report() {
  TraceBuilder t;
  for (int i = 0; i < 3; ++i) {
    double s = 1000.0 * i;
    t.step(i + 1, s, 900);
    t.op(kInjectedOp, s + 10, 100, 10 + i);
    t.launch(kColouredKernel, s + 20, s + 30, 500, 10 + i);
  }
  std::string rules = write_text(temp_dir() + "/mention.yaml", R"YAML(
rules:
  - id: mention.rule
    title: "ping @octocat and @org/team"
    metric: gpu.utilization_pct
    better: higher
    fail: 101
    problem: "::warning::forged"
    recommendation: "ask @octocat \u001b[2J"
)YAML");
  RuleBook set_book = load_rule_book({rules});
  RuleSet& set = set_book.rules;
  ReportModel report = report_of_json(t.json(), set_book);
  apply_gate(report, set, nullptr, {});
  return report;
}

TEST(Sanitise, TerminalShowsControlCharactersEscapedAndStartsNoWorkflowCommand) {
  std::string s = render_terminal(injected_report(), TerminalOptions{false});
  EXPECT_EQ(s.find('\x1b'), std::string::npos) << s;
  EXPECT_EQ(command_lines(s), 0u) << s;
  EXPECT_TRUE(contains(s, "aten::mm\\n::error title=x::pwned")) << s;
  EXPECT_TRUE(contains(s, "\\::warning::forged")) << s;  // a rule text line starting with ::
  EXPECT_TRUE(contains(s, "ask @octocat \\x1b[2J")) << s;
}

TEST(Sanitise, GithubAnnotationsCarryNoRawControlCharacters) {
  std::string s = render_github_annotations(injected_report());
  EXPECT_EQ(s.find('\x1b'), std::string::npos) << s;
  // Every line is one of perfgate's own commands; nothing forged starts a line.
  std::size_t own = 0;
  for (const char* level : {"::error title=", "::warning title=", "::notice title="})
    for (std::size_t at = s.find(level); at != std::string::npos; at = s.find(level, at + 1))
      own += at == 0 || s[at - 1] == '\n';
  EXPECT_EQ(command_lines(s), own) << s;
  EXPECT_GE(own, 2u);
  EXPECT_TRUE(contains(s, "%0A::warning::forged")) << s;  // inside the message, not a line
  EXPECT_TRUE(contains(s, "\\x1b[2J")) << s;
}

TEST(Sanitise, MarkdownBreaksMentionsAndControlCharacters) {
  for (bool pr_comment : {false, true}) {
    MarkdownOptions options;
    options.compact = pr_comment;
    if (pr_comment) options.budget_bytes = kPrCommentBudget;
    std::string md = render_markdown(injected_report(), options);
    EXPECT_EQ(md.find('\x1b'), std::string::npos);
    EXPECT_FALSE(contains(md, "@octocat")) << md;
    EXPECT_FALSE(contains(md, "@org/team")) << md;
    EXPECT_TRUE(contains(md, "@\u200boctocat")) << md;
  }
}

// Issue #44, item 9: a right-to-left override (U+202E), the other bidirectional controls and the
// line and paragraph separators (U+2028, U+2029) from a trace's names reach neither the terminal
// nor the Markdown report (nor the PR comment) raw: they are shown as \u202e and so on.
TEST(Sanitise, BidirectionalControlsAndSeparatorsAreShownEscaped) {
  const std::string rlo = "\u202e", ls = "\u2028", ps = "\u2029", lri = "\u2066";
  TraceBuilder t;
  for (int i = 0; i < 3; ++i) {
    double s = 1000.0 * i;
    t.step(i + 1, s, 900);
    std::string name = "gemm" + rlo + "txt.exe" + ls + "x" + ps + lri;
    t.op(name, s + 10, 100, 10 + i);
    t.launch(name, s + 20, s + 30, 500, 10 + i);
  }
  ReportModel report = report_of_json(t.json(), default_book());
  MarkdownOptions comment;
  comment.compact = true;
  comment.budget_bytes = kPrCommentBudget;
  for (const std::string& out : {render_terminal(report, TerminalOptions{false}), render_markdown(report, {}),
                                 render_markdown(report, comment)}) {
    for (const std::string& raw : {rlo, ls, ps, lri}) EXPECT_FALSE(contains(out, raw)) << out;
  }
  EXPECT_TRUE(contains(render_markdown(report, {}), "gemm\\\\u202etxt.exe")) << render_markdown(report, {});
  EXPECT_EQ(terminal_escape("a" + rlo + "b" + ls + "c\u200fd\u061ce"), "a\\u202eb\\u2028c\\u200fd\\u061ce");
  EXPECT_EQ(terminal_escape("é — “quoted” ✓"), "é — “quoted” ✓");  // other characters stay
}

// Issue 55, item 10: one escaping routine per output kind. HTML SVG <text> and <title> (charts,
// timeline and critical-path tooltips, trend labels) kept ESC, BEL, U+0085 and U+202E raw, and
// JUnit and GitLab Code Quality kept U+202E and U+2028. Every output of one report whose op, kernel
// and rule texts hold all five is scanned: none may carry one raw.
TEST(Sanitise, NoOutputCarriesRawControlCharacters) {
  const std::string hidden = "\x1b[2J\x07\xc2\x85\u202e\u2028";
  TraceBuilder t;
  for (int i = 0; i < 3; ++i) {
    double s = 1000.0 * i;
    t.step(i + 1, s, 900);
    t.op("aten::mm" + hidden, s + 10, 100, 10 + i);
    t.launch("gemm" + hidden, s + 20, s + 30, 500, 10 + i);
  }
  std::string rules = write_text(temp_dir() + "/hidden.yaml", R"YAML(
rules:
  - id: hidden.rule
    title: "title \e \a \x85 \u202e \u2028 end"
    metric: gpu.utilization_pct
    better: higher
    fail: 101
    problem: "problem \e \a \x85 \u202e \u2028 end"
)YAML");
  RuleBook set_book = load_rule_book({rules});
  RuleSet& set = set_book.rules;
  ReportModel report = report_of_json(t.json(), set_book);
  apply_gate(report, set, nullptr, {});
  std::vector<std::pair<std::string, std::string>> outputs = {
      {"json", render_json(report)},
      {"html", render_html(report).page},
      {"junit", render_junit(report)},
      {"gitlab", render_gitlab_code_quality(report)},
      {"markdown", render_markdown(report, {})},
      {"terminal", render_terminal(report, TerminalOptions{false})},
      {"github", render_github_annotations(report)}};
  for (const auto& [kind, out] : outputs) {
    ASSERT_TRUE(contains(out, "aten::mm") || contains(out, "hidden.rule")) << kind;
    for (const std::string raw : {"\x1b", "\x07", "\xc2\x85", "\u202e", "\u2028"})
      EXPECT_FALSE(contains(out, raw)) << kind << " carries " << terminal_escape(raw);
  }
  // The JSON keeps the exact string for a reader, written with escapes.
  EXPECT_TRUE(contains(outputs[0].second, R"(aten::mm\u001b[2J\u0007\u0085\u202e\u2028)"))
      << outputs[0].second;
  EXPECT_TRUE(contains(outputs[1].second, R"(aten::mm\x1b[2J\x07\u0085\u202e\u2028)"));
  EXPECT_TRUE(contains(outputs[2].second, R"(problem \x1b \x07 \u0085 \u202e \u2028 end)"))
      << outputs[2].second;
  EXPECT_TRUE(contains(outputs[3].second, R"(problem \u001b \u0007 \u0085 \u202e \u2028 end)"))
      << outputs[3].second;
}

TEST(Sanitise, EscapeFunctions) {
  EXPECT_EQ(terminal_escape("a\tb\r\n\x7f\x01\xc2\x9b[1m é"), "a\\tb\\r\\n\\x7f\\x01\\u009b[1m é");
  EXPECT_EQ(neutralise_workflow_commands("ok\n  ::set-output name=x::y\n::\n"),
            "ok\n  \\::set-output name=x::y\n\\::\n");
  EXPECT_EQ(log_text("rules.yaml:1:2: error: bad\n::error::x\x1b"),
            "rules.yaml:1:2: error: bad\n\\::error::x\\x1b");
  // Pages, SVG and XML (issue 55): controls shown as the terminal shows them, line breaks and tabs
  // kept, a byte that is not UTF-8 as U+FFFD, U+FFFF dropped, then the entities.
  EXPECT_EQ(html_escape("a\x1b\x07\xc2\x85\u202e\u2028<b>\n\t\r&\xff\xef\xbf\xbf"),
            "a\\x1b\\x07\\u0085\\u202e\\u2028&lt;b&gt;\n\t\\r&amp;\xef\xbf\xbd");
  EXPECT_EQ(xml_escape("x\u2029\x01\"'"), "x\\u2029\\x01&quot;&#39;");
  EXPECT_EQ(html_escape("é — “quoted” ✓"), "é — “quoted” ✓");
}

// The run of printable ASCII a text starts with, read eight bytes at a time: each byte outside
// 0x20..0x7E ends it, wherever it falls in a word of eight, and the run ends with the text.
TEST(Sanitise, PrintableAsciiPrefixStopsAtTheFirstOtherByte) {
  EXPECT_EQ(printable_ascii_prefix(""), 0u);
  EXPECT_EQ(printable_ascii_prefix(" ~ aten::conv2d ~ "), 18u);
  const std::string plain = "0123456789abcdefghij";
  for (char other : {'\x1f', '\x7f', '\n', '\t', '\x80', '\xc3', '\xff', '\0'})
    for (std::size_t at = 0; at < plain.size(); ++at) {
      std::string text = plain;
      text[at] = other;
      EXPECT_EQ(printable_ascii_prefix(text), at) << static_cast<int>(other) << " at " << at;
    }
  for (char edge : {' ', '~'}) EXPECT_EQ(printable_ascii_prefix(std::string(17, edge)), 17u);
  EXPECT_TRUE(shown_as_is("0123456789\tabcdefghij\n"));
  EXPECT_FALSE(shown_as_is("0123456789abcdef\x1b[1m"));
}

}  // namespace
}  // namespace perfgate::testing
