// list_profiles: the files under the roots (or a folder of them) that a reader claims, with their
// format and size, a page at a time. Links are not followed (a link could lead out of the roots),
// hidden folders (the cache folder among them) are not entered, and the walk stops after
// kMaxEntriesWalked entries, saying so.
#include <filesystem>
#include <system_error>

#include <fmt/format.h>

#include "common/errors.h"
#include "engine/front_end_support.h"
#include "mcp/session.h"
#include "mcp/tool_args.h"

namespace perfgate::mcp {
namespace {
namespace fs = std::filesystem;

constexpr std::size_t kMaxEntriesWalked = 20000;
constexpr std::int64_t kMaxProfiles = 200;

// The reader that claims the file, or empty (an unreadable or empty file is no profile).
std::string format_of(const std::string& path) {
  try {
    return profile_format(path);
  } catch (const InputError&) {
    return "";
  }
}

struct Walk {
  json::array found;  // {path, format, bytes}, in the walk's order
  std::size_t entries = 0;
  bool cut = false;  // stopped at kMaxEntriesWalked
};

void walk(const std::string& folder, Walk& out) {
  std::error_code ec;
  fs::recursive_directory_iterator it(folder, fs::directory_options::skip_permission_denied, ec);
  for (; !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (++out.entries > kMaxEntriesWalked) {
      out.cut = true;
      return;
    }
    const fs::directory_entry& entry = *it;
    std::error_code type_ec;
    if (entry.is_symlink(type_ec)) continue;
    if (entry.is_directory(type_ec)) {
      if (entry.path().filename().string().starts_with(".")) it.disable_recursion_pending();
      continue;
    }
    if (!entry.is_regular_file(type_ec)) continue;
    std::string path = entry.path().string();
    std::string format = format_of(path);
    if (format.empty()) continue;
    out.found.push_back({{"path", path}, {"format", format}, {"bytes", entry.file_size(type_ec)}});
  }
}

}  // namespace

ToolOutput list_profiles_tool(Session& session, const json::object& raw) {
  ToolArgs args("list_profiles", raw, {"folder", "offset", "limit"});
  std::vector<std::string> folders = session.roots().folders();
  if (std::optional<std::string> folder = args.text("folder")) folders = {session.roots().check(*folder)};
  std::size_t offset = static_cast<std::size_t>(args.integer("offset", 0, 1 << 20).value_or(0));
  std::size_t limit = static_cast<std::size_t>(args.integer("limit", 1, kMaxProfiles).value_or(50));
  Walk found;
  for (const std::string& folder : folders) walk(folder, found);
  const json::array& all = found.found;
  json::array page;
  for (std::size_t i = offset; i < all.size() && page.size() < limit; ++i) page.push_back(all[i]);
  std::size_t next = offset + page.size();
  json::object out{{"profiles", std::move(page)}, {"total", all.size()}, {"offset", offset}};
  out["next_offset"] = next < all.size() ? json::value(next) : json::value(nullptr);
  out["walk_cut"] = found.cut;
  if (found.cut)
    out["note"] =
        fmt::format("the walk stopped after {} entries: give a folder to list less", kMaxEntriesWalked);
  return out;
}

}  // namespace perfgate::mcp
