// What a front end says of an exception that ended a run, and the exit code it ends with: one
// mapping for the command line (src/cli/main.cpp), the MCP tools' errors (src/mcp/session.cpp) and
// the public API's Error (src/api/analyze.cpp), so that the three cannot drift.
#pragma once

#include <exception>
#include <new>
#include <string>

#include "common/errors.h"

namespace perfgate {

struct ErrorReport {
  std::string message;
  int exit_code = kExitInput;
};

// 2: a usage or rule-file error (a RequestError's field said by `name`: a flag, an argument); 3: an
// input that cannot be read, an output that cannot be written, or out of memory; 4: inputs refused as
// not one whole run. Any other exception is an internal error (3).
inline ErrorReport error_report(const std::exception& e, const RequestError::FieldNames& name) {
  if (const auto* request = dynamic_cast<const RequestError*>(&e))
    return {request->message(name), kExitUsage};
  if (dynamic_cast<const ConfigError*>(&e)) return {e.what(), kExitUsage};
  if (dynamic_cast<const RefusedError*>(&e)) return {e.what(), kExitRefused};
  if (dynamic_cast<const InputError*>(&e) || dynamic_cast<const OutputError*>(&e))
    return {e.what(), kExitInput};
  if (dynamic_cast<const std::bad_alloc*>(&e)) return {"out of memory", kExitInput};
  return {std::string("internal error: ") + e.what(), kExitInput};
}

}  // namespace perfgate
