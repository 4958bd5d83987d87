#include "common/path_confinement.h"

#include <unistd.h>

#include <filesystem>
#include <mutex>
#include <shared_mutex>
#include <system_error>
#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "common/errors.h"

namespace perfgate {
namespace fs = std::filesystem;

namespace {

// Set by the MCP server around each tool call, read by the loading threads.
std::shared_mutex g_mutex;
std::vector<std::string> g_folders;

std::vector<std::string> folders() {
  std::shared_lock lock(g_mutex);
  return g_folders;
}

[[noreturn]] void refuse_outside(const std::string& path, const std::vector<std::string>& roots) {
  throw ConfigError(
      fmt::format("{}: outside the folders this server may read (--root: {})", path, fmt::join(roots, ", ")));
}

// The path with its links followed as far as they lead: a dangling link is followed to the name it
// points at (whose folder is then resolved), so that a file it would create is judged where it lands.
fs::path resolve_links(const fs::path& path) {
  std::error_code ec;
  fs::path at = fs::absolute(path, ec);
  for (int hops = 0; hops < 40; ++hops) {
    fs::path resolved = fs::weakly_canonical(at, ec);
    if (ec) return {};
    if (!fs::is_symlink(fs::symlink_status(resolved, ec))) return resolved;
    fs::path target = fs::read_symlink(resolved, ec);
    if (ec) return {};
    at = target.is_absolute() ? target : resolved.parent_path() / target;
  }
  return {};  // a loop of links: never beneath anything
}

}  // namespace

PathConfinement::PathConfinement(std::vector<std::string> folders) {
  std::unique_lock lock(g_mutex);
  previous_ = std::exchange(g_folders, std::move(folders));
}

PathConfinement::~PathConfinement() {
  std::unique_lock lock(g_mutex);
  g_folders = std::move(previous_);
}

bool paths_confined() {
  std::shared_lock lock(g_mutex);
  return !g_folders.empty();
}

bool path_is_beneath(const std::string& resolved, const std::string& root) {
  fs::path path(resolved);
  fs::path top(root);
  auto p = path.begin();
  for (auto r = top.begin(); r != top.end(); ++r, ++p) {
    if (r->empty()) continue;  // the trailing "" of a root that ends with "/"
    if (p == path.end() || *p != *r) return false;
  }
  return true;
}

std::string check_confined_path(const std::string& path) {
  std::vector<std::string> roots = folders();
  if (roots.empty()) return path;
  fs::path resolved = resolve_links(path);
  if (!resolved.empty())
    for (const std::string& root : roots)
      if (path_is_beneath(resolved.string(), root)) return resolved.string();
  refuse_outside(path, roots);
}

void check_confined_descriptor(int fd, const std::string& path) {
  std::vector<std::string> roots = folders();
  if (roots.empty()) return;
  char link[4096];
  std::string proc = fmt::format("/proc/self/fd/{}", fd);
  ssize_t n = ::readlink(proc.c_str(), link, sizeof link - 1);
  if (n > 0) {
    std::string resolved(link, static_cast<std::size_t>(n));
    for (const std::string& root : roots)
      if (path_is_beneath(resolved, root)) return;
  }
  refuse_outside(path, roots);
}

}  // namespace perfgate
