// How a worker is analysed: the window's steps, how steps are found, threads, and which workers
// of a run keep their whole tables.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace perfgate {

struct WindowOptions {
  std::optional<std::int64_t> iter_start;  // first step number kept (inclusive)
  std::optional<std::int64_t> iter_stop;   // last step number kept (inclusive)
  std::int64_t skip_first = 0;             // steps dropped from the start of the window
  // A time range on the trace's clock (ns; the report's step starts and MCP's `events` use it): the
  // steps that lie wholly inside it, or, in a profile without steps, the part of the trace inside it.
  std::optional<std::int64_t> time_start;
  std::optional<std::int64_t> time_stop;
};

struct AnalysisOptions {
  WindowOptions window;
  std::string key_op;  // regex: every start of a matching op begins a step (DLProf's key node)
  // Regex for step range names (whole-name match, first group = step number); empty: the rules'
  // step ranges for the way the profile marks steps (Classification::profiler_step_ranges or
  // nvtx_step_ranges).
  std::string step_pattern;
  // Threads one worker's analysis may use: its independent stages (op tables, interval breakdown,
  // kernel tables and timeline) run side by side when above 1. The results do not depend on it.
  unsigned threads = 1;
  // Workers of a run that keep their whole tables (ops, kernels, regions, gaps, memory, timeline):
  // the first, the slowest, the fastest, then the next slowest. The others keep their metrics,
  // steps, GPUs, iterations and collectives, and their ops, kernels and regions count in the
  // run's sums; so a run's memory does not grow with its workers' tables. 0: every worker.
  std::size_t detailed_workers = 8;
  // --graph-capture: graph-capture trace files or folders merged into every replay trace; empty: the
  // captures found beside each trace (captures_beside, load.h).
  std::vector<std::string> graph_captures;
  // --device-memory: each GPU's memory in bytes, for a memory snapshot's near-capacity rule where
  // no out-of-memory error shows it (0: not given).
  std::uint64_t device_memory = 0;
  // --device: only this GPU's work (its kernels, copies, ranges, synchronisations and memory) is
  // analysed; the host's events are the whole process's (keep_device, model/device_filter.h).
  std::optional<std::int32_t> device;
  // Build the step timeline and the critical path laid out on it (the timeline and
  // critical_path_timeline tables). Only the JSON, HTML and XLSX reports show them: a run that writes
  // none of those (a gate, JUnit or Markdown alone; a baseline profile) leaves them empty.
  bool step_timeline = true;
  // The rows the report keeps of a table with a row per name (its --max-rows,
  // report_model/table_limits.h): the kernels of each step (kernels_by_iteration) keep only those
  // and the totals of the others as they are made, as the report's limit would; 0: every row.
  std::size_t table_rows = 0;
};

}  // namespace perfgate
