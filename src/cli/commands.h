// The subcommands, each in its own file; main.cpp only dispatches and maps errors to exit codes.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>
#include <iterator>
#include <memory>
#include <utility>
#include <vector>

namespace perfgate::cli {

// The command's options, CLI11's own vector (protected in CLI::App).
std::vector<CLI::Option_p>& options_of(CLI::App& command);
// Throws CLI::OptionAlreadyAdded when two of the command's options share a name.
void check_option_names(const CLI::App& command);

// Runs `add`, which adds options to `command`, with the options already there set aside, then puts
// them back first. CLI11 2.1.2 checks each new option's names against every option already there,
// copying both options' name lists for each pair (detail::find_member takes its vector by value):
// 0.75 M instructions for analyze's 56 options, a sixth of an empty trace's run (issue 96). Apart,
// each option is compared with the few added in the same call; add_options_when_parsed checks every
// name once, in a set, when the command's options are all there.
template <typename Add>
void add_options_apart(CLI::App& command, Add&& add) {
  std::vector<CLI::Option_p>& options = options_of(command);
  std::vector<CLI::Option_p> before = std::exchange(options, {});
  auto restore = [&] {
    before.insert(before.end(), std::make_move_iterator(options.begin()),
                  std::make_move_iterator(options.end()));
    options = std::move(before);
  };
  try {
    add(command);
  } catch (...) {
    restore();
    throw;
  }
  restore();
}

// Adds a command's options when the parse reaches the command (CLI11's pre-parse callback), so that a
// run builds its own command's options only: building every command's took 2.7 M instructions, 42% of
// an empty trace's `analyze --json` (issue 77: the fixed cost of a small trace). `--help` and the usage
// hints run after the command was reached, with its options in place.
inline void add_options_when_parsed(CLI::App& command, std::function<void(CLI::App&)> add) {
  command.preparse_callback([&command, add = std::move(add)](std::size_t) {
    add(command);
    check_option_names(command);
  });
}

// Keeps `object` until the process ends, never destroyed: a one-shot command's rule book and command
// line freed at exit cost 0.17 M instructions of an empty trace's run (issue 96), memory the system
// takes back anyway.
void keep_until_exit(std::shared_ptr<const void> object);

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
