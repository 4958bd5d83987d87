// "Did you mean ...?" for a misspelt command or option: CLI11 2.1 says only "A subcommand is
// required" or "The following argument was not expected".
#pragma once

#include <CLI/CLI.hpp>

#include <string>

namespace perfgate::cli {

// After a failed parse: the command or option the parse could not place, with the nearest one
// that exists ("perfgate: unknown command 'anlyze', did you mean 'analyze'?") and where the help
// is, one line each; empty when the failure is of another kind (a missing value, a bad number).
std::string usage_hint(const CLI::App& app);

}  // namespace perfgate::cli
