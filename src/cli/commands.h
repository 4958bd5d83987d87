// The subcommands, each in its own file; main.cpp only dispatches and maps errors to exit codes.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>

namespace perfgate::cli {

// Registers the subcommand and returns the function that runs it (returns the exit code).
std::function<int()> add_analyze_command(CLI::App& app);
std::function<int()> add_metrics_command(CLI::App& app);
std::function<int()> add_rules_command(CLI::App& app);

}  // namespace perfgate::cli
