// Renderers: each turns the report model into one output format.
#pragma once

#include <cstdint>
#include <ctime>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "report_model/report.h"
#include "report_model/trend.h"

namespace perfgate {

std::string render_json(const ReportModel& report);
// The same text, handed to `write` a piece at a time (a large run's report is never held whole).
void write_json(const ReportModel& report, const std::function<void(std::string_view)>& write);

// HTML: one page, self-contained unless `external_assets` (then report.css and report.js go beside
// it, for servers whose Content-Security-Policy blocks inline style and script).
inline constexpr const char* kHtmlCssName = "report.css";
inline constexpr const char* kHtmlJsName = "report.js";
struct HtmlOptions {
  bool external_assets = false;
  std::size_t max_rows = 50;  // per table; the JSON and XLSX outputs have every row
  std::string timestamp;      // shown when not empty (--timestamp)
  // The annotated trace written beside the page (--annotated-trace), as a link from the page's
  // folder; empty: none. The page links it, says how to open it in ui.perfetto.dev, and where the
  // page is served offers the button that hands it to Perfetto.
  std::string annotated_trace;
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

// The XLSX workbook (libxlsxwriter), written atomically. Without `created` the document's creation
// time is fixed, so the same report gives the same bytes. Throws OutputError naming the path.
// `memory_budget`: the run's --max-memory (0: none). The library holds every cell on the C heap
// (120-180 B a cell), which the budget cannot spill: a workbook whose cells would take more than an
// eighth of it streams its rows to disk instead (constant_memory; strings inline, same cells).
struct XlsxOptions {
  std::optional<time_t> created;
  std::uint64_t memory_budget = 0;
};
void write_xlsx(const ReportModel& report, const std::string& path, const XlsxOptions& options = {});

// JUnit XML: a test case per rule; failures as the gate counts them (warnings too when
// `warnings_fail`, as with --fail-on warning).
std::string render_junit(const ReportModel& report, bool warnings_fail = false);

// GitHub Actions workflow commands (::error, ::warning, ::notice), at most ten per level.
std::string render_github_annotations(const ReportModel& report);

// GitLab: the Code Quality report (JSON) and the metrics report (OpenMetrics text).
inline constexpr const char* kGitlabCodeQualityName = "gl-code-quality-report.json";
inline constexpr const char* kGitlabMetricsName = "metrics.txt";
// `path`: the repository file the findings are put on (GitLab shows them there); empty: the first
// input's path.
std::string render_gitlab_code_quality(const ReportModel& report, std::string_view path = "");
std::string render_openmetrics(const ReportModel& report);

struct TerminalOptions {
  bool color = false;
  // Every section; false: the one-screen summary (issue 93: at most kSummaryLines lines of at most
  // kSummaryColumns columns): the verdict, the first findings' headlines, the headline numbers.
  bool verbose = true;
};
inline constexpr std::size_t kSummaryLines = 23;  // and two of the front end's (where the reports are)
inline constexpr std::size_t kSummaryColumns = 100;
// `text` cut to `columns` code points, "…" ending a cut one.
std::string cut_to_columns(std::string_view text, std::size_t columns);
std::string render_terminal(const ReportModel& report, const TerminalOptions& options = {});

// Renderers of a trend: JSON ({"change_points": [...], "series": {...}, ...}), one self-contained
// HTML page (inline CSS and SVG, no script), GitHub-flavoured Markdown, and a terminal summary.
std::string render_trend_json(const TrendReport& trend);
std::string render_trend_html(const TrendReport& trend);
std::string render_trend_markdown(const TrendReport& trend);
std::string render_trend_terminal(const TrendReport& trend);

}  // namespace perfgate
