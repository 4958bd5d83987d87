// analyze's and compare's answer: a report in a few kilobytes (kSummaryBudgetBytes), read from its
// JSON report so that every number is the CLI's: the verdict, the headline metrics, the findings
// that did not pass with their evidence and gains, and, against a baseline, what changed.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "common/metrics.h"
#include "mcp/session.h"

namespace perfgate::mcp {

// The metrics the summary shows (when the run has them): the terminal summary's headline numbers.
std::span<const Metric> headline_metrics();

ToolOutput report_summary(const StoredReport& report, bool comparison);

// A string cut to at most `max` bytes (at a UTF-8 boundary), "…" marking the cut.
std::string cut_text(std::string_view text, std::size_t max);

// The rows of a report table as objects keyed by column name.
json::object row_object(const json::array& columns, const json::array& row);

// A table of the report: run-wide first (unless `worker` is given), else the first worker's (or the
// named worker's) that has it. ConfigError when there is none.
struct FoundTable {
  const json::object* table = nullptr;  // {title, columns, rows}
  std::string worker;                   // empty: a run-wide table
};
FoundTable find_table(const json::object& doc, const std::string& name,
                      const std::optional<std::string>& worker);

}  // namespace perfgate::mcp
