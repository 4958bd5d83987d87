// The kinds of failure a user sees, each with its documented exit code.
#pragma once

#include <stdexcept>
#include <string>

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

inline constexpr int kExitPass = 0;
inline constexpr int kExitGateFailed = 1;
inline constexpr int kExitUsage = 2;
inline constexpr int kExitInput = 3;
inline constexpr int kExitRefused = 4;

}  // namespace perfgate
