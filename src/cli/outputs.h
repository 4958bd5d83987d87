// The report files one run writes: JSON, HTML, Markdown, XLSX, JUnit, GitHub and GitLab outputs.
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "cli/annotated_trace.h"
#include "history/history.h"
#include "render/render.h"
#include "report_model/report.h"

namespace perfgate {
struct ResolvedInputs;
}  // namespace perfgate

namespace perfgate::cli {

struct OutputArgs {
  std::string json;
  std::string html;
  std::string html_assets = "inline";
  std::size_t html_rows = 50;
  std::string markdown;
  std::size_t markdown_budget = kJobSummaryBudget;
  std::string pr_comment;
  std::string xlsx;
  std::string junit;
  bool github = false;
  std::string gitlab;          // a folder
  std::string gitlab_path;     // the Code Quality entries' location.path; empty: default_gitlab_path
  bool warnings_fail = false;  // --fail-on warning, for the JUnit failures
  bool timestamp = false;
  // The run's memory budget in bytes (its request's RunLimits::memory; 0: none): the workbook
  // streams its rows where its cells would take too much of it (XlsxOptions::memory_budget).
  std::uint64_t memory_budget = 0;
  // --annotated-trace (perfgate analyze alone: a merge has no events), and what writes it (set
  // where the prepared run is known, gate_and_write): returns what to say on stderr.
  AnnotatedTraceArgs annotated_trace;
  std::function<std::string()> write_annotated_trace;
};

void add_output_options(CLI::App& cmd, OutputArgs& args);

// A FILE or DIR option given as "" would write nothing and still exit 0: CLI11's check of such
// options (the message, or empty for a path).
std::string non_empty_path(const std::string& value);

// The repository path GitLab's Code Quality report names when --gitlab-path is not given: the
// training script or config named by a `script` or `config` label, else the first profile's path
// relative to the current folder.
std::string default_gitlab_path(const RunLabels& labels, const std::vector<std::string>& profiles);
// Refuses (ConfigError, exit 2), before anything is read: an output that is a folder, a block
// device or a socket; one that is a SQLite database (a history, an nsys export); two outputs naming
// one file; an output that is one of the inputs (traces, baselines, the history); and external
// HTML assets beside a page that is not a file in a folder (/dev/stdout). `files`: each output's
// option and path. `sniffed`: the inputs a run resolved, whose files are known without a stat.
void check_output_files(const std::vector<std::pair<std::string, std::string>>& files,
                        const std::vector<std::string>& inputs, const ResolvedInputs* sniffed = nullptr);
void check_output_paths(const OutputArgs& args, const std::vector<std::string>& inputs,
                        const ResolvedInputs* sniffed = nullptr);

// Writes every output asked for, each atomically, on up to `threads` threads (at least one); one
// that fails does not stop the others. Returns false (after printing each failure on stderr, in the
// order of the outputs) when any failed.
bool write_outputs(const ReportModel& report, const OutputArgs& args, unsigned threads);

}  // namespace perfgate::cli
