// perfgate analyze --annotated-trace FILE: the run's timeline handed to Perfetto (issue 94). A
// Chrome/Perfetto JSON trace (the Trace Event Format) of the input's events as the Kineto trace
// wrote them, with perfgate's analysis on top, each on a track of its own in a "perfgate" process:
// the window's steps, each step's critical path (its stretches, and flow arrows from each event on
// the path to the next), and the gate's findings over the time they were computed on.
// docs/reports.md, "The annotated trace".
#pragma once

#include <CLI/CLI.hpp>

#include <cstddef>
#include <string>

#include "engine/annotated_profiles.h"
#include "engine/engine.h"
#include "report_model/report.h"

namespace perfgate::cli {

struct AnnotatedTraceArgs {
  std::string path;  // empty: none written
  // The first N window steps' events and paths; 0: every event of the input and every step's path.
  std::size_t steps = 3;
  // The most of the input's events (host ranges, launches, GPU work) the file holds, shared by the
  // workers written: past it, fewer steps (and, within one step, its first events).
  std::size_t max_events = 1'000'000;
};

// --annotated-trace, --annotated-trace-steps, --annotated-trace-max-events.
void add_annotated_trace_options(CLI::App& cmd, AnnotatedTraceArgs& args);

// The workers whose events the trace holds: those the report details (the ranks it shows).
bool annotated_worker(const ReportModel& report, const std::string& input, const std::string& worker);

// Writes the trace of the run's detailed workers (their profiles read again, one at a time) with the
// report's steps, paths and findings, atomically. Returns what to say on stderr (what the event
// bound left out), or nothing.
std::string write_annotated_trace(const PreparedRun& run, const ReportModel& report,
                                  const AnnotatedTraceArgs& args);

// `target` as a link from a page written to `page`: relative to the page's folder, percent-encoded.
std::string relative_link(const std::string& page, const std::string& target);

}  // namespace perfgate::cli
