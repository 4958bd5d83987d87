// Parses a JSON report for use as a baseline without a DOM of its steps: every value becomes a
// Boost.JSON DOM as usual, except the top-level "steps" array, of which only each step's
// duration and window flag are kept (a report of 100,000 steps would otherwise cost 150 MB).
#pragma once

#include <boost/json/object.hpp>

#include <optional>
#include <string>
#include <vector>

namespace perfgate {

struct ReportStepValues {
  std::optional<double> duration_us;  // empty when missing or not a number
  std::optional<bool> in_window;      // empty when missing; false when not a boolean
  bool is_object = true;              // false for an entry of "steps" that is not an object
};

struct ParsedReport {
  boost::json::object root;  // "steps", when present, is an empty array here
  bool has_steps = false;    // a top-level "steps" array was present
  std::vector<ReportStepValues> steps;
};

// Reads `path` (plain or gzip, a UTF-8 byte order mark allowed) in chunks, at most `limit` bytes of
// JSON text. Throws InputError naming the file: unreadable, too large, invalid JSON with its byte
// offset, not an object at the top level.
ParsedReport parse_report_file(const std::string& path, std::size_t limit);

}  // namespace perfgate
