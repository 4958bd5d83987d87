#include "mcp/roots.h"

#include <filesystem>
#include <system_error>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "common/errors.h"
#include "common/path_confinement.h"

namespace perfgate::mcp {
namespace fs = std::filesystem;

Roots::Roots(const std::vector<std::string>& folders) {
  std::vector<std::string> given = folders;
  if (given.empty()) given.push_back(fs::current_path().string());
  for (const std::string& folder : given) {
    std::error_code ec;
    fs::path resolved = fs::canonical(folder, ec);
    if (ec || !fs::is_directory(resolved))
      throw ConfigError(fmt::format("--root {}: not a folder{}", folder, ec ? ": " + ec.message() : ""));
    folders_.push_back(resolved.string());
  }
}

std::string Roots::check(const std::string& path) const {
  if (path.empty()) throw ConfigError("an empty path names no file");
  if (path.find('\0') != std::string::npos) throw ConfigError("a path with a NUL byte names no file");
  fs::path given(path);
  if (given.is_relative()) given = fs::path(folders_.front()) / given;
  // Resolved as far as it exists (links and ".." included), so that a missing file outside the
  // roots is refused as outside, not told apart from an existing one.
  std::error_code ec;
  fs::path resolved = fs::weakly_canonical(given, ec);
  bool inside = false;
  for (const std::string& root : folders_)
    inside = inside || (!ec && path_is_beneath(resolved.string(), root));
  if (!inside)
    throw ConfigError(fmt::format("{}: outside the folders this server may read (--root: {})", path,
                                  fmt::join(folders_, ", ")));
  if (!fs::exists(resolved, ec)) throw InputError(fmt::format("{}: no such file or folder", path));
  return resolved.string();
}

std::string Roots::check_new(const std::string& path) const {
  if (path.empty()) throw ConfigError("an empty path names no file");
  fs::path given(path);
  if (given.is_relative()) given = fs::path(folders_.front()) / given;
  std::error_code ec;
  if (fs::exists(given, ec)) return check(given.string());
  fs::path folder = check(given.parent_path().string());
  return (folder / given.filename()).string();
}

}  // namespace perfgate::mcp
