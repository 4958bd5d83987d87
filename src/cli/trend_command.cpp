// perfgate history trend: a placeholder until the trend command is merged (it registers the
// subcommand and its help, and refuses to run).
#include "cli/commands.h"
#include "perfgate/errors.h"

namespace perfgate::cli {

std::function<int()> add_trend_command(CLI::App& history) {
  history.add_subcommand("trend", "Trends of a history's metrics with change points (not built yet)");
  return []() -> int { throw ConfigError("history trend: not built yet"); };
}

}  // namespace perfgate::cli
