// A PostgreSQL connection string, checked before libpq sees it. libpq's messages about a malformed
// string quote any part of it, the password among the rest, so what perfgate hands to libpq is
// unambiguous (one '@', before the host; valid percent-encodings; numeric ports; well-formed
// parameters), and every message that may carry libpq's text has the password taken out.
#pragma once

#include <string>
#include <vector>

namespace perfgate::history {

struct PostgresLocation {
  std::string
      conninfo;  // what libpq is given: the URI with its scheme in lower case, or the keyword/value string
  std::string description;  // for messages: no password, no parameters
  // What no message may hold: the whole string, the password as written and percent-decoded or
  // unquoted (libpq's parse adds its own reading of the password: add_secret).
  std::vector<std::string> secrets;

  void add_secret(std::string secret);
  // `text` with every secret replaced by "***".
  std::string scrubbed(std::string text) const;
};

// Throws ConfigError for a malformed string, naming the problem but neither the string nor its
// password. `location` must be a PostgreSQL location (is_postgres_location).
PostgresLocation parse_postgres_location(const std::string& location);

}  // namespace perfgate::history
