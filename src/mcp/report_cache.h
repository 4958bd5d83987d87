// Report ids that last (docs/agents.md#report-ids). A report's id is a hash of what made it: the
// tool, its arguments, and each file the run read with its size and modification time. A server
// that may write (--allow-write) stores the report under the first root's .perfgate-cache/ folder,
// where this or a later server (a one-shot client's) finds it by that id.
#pragma once

#include <boost/json.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "mcp/roots.h"

namespace perfgate::mcp {

inline constexpr std::string_view kCacheFolder = ".perfgate-cache";

// "r" and the first 16 hex digits of the SHA-1 of the identity; the same identity, the same id.
std::string content_id(std::string_view tool, const boost::json::object& arguments,
                       const std::vector<std::string>& reads);
// Whether `id` has that form (and so names no other file: it is only letters and digits).
bool is_content_id(std::string_view id);

// JSON with the keys of every object sorted: the same arguments in any order are one identity.
std::string canonical_json(const boost::json::value& value);

// A file's bytes; InputError naming it when it cannot be read.
std::string read_text_file(const std::string& path);

class ReportCache {
 public:
  explicit ReportCache(const Roots& roots) : roots_(roots) {}

  // Stores the report's JSON and the call that made it, each replaced atomically, the call last (a
  // report without its call is not found). Throws ConfigError for a cache folder that leads out of
  // the roots, OutputError for one that cannot be written.
  void store(const std::string& id, const std::string& report_json, const boost::json::object& call) const;

  struct Entry {
    std::string report_path;  // the report's JSON file
    boost::json::object call;
  };
  // The report of that id, when the cache holds it (under the roots: a link out is refused).
  std::optional<Entry> find(const std::string& id) const;

 private:
  std::string folder() const;
  const Roots& roots_;
};

}  // namespace perfgate::mcp
