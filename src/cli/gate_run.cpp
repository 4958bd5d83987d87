#include "cli/gate_run.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <memory>
#include <vector>

#include <fmt/format.h>

#include "cli/commands.h"
#include "cli/progress.h"
#include "cli/request_flags.h"
#include "common/errors.h"
#include "render/escape.h"
#include "render/render.h"

namespace perfgate::cli {
namespace {

bool use_color(const GateArgs& a) {
  if (a.no_color || std::getenv("NO_COLOR")) return false;
  const char* term = std::getenv("TERM");
  return ::isatty(STDOUT_FILENO) == 1 && term && std::string_view(term) != "dumb";
}

// The reports written, "out/: report.json, report.html" where they share a folder, else each path;
// empty where none.
std::string outputs_line(const OutputArgs& o) {
  std::vector<std::filesystem::path> paths;
  for (const std::string* path :
       {&o.json, &o.html, &o.markdown, &o.pr_comment, &o.xlsx, &o.junit, &o.gitlab, &o.annotated_trace.path})
    if (!path->empty()) paths.emplace_back(*path);
  if (paths.empty()) return "";
  bool shared = paths.size() > 1 && paths.front().has_parent_path();
  for (const auto& p : paths) shared = shared && p.parent_path() == paths.front().parent_path();
  std::string out = shared ? paths.front().parent_path().string() + "/: " : "";
  for (std::size_t i = 0; i < paths.size(); ++i)
    out += (i ? ", " : "") + (shared ? paths[i].filename().string() : paths[i].string());
  return out;
}

// "Reports      out/: ..." in at most two lines of kSummaryColumns, broken after a comma.
std::string reports_lines(const std::string& reports) {
  std::string first = fmt::format("{:<13}{}", "Reports", reports);
  std::string fits = cut_to_columns(first, kSummaryColumns);
  if (fits == first) return first + "\n";
  std::size_t comma = fits.rfind(", ");
  if (comma == std::string::npos || comma < 13) return fits + "\n";
  return first.substr(0, comma + 1) + "\n" +
         cut_to_columns(fmt::format("{:<13}{}", "", first.substr(comma + 2)), kSummaryColumns) + "\n";
}

}  // namespace

void add_gate_options(CLI::App& cmd, GateArgs& args, unsigned shown_by) {
  add_output_options(cmd, args.outputs);
  add_request_flags(cmd, args.settings, shown_by);
  // --history and --record go together; --branch and --commit label a recorded run. --label also
  // names the GitLab Code Quality path, so it needs no --record.
  CLI::Option* history = cmd.get_option("--history");
  CLI::Option* record = cmd.get_option("--record");
  record->needs(history);
  history->needs(record);
  for (const char* name : {"--branch", "--commit"}) cmd.get_option(name)->needs(record);
  add_options_apart(cmd, [&args](CLI::App& c) {  // cli/commands.h
    c.add_flag("-q,--quiet", args.quiet, "Print nothing on success");
    c.add_flag(
        "--verbose", args.verbose,
        "Every section in the terminal summary (default: one screen, the verdict, the first findings and "
        "the headline numbers)");
    c.add_flag("--no-progress", args.no_progress, "No progress line on stderr");
    c.add_flag("--no-color", args.no_color, "No colour in the terminal summary (also: NO_COLOR)");
  });
}

RunRequest run_request(const GateArgs& a, RunInputKind kind, std::vector<std::string> paths) {
  RunRequest request;
  request.kind = kind;
  request.paths = std::move(paths);
  apply_settings(a.settings, request);  // a malformed limit or --label is a usage error before any work
  auto progress = std::make_shared<ProgressLine>(!a.no_progress && stderr_is_terminal());
  request.progress = [progress](std::uint64_t done, std::uint64_t total) {
    if (total >= kProgressMinBytes) progress->update(done, total);
  };
  request.on_loaded = [progress] { progress->finish(); };
  // A file of the run left out is said on stderr whatever the verbosity: -q prints nothing else,
  // and a gate that passes on fewer ranks than were given must not do so silently.
  request.on_input_warning = [said = a.said_on_stderr](const Note& w) {
    std::cerr << "perfgate: warning: " << log_text(note_text(w)) << '\n';
    said->push_back(w);
  };
  return request;
}

void finish_memory_budget(const GateArgs& a, const MemoryBudget& budget) {
  SpillSummary summary = spill_summary(budget);
  if (!summary.text.empty() && (summary.warning || !a.quiet)) std::cerr << log_text(summary.text) << '\n';
}

int gate_and_write(const GateArgs& a, const PreparedRun& run) {
  check_output_paths(a.outputs, run.reads, run.request.resolved.get());
  GatedRun gated = run_gated(run);
  stop_if_unbounded(run.request.limits.memory);  // no report written past a budget that did not hold
  const ReportModel& report = gated.report;
  const RunLabels& labels = run.request.history.labels;
  OutputArgs outputs = a.outputs;
  outputs.warnings_fail = run.request.gate.fail_on == FailOn::Warning;
  outputs.memory_budget = run.request.limits.memory.bytes;
  if (outputs.gitlab_path.empty()) outputs.gitlab_path = default_gitlab_path(labels, run.profiles);
  if (!outputs.annotated_trace.path.empty())
    outputs.write_annotated_trace = [&run, &report, &outputs] {
      return write_annotated_trace(run, report, outputs.annotated_trace);
    };
  bool written = write_outputs(report, outputs, output_threads(run.request.limits.threads));
  if (!a.quiet) {
    std::cout << render_terminal(report, TerminalOptions{.color = use_color(a), .verbose = a.verbose});
    // Where the rest is: the summary's last line.
    if (std::string reports = outputs_line(a.outputs); !a.verbose && !reports.empty())
      std::cout << reports_lines(terminal_escape(reports));
    std::cout << std::flush;
  }
  // Under -q the run's integrity is still said (a rank twice is counted twice by the metrics), once:
  // an input warning was said as the run loaded.
  if (a.quiet)
    for (const Note& warning : report.run_warnings)
      if (std::ranges::find(*a.said_on_stderr, warning) == a.said_on_stderr->end())
        std::cerr << log_text("perfgate: warning: " + note_text(warning)) << '\n' << std::flush;
  // Recorded whatever the verdict: a history keeps every run, and the gate reads a branch's.
  bool recorded = true;
  if (run.request.history.record) {
    try {
      record_run(report, run.request.history);
    } catch (const RecordError& e) {
      std::cerr << "perfgate: " << e.what() << '\n';
      recorded = false;
    }
  }
  return written && recorded ? report.verdict->exit_code : kExitInput;
}

}  // namespace perfgate::cli
