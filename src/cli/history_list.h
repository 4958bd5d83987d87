// What `perfgate history list` prints.
#pragma once

#include <string>
#include <vector>

#include "history/history.h"

namespace perfgate {

// The runs as `history list` prints them: a table for the terminal (every stored string escaped),
// or a JSON array of {"id", "time", "branch", "commit", "labels", "gpus", "tool_version",
// "steps_median_us"}.
std::string render_history_table(const std::vector<HistoryRun>& runs);
std::string render_history_json(const std::vector<HistoryRun>& runs);

}  // namespace perfgate
