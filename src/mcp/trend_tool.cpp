// trend: a run history's series of metrics and their change points, as `perfgate history trend`
// computes them (build_trend), read only.
#include <fmt/format.h>

#include "common/errors.h"
#include "common/metrics.h"
#include "engine/front_end_support.h"
#include "engine/rule_book.h"
#include "history/history.h"
#include "mcp/session.h"
#include "mcp/tool_args.h"
#include "render/render.h"
#include "report_model/trend.h"

namespace perfgate::mcp {
namespace {

constexpr std::int64_t kMaxRuns = 1000;

// The oldest points of the longest series go first until the result fits kMaxResultBytes.
std::size_t fit_series(json::object& trend) {
  std::size_t dropped = 0;
  json::value* series = trend.if_contains("series");
  if (!series || !series->is_object()) return 0;
  while (json::serialize(trend).size() > kMaxResultBytes) {
    json::array* longest = nullptr;
    for (auto& [name, points] : series->get_object())
      if (points.is_array() && (!longest || points.get_array().size() > longest->size()))
        longest = &points.get_array();
    if (!longest || longest->size() <= 1) break;
    std::size_t cut = std::max<std::size_t>(1, longest->size() / 4);
    longest->erase(longest->begin(), longest->begin() + static_cast<std::ptrdiff_t>(cut));
    dropped += cut;
  }
  return dropped;
}

}  // namespace

ToolOutput trend_tool(Session& session, const json::object& raw) {
  ToolArgs args("trend", raw, {"history", "metric", "branch", "last", "rules"});
  std::string history = args.required_text("history");
  // Only files under the roots: a connection string would reach another machine.
  if (is_postgres_location(history))
    throw ConfigError("trend: a PostgreSQL history is not read through the MCP server; give a SQLite file");
  history = session.roots().check(history);
  std::vector<std::string> rule_files;
  for (const std::string& file : args.texts("rules", 16))
    rule_files.push_back(file == "default" || file == "tb-plugin" ? file : session.roots().check(file));
  TrendSettings settings;
  settings.metrics = args.texts("metric", 32);
  for (const std::string& m : settings.metrics)
    if (!metric_id(m))
      throw ConfigError(
          fmt::format("trend: no metric \"{}\" in the catalog (the metrics tool lists them)", m));
  settings.branch = args.text("branch").value_or("");
  settings.last = static_cast<std::size_t>(args.integer("last", 1, kMaxRuns).value_or(100));
  std::vector<GatedMetric> gated = gated_metrics_of(load_rule_book(rule_files));
  std::unique_ptr<HistoryStore> store = open_history(history, HistoryAccess::Read);
  HistoryQuery query;
  query.branch = settings.branch;
  query.last = settings.last;
  query.with_tables = false;
  std::vector<HistoryRun> runs = store->runs(query);
  settings.source = store->describe();
  json::object trend = json::parse(render_trend_json(build_trend(runs, gated, settings))).as_object();
  std::size_t dropped = fit_series(trend);
  trend["runs"] = runs.size();
  trend["points_not_shown"] = dropped;
  return trend;
}

}  // namespace perfgate::mcp
