// Renderers: each turns the report model into one output format.
#pragma once

#include <string>

#include "perfgate/report.h"

namespace perfgate {

std::string render_json(const ReportModel& report);

// HTML: one page, self-contained unless `external_assets` (then report.css and report.js go beside
// it, for servers whose Content-Security-Policy blocks inline style and script).
inline constexpr const char* kHtmlCssName = "report.css";
inline constexpr const char* kHtmlJsName = "report.js";
struct HtmlOptions {
  bool external_assets = false;
  std::size_t max_rows = 50;  // per table; the JSON and XLSX outputs have every row
  std::string timestamp;      // shown when not empty (--timestamp)
};
struct HtmlOutput {
  std::string page;
  std::string css;  // the page's style sheet and script, for external assets
  std::string js;
};
HtmlOutput render_html(const ReportModel& report, const HtmlOptions& options = {});

// GitHub-flavoured Markdown: the verdict, key metrics (with the baseline), findings, top ops and
// collapsed tables; fewer rows and findings until it fits `budget_bytes`. `compact` is the pull-
// request comment: no collapsed tables.
inline constexpr std::size_t kJobSummaryBudget = 1024 * 1024;  // GitHub's step summary limit
inline constexpr std::size_t kPrCommentBudget = 60000;         // under GitHub's 65,536-character comments
struct MarkdownOptions {
  bool compact = false;
  std::size_t budget_bytes = kJobSummaryBudget;
};
std::string render_markdown(const ReportModel& report, const MarkdownOptions& options = {});

struct TerminalOptions {
  bool color = false;
};
std::string render_terminal(const ReportModel& report, const TerminalOptions& options = {});

// Writes `content` to `path` through a temporary file in the same folder and a rename, so a
// reader never sees half a file. Throws OutputError naming the path.
void write_file_atomically(const std::string& path, const std::string& content);

}  // namespace perfgate
