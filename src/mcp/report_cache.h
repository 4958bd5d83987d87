// Report ids that last (docs/agents.md#report-ids). A report's id is a hash of what made it: the
// tool, its arguments, and each file the run read with its size and modification time. A server
// that may write (--allow-write) stores the report under the first root's .perfgate-cache/ folder,
// where this or a later server (a one-shot client's) finds it by that id. The folder is input like
// any other: a file there is read only when it is a regular file within --max-input-memory, and the
// folder holds at most kMaxCachedReports reports of kMaxCachedBytes in all (the oldest dropped).
#pragma once

#include <boost/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "mcp/roots.h"

namespace perfgate::mcp {

inline constexpr std::string_view kCacheFolder = ".perfgate-cache";
inline constexpr std::size_t kMaxCachedReports = 100;
inline constexpr std::uint64_t kMaxCachedBytes = std::uint64_t{512} << 20;

// "r" and the first 16 hex digits of the SHA-1 of the identity; the same identity, the same id.
std::string content_id(std::string_view tool, const boost::json::object& arguments,
                       const std::vector<std::string>& reads);
// Whether `id` has that form (and so names no other file: it is only letters and digits).
bool is_content_id(std::string_view id);

// A JSON file's value, parsed as it is read (with `storage`), checked as read_text_file checks; InputError
// naming it and where it stops being JSON.
boost::json::value read_json_file(const std::string& path, std::uint64_t max_bytes,
                                  boost::json::storage_ptr storage = {});

// JSON with the keys of every object sorted: the same arguments in any order are one identity.
std::string canonical_json(const boost::json::value& value);

// A file's bytes; InputError naming it when it is not a regular file (a FIFO is never opened), is
// larger than `max_bytes` (0: no limit) or cannot be read.
std::string read_text_file(const std::string& path, std::uint64_t max_bytes = 0);

struct CacheLimits {
  std::uint64_t max_file_bytes = 0;  // --max-input-memory: the most a stored file may hold; 0: no limit
  std::size_t max_reports = kMaxCachedReports;
  std::uint64_t max_bytes = kMaxCachedBytes;
};

class ReportCache {
 public:
  ReportCache(const Roots& roots, CacheLimits limits) : roots_(roots), limits_(limits) {}

  // Stores the report's JSON and the call that made it, each replaced atomically, the call last (a
  // report without its call is not found), then drops the oldest reports past the limits. Throws
  // ConfigError for a cache folder that leads out of the roots, OutputError for one that cannot be
  // written (a full disk).
  void store(const std::string& id, const std::string& report_json, const boost::json::object& call) const;

  struct Entry {
    std::string report_path;  // the report's JSON file
    boost::json::object call;
  };
  // The report of that id, when the cache holds it (under the roots: a link out is refused); its call
  // read and checked. InputError naming a file there that is not a regular file, too large, or not a
  // call this server stored.
  std::optional<Entry> find(const std::string& id) const;
  const CacheLimits& limits() const { return limits_; }

 private:
  std::string folder() const;
  // Drops the oldest reports (by modification time) past the limits, never `kept`.
  void prune(const std::string& folder, const std::string& kept) const;
  const Roots& roots_;
  CacheLimits limits_;
};

}  // namespace perfgate::mcp
