// The options of a run's request, declared once (engine/request_options.def): the settings a front end
// fills, what each front end calls them, and the one function that makes them the engine's request.
// The command line's flags (cli/request_flags.cpp), the MCP tools' schemas and arguments
// (mcp/tool_schemas.cpp), the public API (api/analyze.cpp) and docs/usage.md's "Options" are made
// from it; a test fails where they disagree (tests/engine/request_options_test.cpp).
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "engine/run_request.h"

namespace perfgate {

// Which front ends show an option (a mask).
inline constexpr unsigned kShownByAnalyze = 1;         // perfgate analyze
inline constexpr unsigned kShownByMerge = 2;           // perfgate merge
inline constexpr unsigned kShownByMcpTools = 4;        // the MCP analyze and compare tools' arguments
inline constexpr unsigned kShownByMcpOptions = 8;      // ... inside their `options` object
inline constexpr unsigned kShownByMcpServer = 16;      // perfgate mcp's flags, for every call
inline constexpr unsigned kShownByHistoryImport = 32;  // perfgate history import (the run labels)

// A range's bound for "MIN or more".
inline constexpr std::int64_t kUnbounded = std::numeric_limits<std::int64_t>::max();

// What an option's value may be, besides its type.
struct OptionCheck {
  enum class Kind { None, Range, OneOf, Folder } kind = Kind::None;
  std::int64_t min = 0, max = 0;  // Range: a whole number's bounds, or a list's length
  std::string_view choices;       // OneOf: "a|b|c"
};
constexpr OptionCheck no_check() {
  return {};
}
constexpr OptionCheck range(std::int64_t min, std::int64_t max) {
  return {OptionCheck::Kind::Range, min, max, {}};
}
constexpr OptionCheck one_of(std::string_view choices) {
  return {OptionCheck::Kind::OneOf, 0, 0, choices};
}
constexpr OptionCheck a_folder() {
  return {OptionCheck::Kind::Folder, 0, 0, {}};
}

// Whether a field's type is an optional value (absent: not given), for the code that reads or checks
// a field by its type.
template <typename T>
struct IsOptional : std::false_type {};
template <typename T>
struct IsOptional<std::optional<T>> : std::true_type {};

// The kind of value, from the field's C++ type.
enum class OptionValue { Flag, Integer, Number, Text, Texts };

struct OptionInfo {
  std::string_view field;     // RequestSettings' member; the name a RequestError gives
  std::string_view flag;      // the command line's: --iter-start
  std::string_view argument;  // the MCP tools' (or server flag's): iter_start, time_start_us
  unsigned shown = 0;         // kShownBy...
  std::string_view section;   // docs/usage.md's group: rules, gate, baselines, history, window, ...
  std::string_view value_name;
  OptionCheck check;
  std::string_view help;  // may name other options as {field}
  OptionValue value = OptionValue::Text;
  std::string default_text;  // the initial value as text; empty: none (absent, false, empty)
};

// Every option's value, each at its default.
struct RequestSettings {
#define PERFGATE_OPTION(field, type, initial, ...) type field = initial;
#include "engine/request_options.def"
#undef PERFGATE_OPTION
};

// The options in the order the .def declares them.
std::span<const OptionInfo> request_options();
// The option of a field (RequestError::field()); null for a name that is none.
const OptionInfo* option_of(std::string_view field);
// Its help, each {field} it names said by `name` (a flag, an argument).
std::string option_help(const OptionInfo& option, const std::function<std::string(const OptionInfo&)>& name);
// A choice's options ("a|b|c") as a list.
std::vector<std::string_view> option_choices(const OptionInfo& option);
// A range's bounds as words: "0 to 255", "1 or more" (kUnbounded).
std::string range_text(const OptionCheck& check);

// The run labels the settings give (branch, commit, label), without the CI system's. RequestError
// for a label that is not KEY=VALUE.
RunLabels given_labels(const RequestSettings& settings);

// The request's rules, analysis options, baselines, history, gate and limits (the memory budget
// resolved: engine/memory_budget.h) as the settings give them, each checked: RequestError names the
// field of a value out of its range or choices, a malformed size, time or label; ConfigError a
// --spill-dir that is no writable folder. The rest of the request (its kind, paths, callbacks) is
// the caller's.
void apply_settings(const RequestSettings& settings, RunRequest& request);

}  // namespace perfgate
