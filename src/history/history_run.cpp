// What the history keeps of a run (a report model, or a JSON report file), and the baselines a
// gate draws from the history.
#include <algorithm>
#include <chrono>
#include <filesystem>
#include <set>

#include <fmt/chrono.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "common/errors.h"
#include "history/history.h"

namespace perfgate {
namespace {

// How many of the branch's latest runs a message about other hardware looks at.
constexpr std::size_t kRunsDescribed = 50;

std::string iso_utc(std::chrono::system_clock::time_point t) {
  return fmt::format("{:%Y-%m-%dT%H:%M:%SZ}", std::chrono::floor<std::chrono::seconds>(t));
}

std::vector<HistoryGpu> history_gpus(const Baseline& data) {
  std::vector<HistoryGpu> gpus;
  for (const auto& [name, count] : data.gpu_counts) gpus.push_back({name, count});
  return gpus;
}

HistoryRun run_of(Baseline data, RunLabels labels, std::string time) {
  HistoryRun run;
  run.time = std::move(time);
  run.labels = std::move(labels);
  run.gpus = history_gpus(data);
  run.data = std::move(data);
  run.data.info.kind = "history";
  return run;
}

std::string names_or_none(const std::vector<std::string>& names) {
  return names.empty() ? "no GPU" : fmt::format("{}", fmt::join(names, ", "));
}

// The hardware of the runs, each distinct set of GPU names once, most recent first.
std::vector<std::string> hardware_of(const std::vector<HistoryRun>& runs) {
  std::vector<std::string> seen;
  for (auto it = runs.rbegin(); it != runs.rend(); ++it) {
    std::string names = names_or_none(it->data.info.gpu_names);
    if (std::find(seen.begin(), seen.end(), names) == seen.end()) seen.push_back(names);
  }
  return seen;
}

// Why the history gave no baseline run: empty, no run of the branch, or only other hardware.
void explain_no_runs(HistoryStore& store, const std::string& branch,
                     const std::vector<std::string>& gpu_names, HistoryBaselines& result) {
  std::string where = store.describe();
  std::vector<HistoryRun> of_branch = store.runs({branch, {}, false, kRunsDescribed, false});
  if (!of_branch.empty()) {
    std::string theirs = fmt::format("{}", fmt::join(hardware_of(of_branch), "; "));
    result.skip_reason =
        fmt::format("no run of branch '{}' in {} ran on this run's GPUs ({}); its runs ran on {}", branch,
                    where, names_or_none(gpu_names), theirs);
    result.warning =
        note<NoteId::history_other_gpus>(arg<"history">(where), arg<"branch">(branch), arg<"theirs">(theirs),
                                         arg<"ours">(names_or_none(gpu_names)));
    return;
  }
  std::vector<HistoryRun> any = store.runs({"", {}, false, kRunsDescribed, false});
  if (any.empty()) {
    result.skip_reason = fmt::format(
        "the history {} has no runs yet: the regression rules compare once a run of branch '{}' is recorded",
        where, branch);
    return;
  }
  std::set<std::string> branches;
  for (const HistoryRun& r : any) branches.insert(r.labels.branch.empty() ? "(none)" : r.labels.branch);
  result.skip_reason = fmt::format(
      "the history {} has no run of branch '{}' (its latest runs are of: {}); record with --branch, or "
      "choose with --baseline-branch",
      where, branch, fmt::join(branches, ", "));
}

// The GPUs of the branch's latest run: what a run without GPU work is compared with, so that the
// gate sees that the GPU work vanished rather than skipping every comparison.
std::vector<std::string> latest_hardware(HistoryStore& store, const std::string& branch) {
  std::vector<HistoryRun> latest = store.runs({branch, {}, false, 1, false});
  return latest.empty() ? std::vector<std::string>{} : latest.front().data.info.gpu_names;
}

}  // namespace

std::string utc_now() {
  return iso_utc(std::chrono::system_clock::now());
}

HistoryRun history_run_of(const ReportModel& report, RunLabels labels, std::string time) {
  return run_of(baseline_from_report(report, "", "history"), std::move(labels), std::move(time));
}

HistoryRun history_run_of_report_file(const std::string& path, RunLabels labels) {
  Baseline data = read_baseline_report(path);
  std::error_code ec;
  auto written = std::filesystem::last_write_time(path, ec);
  if (ec) throw InputError(fmt::format("{}: cannot read its modification time: {}", path, ec.message()));
  auto time = std::chrono::file_clock::to_sys(written);
  data.info.path.clear();
  return run_of(std::move(data), std::move(labels), iso_utc(time));
}

HistoryBaselines history_baselines(HistoryStore& store, const std::string& branch,
                                   const std::vector<std::string>& gpu_names, std::size_t count) {
  HistoryQuery query{branch, gpu_names, gpu_names.empty(), count, true};
  HistoryBaselines result;
  std::vector<HistoryRun> runs = store.runs(query);
  if (runs.empty() && gpu_names.empty()) {
    std::vector<std::string> theirs = latest_hardware(store, branch);
    if (!theirs.empty()) {
      runs = store.runs({branch, theirs, false, count, true});
      result.warning = note<NoteId::history_no_gpu_work>(
          arg<"history">(store.describe()), arg<"branch">(branch), arg<"theirs">(names_or_none(theirs)));
    }
  }
  for (HistoryRun& run : runs) {
    Baseline b = std::move(run.data);
    b.info.kind = "history";
    std::string commit = run.labels.commit.substr(0, 7);
    b.info.path = fmt::format("{}#{}{}", store.describe(), run.id,
                              commit.empty() ? "" : fmt::format(" (commit {})", commit));
    result.runs.push_back(std::move(b));
  }
  if (result.runs.empty()) explain_no_runs(store, branch, gpu_names, result);
  return result;
}

}  // namespace perfgate
