// The name under which SQLite opens a file read-only and immutable (`file:PATH?immutable=1`):
// nothing is ever written beside it (no journal, no WAL index) and no lock is taken. The Nsight
// Systems reader opens exports so, and the run history a history file in a folder it cannot write.
#pragma once

#include <string>

namespace perfgate {

// `path` as an SQLite URI with ?immutable=1; the characters with a meaning in a URI (%, ?, #) are
// percent-encoded. Open it with SQLITE_OPEN_URI.
std::string sqlite_immutable_uri(const std::string& path);

}  // namespace perfgate
