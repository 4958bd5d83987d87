// history list's output: a table for the terminal, every stored string escaped (a branch or a
// label may hold anything), or a JSON array.
#include <algorithm>

#include <fmt/format.h>

#include "cli/history_list.h"
#include "common/metrics.h"
#include "common/units.h"
#include "render/escape.h"
#include "render/json_writer.h"

namespace perfgate {
namespace {

// The table's texts are escaped for the terminal: a stored string may hold anything.
std::string gpus_text(const HistoryRun& run) {
  std::string text;
  for (const HistoryGpu& g : run.gpus)
    text += fmt::format("{}{}x {}", text.empty() ? "" : ", ", g.count, terminal_escape(g.name));
  return text.empty() ? "no GPU" : text;
}

std::string labels_text(const HistoryRun& run) {
  std::string text;
  for (const auto& [key, value] : run.labels.labels)
    text += fmt::format("{}{}={}", text.empty() ? "" : " ", terminal_escape(key), terminal_escape(value));
  return text;
}

}  // namespace

std::string render_history_json(const std::vector<HistoryRun>& runs) {
  JsonWriter j;
  j.begin_array();
  for (const HistoryRun& run : runs) {
    j.begin_object();
    j.key("id").value(run.id).key("time").value(run.time);
    j.key("branch").value(run.labels.branch).key("commit").value(run.labels.commit);
    j.key("labels").begin_object();
    for (const auto& [key, value] : run.labels.labels) j.key(key).value(value);
    j.end_object();
    j.key("gpus").begin_array();
    for (const HistoryGpu& g : run.gpus)
      j.begin_object().key("name").value(g.name).key("count").value(g.count).end_object();
    j.end_array();
    j.key("tool_version").value(run.data.info.tool_version);
    j.key("steps_median_us").value(run.data.metric(Metric::StepsMedianUs));
    j.end_object();
  }
  j.end_array();
  return j.str() + '\n';
}

std::string render_history_table(const std::vector<HistoryRun>& runs) {
  std::string out;
  std::size_t branch_width = 6, gpus_width = 4;
  for (const HistoryRun& run : runs) {
    branch_width = std::max(branch_width, terminal_escape(run.labels.branch).size());
    gpus_width = std::max(gpus_width, gpus_text(run).size());
  }
  auto line = [&](const auto& id, const std::string& time, const std::string& branch,
                  const std::string& commit, const std::string& step, const std::string& gpus,
                  const std::string& labels) {
    std::string text = fmt::format("{:>6}  {:<20}  {:<{}}  {:<7}  {:>11}  {:<{}}  {}", id, time, branch,
                                   branch_width, commit, step, gpus, gpus_width, labels);
    while (!text.empty() && text.back() == ' ') text.pop_back();
    out += text + '\n';
  };
  line("id", "time (UTC)", "branch", "commit", std::string(metric_info(Metric::StepsMedianUs).label), "GPUs",
       "labels");
  for (const HistoryRun& run : runs)
    line(run.id, terminal_escape(run.time), terminal_escape(run.labels.branch),
         terminal_escape(run.labels.commit.substr(0, 7)),
         format_duration_us(run.data.metric(Metric::StepsMedianUs)), gpus_text(run), labels_text(run));
  return out;
}

}  // namespace perfgate
