// perfgate history trend DB: each gated metric's value per run, its band, and the change points
// where it moved (docs/trends.md).
#include <functional>
#include <iostream>
#include <memory>

#include <fmt/format.h>

#include "cli/commands.h"
#include "cli/number_checks.h"
#include "cli/outputs.h"
#include "common/errors.h"
#include "engine/front_end_support.h"
#include "engine/rule_book.h"
#include "history/history.h"
#include "io/io.h"
#include "render/render.h"
#include "report_model/trend.h"

namespace perfgate::cli {
namespace {

struct TrendArgs {
  std::string history;
  std::vector<std::string> rule_files;
  TrendSettings settings;
  std::string html;
  std::string markdown;
  std::string json;
  bool quiet = false;
};

// Each output atomically; one that cannot be written does not stop the others.
bool write_trend_outputs(const TrendReport& trend, const TrendArgs& a) {
  bool ok = true;
  auto attempt = [&](const std::string& path, const std::function<std::string()>& render) {
    if (path.empty()) return;
    try {
      write_file_atomically(path, render());
    } catch (const OutputError& e) {
      std::cerr << "perfgate: " << e.what() << '\n';
      ok = false;
    }
  };
  attempt(a.json, [&] { return render_trend_json(trend); });
  attempt(a.html, [&] { return render_trend_html(trend); });
  attempt(a.markdown, [&] { return render_trend_markdown(trend); });
  return ok;
}

int run_trend(TrendArgs a) {
  std::vector<GatedMetric> gated = gated_metrics_of(load_rule_book(a.rule_files));
  std::vector<std::string> inputs;
  if (!is_postgres_location(a.history)) inputs.push_back(a.history);
  std::vector<std::pair<std::string, std::string>> outputs;
  for (const auto& [option, path] : {std::pair{"--json", a.json}, {"--html", a.html}, {"--md", a.markdown}})
    if (!path.empty()) outputs.emplace_back(option, path);
  check_output_files(outputs, inputs);
  std::unique_ptr<HistoryStore> store = open_history(a.history, HistoryAccess::Read);
  HistoryQuery query;
  query.branch = a.settings.branch;
  query.last = a.settings.last;
  query.with_tables = false;
  std::vector<HistoryRun> runs = store->runs(query);
  a.settings.source = store->describe();
  TrendReport trend = build_trend(runs, gated, a.settings);
  bool written = write_trend_outputs(trend, a);
  if (!a.quiet) std::cout << render_trend_terminal(trend) << std::flush;
  return written ? kExitPass : kExitInput;
}

}  // namespace

std::function<int()> add_trend_command(CLI::App& history) {
  auto args = std::make_shared<TrendArgs>();
  CLI::App* cmd = history.add_subcommand(
      "trend",
      "Each gated metric per run, its band, and the change points where it moved (E-divisive means)");
  add_options_when_parsed(*cmd, [args](CLI::App& c) {  // cli/commands.h
    c.add_option("history", args->history,
                 "The run history: a SQLite file, or a PostgreSQL connection string")
        ->required()
        ->type_name("DB");
    TrendSettings& s = args->settings;
    c.add_option("--metric", s.metrics,
                 "A metric to show (catalog name); repeatable. Default: the metrics the rules' baseline "
                 "comparisons read")
        ->type_name("M");
    c.add_option("--branch", s.branch, "Only the runs of this branch (default: every branch)")
        ->type_name("B");
    c.add_option("--last", s.last, "The most recent N runs (default 100; 0: all)")->type_name("N");
    c.add_option("--html", args->html, "Write the trend page (one self-contained HTML file) to FILE")
        ->type_name("FILE");
    c.add_option("--md", args->markdown, "Write the trend as GitHub-flavoured Markdown to FILE")
        ->type_name("FILE");
    c.add_option("--json", args->json, "Write the change points and series as JSON to FILE")
        ->type_name("FILE");
    c.add_option("--rules", args->rule_files,
                 "Rule file whose baseline rules choose the default metrics and the band; repeatable")
        ->type_name("FILE");
    c.add_option("--band-runs", s.band_runs,
                 "The band is of the most recent N runs of each metric (default 10)")
        ->type_name("N")
        ->check(whole_number(1, 100000));
    c.add_option("--max-p", s.detection.max_p_value, "Largest p-value of a change point (default 0.01)")
        ->type_name("P")
        ->check(CLI::Range(0.0001, 0.5));
    c.add_option("--min-segment", s.detection.min_segment,
                 "Fewest runs between change points and at the ends (default 3)")
        ->type_name("N")
        ->check(whole_number(1, 1000));
    c.add_flag("-q,--quiet", args->quiet, "Print nothing on success");
  });
  return [args] { return run_trend(*args); };
}

}  // namespace perfgate::cli
