// The kinds of failure a user sees, each with its documented exit code.
#pragma once

#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

namespace perfgate {

// A profile or baseline that cannot be read (exit code 3). The message names the file and the cause.
class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A readable file of another kind: a JSON document without 'traceEvents', an SQLite database that
// is not an Nsight Systems export. A run folder skips such a file with a warning; named on the
// command line, it is an input error like any other.
class NotAProfileError : public InputError {
 public:
  using InputError::InputError;
};

// Inputs that are readable but refused by policy: not one whole run (ranks missing without
// --allow-missing-ranks, a rank or an input twice, parts made with other rules or window options).
// Exit code 4, not 3: a CI job tells a refused merge from a broken disk or a corrupt file.
class RefusedError : public InputError {
 public:
  using InputError::InputError;
};

// An output that cannot be written (exit code 3, like unreadable input): disk full, bad path.
class OutputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A usage or configuration problem: flags, rule files (exit code 2).
class ConfigError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A request refused for one of its fields (exit code 2): the engine's and the analysis' checks of a
// run's options name each field as the request does ("fail_on", "iter_start"), and each front end
// says it in its own words: the command line its flag (--fail-on), the MCP server its argument
// (options.fail_on). what() is the message in the request's words.
class RequestError : public ConfigError {
 public:
  // How a front end names a field of the request.
  using FieldNames = std::function<std::string(std::string_view field)>;
  // The message, given the names of the fields it names.
  using Say = std::function<std::string(const FieldNames& name)>;
  RequestError(std::string field, Say say)
      : ConfigError(say([](std::string_view f) { return std::string(f); })),
        field_(std::move(field)),
        say_(std::move(say)) {}
  const std::string& field() const { return field_; }
  std::string message(const FieldNames& name) const { return say_(name); }

 private:
  std::string field_;  // the field refused
  Say say_;
};

inline constexpr int kExitPass = 0;
inline constexpr int kExitGateFailed = 1;
inline constexpr int kExitUsage = 2;
inline constexpr int kExitInput = 3;
inline constexpr int kExitRefused = 4;

}  // namespace perfgate
