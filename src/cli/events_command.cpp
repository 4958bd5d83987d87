// perfgate events PATH...: every event of the run's traces as JSON lines on standard output, a row
// at a time as each worker is loaded, so that a reader (the Python API's Report.events) builds its
// table in chunks and neither side holds the trace's text or every row at once.
#include <cstdio>
#include <memory>
#include <mutex>

#include <fmt/format.h>

// Before the profile model: its JsonWriter::Separator::kNone would shadow perfgate::kNone declared first.
#include "render/json_writer.h"

#include "cli/commands.h"
#include "cli/request_flags.h"
#include "common/errors.h"
#include "engine/engine.h"
#include "engine/memory_budget.h"
#include "engine/run_events.h"

namespace perfgate::cli {
namespace {

struct EventsArgs {
  std::vector<std::string> paths;
  RequestSettings settings;
  std::vector<std::string> kinds;
  std::vector<std::int64_t> steps;
  std::vector<std::int64_t> ranks;
  bool progress = false;
};

// The row's columns, in order: the header line names them.
constexpr std::string_view kColumns[] = {
    "rank",   "worker", "kind",   "name",        "step",        "in_window", "start_us", "duration_us",
    "device", "stream", "thread", "correlation", "external_id", "op",        "bytes",    "collective"};

// Standard output in pieces of about 1 MiB: one write per piece, not per row.
class LineOutput {
 public:
  ~LineOutput() { flush(); }
  void line(std::string_view text) {
    buffer_.append(text);
    buffer_.push_back('\n');
    if (buffer_.size() >= (1u << 20)) flush();
  }
  void flush() {
    if (!buffer_.empty()) std::fwrite(buffer_.data(), 1, buffer_.size(), stdout);
    buffer_.clear();
    std::fflush(stdout);
  }

 private:
  std::string buffer_;
};

std::string row_line(const Profile& p, std::optional<std::int64_t> rank, const EventRow& r) {
  JsonWriter j(0);
  j.begin_array().value(rank).value(p.worker).value(r.kind).value(r.name).value(r.step).value(r.in_window);
  j.value(static_cast<double>(r.start) / 1000.0).value(static_cast<double>(r.end - r.start) / 1000.0);
  j.value(r.device).value(r.stream).value(r.thread).value(r.correlation).value(r.external_id);
  if (r.op.empty())
    j.null();
  else
    j.value(r.op);
  j.value(r.bytes);
  if (r.collective.empty())
    j.null();
  else
    j.value(r.collective);
  j.end_array();
  return j.str();
}

int run_events(const EventsArgs& a) {
  if (a.paths.empty()) throw ConfigError("events: give the traces (files or run folders)");
  auto book =
      std::make_shared<const RuleBook>(load_rule_book(a.settings.rules, a.settings.set, a.settings.disable));
  RunRequest request;
  request.paths = a.paths;
  apply_settings(a.settings, request);
  LineOutput out;
  std::mutex mutex;  // workers arrive on their loading threads; each one's rows go out together
  if (a.progress)
    request.progress = [&](std::uint64_t done, std::uint64_t total) {
      std::lock_guard lock(mutex);
      out.line(fmt::format("{{\"progress\":[{},{}]}}", done, total));
      out.flush();
    };
  EventQuery query;
  for (const std::string& kind : a.kinds) query.kinds.push_back(kind);
  query.steps = a.steps;
  {
    JsonWriter header(0);
    header.begin_object().key("columns").begin_array();
    for (std::string_view column : kColumns) header.value(column);
    header.end_array().end_object();
    out.line(header.str());
  }
  MemoryBudget budget = request.limits.memory;
  apply_memory_budget(budget);
  PreparedRun run = prepare_run(std::move(request), book);
  std::uint64_t rows = 0, workers = 0;
  for_each_worker_events(
      run, book->knowledge, query,
      [&](const Profile&, std::optional<std::int64_t> rank) {
        if (!a.ranks.empty() && (!rank || std::find(a.ranks.begin(), a.ranks.end(), *rank) == a.ranks.end()))
          return false;
        std::lock_guard lock(mutex);
        ++workers;
        return true;
      },
      [&](const Profile& profile, std::optional<std::int64_t> rank, const EventRow& row) {
        std::lock_guard lock(mutex);
        out.line(row_line(profile, rank, row));
        ++rows;
      });
  stop_if_unbounded(run.request.limits.memory);
  // The last line says the rows are whole: a reader that does not see it was cut short.
  out.line(fmt::format("{{\"end\":{{\"rows\":{},\"workers\":{}}}}}", rows, workers));
  return kExitPass;
}

}  // namespace

std::function<int()> add_events_command(CLI::App& app) {
  auto args = std::make_shared<EventsArgs>();
  CLI::App* cmd = app.add_subcommand(
      "events",
      "Print every event of the traces (ops, kernels, copies, collectives, runtime calls) as JSON lines");
  add_options_when_parsed(*cmd, [args](CLI::App& c) {
    c.add_option("paths", args->paths, "Trace files or run folders")->type_name("PATH");
    std::vector<std::string> kinds(std::begin(kEventKinds), std::end(kEventKinds));
    c.add_option("--kind", args->kinds, "Only events of this kind; repeatable")
        ->type_name("KIND")
        ->allow_extra_args(false)  // one value an occurrence: `--kind kernel TRACE` reads TRACE as a path
        ->check(CLI::IsMember(kinds));
    c.add_option("--step", args->steps, "Only events of this step (ProfilerStep#N's N); repeatable")
        ->type_name("N")
        ->allow_extra_args(false);
    c.add_option("--rank", args->ranks, "Only the workers of this rank (as the traces state it); repeatable")
        ->type_name("R")
        ->allow_extra_args(false);
    c.add_flag("--progress", args->progress,
               "Print {\"progress\":[BYTES_READ,TOTAL]} lines among the rows while the traces load");
    // The options that say what a step is and bound the run; not those of a report or a gate.
    add_request_flags(c, args->settings, kShownByAnalyze, [](const OptionInfo& o) {
      return (o.section == "rules" || o.section == "window" || o.section == "limits") &&
             o.field != "workload";
    });
  });
  return [args] { return run_events(*args); };
}

}  // namespace perfgate::cli
