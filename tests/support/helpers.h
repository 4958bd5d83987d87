// Shortcuts for tests: load or analyse a trace given as text, find the shared real traces.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analyse/analysis.h"
#include "engine/analyse_profiles.h"
#include "engine/engine.h"
#include "gate/rules.h"
#include "history/history.h"
#include "load/load.h"
#include "report/build_report.h"
#include "report_model/report.h"
#include "support/trace_builder.h"

namespace perfgate::testing {

// Reads `json` (gzip'd first where `file_name` ends in .gz) as the loader reads a file so named in
// a temporary folder, from bytes in memory (support/read_bytes.h); throws what the reader throws.
Profile load_json(const std::string& json, const std::string& file_name = "trace.json",
                  const LoadOptions& options = {});
WorkerAnalysis analyse_json(const std::string& json, const AnalysisOptions& options = {},
                            const std::vector<std::string>& rules = {});
const Classification& default_classification();
// How a rule set's classification reads traces (driver-API calls or not), as `analyze` does.
LoadOptions load_options_for(const Classification& c);

// The report model of traces (files or folders), as `perfgate analyze` builds it, before the gate.
ReportModel report_of_files(const std::vector<std::string>& paths, const RuleBook& book,
                            const AnalysisOptions& options = {});
// The same of profiles given as bytes (RunRequest::profile_bytes), each named as a file would be;
// report_of_json's is one named trace.pt.trace.json (its worker: "trace").
ReportModel report_of_bytes(const std::vector<ProfileBytes>& profiles, const RuleBook& book,
                            const AnalysisOptions& options = {});
ReportModel report_of_json(const std::string& json, const RuleBook& book,
                           const AnalysisOptions& options = {});
// The shipped default rule book (load_rule_book({})), its rules, and what a trend reads of them.
const RuleBook& default_book();
const RuleSet& default_rules();
const std::vector<GatedMetric>& default_gated_metrics();
const ReportFinding* find_finding(const ReportModel& report, std::string_view id);

// ../shared/traces beside the checkout (or $PERFGATE_SHARED_TRACES); empty when absent.
// The first row of a table named `name`, or nullptr.
template <typename Row>
const Row* find_row(const std::vector<Row>& rows, std::string_view name) {
  for (const Row& r : rows)
    if (r.name == name) return &r;
  return nullptr;
}
inline const OpRow* find_op(const std::vector<OpRow>& rows, std::string_view name) {
  return find_row(rows, name);
}
inline const KernelRow* find_kernel(const std::vector<KernelRow>& rows, std::string_view name) {
  return find_row(rows, name);
}

std::string shared_traces_dir();
// A file under ../shared/traces or ../shared/references by its relative path; "" where it is absent.
std::string shared_trace(const std::string& relative);
std::string shared_reference(const std::string& relative);
// Whether one of the lines (a worker's warnings, a profile's notes) contains `text`.
bool has_line(const std::vector<std::string>& lines, std::string_view text);
// The same of notes, by their sentences (note_text); a report's by its lines, "rank-1: ..."
// (note_lines, render/format.h).
bool has_line(const std::vector<Note>& notes, std::string_view text);
bool has_line(const std::vector<ReportNote>& notes, std::string_view text);

// Runs the perfgate binary with arguments (shell-quoted by the caller); returns exit code and output.
struct CommandResult {
  int exit_code = -1;
  std::string out;  // stdout and stderr together
};
CommandResult run_perfgate(const std::string& args);
// The same as `user` (through runuser, when the tests run as root, so that file permissions
// apply); as this user otherwise.
CommandResult run_perfgate_as(const std::string& user, const std::string& args);
// The same in the folder `dir` (its working directory).
CommandResult run_perfgate_in(const std::string& dir, const std::string& args);
// Starts every command at once (each `perfgate ARGS`), then waits for all.
std::vector<CommandResult> run_perfgate_all(const std::vector<std::string>& args);

// One member of a zip file (a workbook's "xl/worksheets/sheet1.xml"), by `unzip -p`.
std::string unzip(const std::string& zip, const std::string& member);

}  // namespace perfgate::testing
