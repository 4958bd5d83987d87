// The subcommands, each in its own file; main.cpp only dispatches and maps errors to exit codes.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>

namespace perfgate::cli {

// Adds a command's options when the parse reaches the command (CLI11's pre-parse callback), so that a
// run builds its own command's options only: building every command's took 2.7 M instructions, 42% of
// an empty trace's `analyze --json` (issue 77: the fixed cost of a small trace). `--help` and the usage
// hints run after the command was reached, with its options in place.
inline void add_options_when_parsed(CLI::App& command, std::function<void(CLI::App&)> add) {
  command.preparse_callback([&command, add = std::move(add)](std::size_t) { add(command); });
}

// Registers the subcommand and returns the function that runs it (returns the exit code).
std::function<int()> add_analyze_command(CLI::App& app);
std::function<int()> add_merge_command(CLI::App& app);
std::function<int()> add_metrics_command(CLI::App& app);
// `perfgate events`: a run's events as JSON lines (the Python API's Report.events).
std::function<int()> add_events_command(CLI::App& app);
std::function<int()> add_rules_command(CLI::App& app);
// `perfgate mcp`: the MCP server on stdio (src/cli/mcp/, docs/agents.md).
std::function<int()> add_mcp_command(CLI::App& app);
// `perfgate history` with its subcommands import and list; trend is added by add_trend_command.
std::function<int()> add_history_command(CLI::App& app);
// Registers `trend` under the `history` command (src/cli/trend_command.cpp).
std::function<int()> add_trend_command(CLI::App& history);

}  // namespace perfgate::cli
