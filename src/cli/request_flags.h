// The command line's flags of a run's options (engine/request_options.def): each option a command
// shows, bound to the settings its run's request is made from, with the option's help, value name
// and check.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>
#include <string>
#include <string_view>

#include "engine/request_options.h"

namespace perfgate::cli {

// Adds the flags of the options `shown_by` (kShownByAnalyze, ...) shows, in the table's order; with
// `wanted`, only those it accepts (a command that reads a run's events, not its report).
void add_request_flags(CLI::App& cmd, RequestSettings& settings, unsigned shown_by,
                       const std::function<bool(const OptionInfo&)>& wanted = {});

// The flag of a request's field (RequestError::field()): time_start is --time-start.
std::string flag_of(std::string_view field);

}  // namespace perfgate::cli
