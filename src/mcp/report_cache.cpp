#include "mcp/report_cache.h"

#include <boost/uuid/name_generator_sha1.hpp>
#include <boost/uuid/uuid_io.hpp>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <system_error>

#include <fmt/format.h>

#include "common/errors.h"
#include "common/version.h"
#include "io/byte_source.h"
#include "io/io.h"

namespace perfgate::mcp {
namespace fs = std::filesystem;
namespace json = boost::json;

namespace {

constexpr std::size_t kIdDigits = 16;

// A file as the identity sees it: its size and modification time (a file changed in place, or
// replaced, gives another id); "absent" where it cannot be read.
std::string file_identity(const std::string& path) {
  std::error_code ec;
  fs::file_time_type time = fs::last_write_time(path, ec);
  if (ec) return path + " absent";
  std::uintmax_t size = fs::is_regular_file(path, ec) ? fs::file_size(path, ec) : 0;
  return fmt::format("{} {} {}", path, ec ? 0 : size, time.time_since_epoch().count());
}

// A file of the cache folder checked as any input is: a regular file (a FIFO or a device is never
// opened), within the limit; its size.
std::uint64_t checked_size(const std::string& path, std::uint64_t max_bytes) {
  check_regular_file(path);
  std::error_code ec;
  std::uintmax_t size = fs::file_size(path, ec);
  if (ec) throw InputError(fmt::format("{}: cannot be read: {}", path, ec.message()));
  if (max_bytes != 0 && size > max_bytes)
    throw InputError(fmt::format("{}: {} is more than --max-input-memory ({}): not read (remove it)", path,
                                 byte_size_text(size), byte_size_text(max_bytes)));
  return size;
}

}  // namespace

std::string read_text_file(const std::string& path, std::uint64_t max_bytes) {
  std::uint64_t size = checked_size(path, max_bytes);
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(fmt::format("{}: cannot be read", path));
  // Its size when checked, and no more: a file that grows meanwhile is cut there, never read on.
  std::string text(static_cast<std::size_t>(size), '\0');
  in.read(text.data(), static_cast<std::streamsize>(size));
  text.resize(static_cast<std::size_t>(in.gcount()));
  return text;
}

json::value read_json_file(const std::string& path, std::uint64_t max_bytes, json::storage_ptr storage) {
  std::uint64_t size = checked_size(path, max_bytes);
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(fmt::format("{}: cannot be read", path));
  // Parsed as it is read: a file that is no JSON (a sparse file of zeros) fails at its first bad byte.
  json::stream_parser parser(std::move(storage));
  char piece[64 << 10];
  std::uint64_t read = 0;
  std::error_code ec;
  while (read < size && in) {
    in.read(piece, static_cast<std::streamsize>(std::min<std::uint64_t>(sizeof piece, size - read)));
    auto got = static_cast<std::size_t>(in.gcount());
    if (got == 0) break;
    std::size_t used = parser.write(piece, got, ec);
    if (ec) {
      read += used;
      break;
    }
    read += got;
  }
  if (!ec) parser.finish(ec);
  if (ec)
    throw InputError(
        fmt::format("{}: not JSON this server wrote (it stops making sense at byte {}): remove it and "
                    "analyze again",
                    path, read));
  return parser.release();
}

std::string canonical_json(const json::value& value) {
  if (value.is_array()) {
    std::string out = "[";
    for (const json::value& item : value.get_array())
      out += (out.size() > 1 ? "," : "") + canonical_json(item);
    return out + "]";
  }
  if (!value.is_object()) return json::serialize(value);
  std::vector<std::pair<std::string_view, const json::value*>> members;
  for (const auto& [key, item] : value.get_object()) members.emplace_back(key, &item);
  std::sort(members.begin(), members.end());
  std::string out = "{";
  for (const auto& [key, item] : members)
    out += (out.size() > 1 ? "," : "") + json::serialize(json::string(key)) + ":" + canonical_json(*item);
  return out + "}";
}

std::string content_id(std::string_view tool, const json::object& arguments,
                       const std::vector<std::string>& reads) {
  // Its version too: another perfgate may make other numbers of the same files.
  std::string identity = fmt::format("perfgate {}\n{}\n{}\n", kVersion, tool, canonical_json(arguments));
  for (const std::string& path : reads) identity += file_identity(path) + "\n";
  boost::uuids::name_generator_sha1 hash(boost::uuids::ns::url());
  std::string digits = boost::uuids::to_string(hash(identity));
  digits.erase(std::remove(digits.begin(), digits.end(), '-'), digits.end());
  return "r" + digits.substr(0, kIdDigits);
}

bool is_content_id(std::string_view id) {
  return id.size() == 1 + kIdDigits && id[0] == 'r' && std::all_of(id.begin() + 1, id.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
         });
}

std::string ReportCache::folder() const {
  return (fs::path(roots_.folders().front()) / kCacheFolder).string();
}

void ReportCache::store(const std::string& id, const std::string& report_json,
                        const json::object& call) const {
  std::error_code ec;
  if (!fs::exists(folder(), ec) && !fs::create_directory(folder(), ec) && ec)
    throw OutputError(fmt::format("{}: cannot be made: {}", folder(), ec.message()));
  std::string inside = roots_.check(folder());  // a link out of the roots is refused
  write_file_atomically((fs::path(inside) / (id + ".json")).string(), report_json);
  write_file_atomically((fs::path(inside) / (id + ".call.json")).string(), json::serialize(call));
  prune(inside, id);
}

void ReportCache::prune(const std::string& folder, const std::string& kept) const {
  struct Stored {
    fs::file_time_type time;
    std::uint64_t bytes = 0;
    std::string id;
  };
  std::vector<Stored> stored;
  std::error_code ec;
  for (fs::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) {
    std::string name = it->path().filename().string();
    if (!name.ends_with(".json") || name.ends_with(".call.json")) continue;
    std::string id = name.substr(0, name.size() - 5);
    std::error_code file_ec;
    if (!is_content_id(id) || !it->is_regular_file(file_ec)) continue;  // what the server did not write stays
    std::uint64_t bytes = it->file_size(file_ec);
    bytes += fs::file_size(fs::path(folder) / (id + ".call.json"), file_ec);
    stored.push_back({it->last_write_time(file_ec), bytes, std::move(id)});
  }
  // Newest first (ties by id, so that every server drops the same ones); the newest within the
  // limits stay, and the one just stored whatever its size: from the first that does not fit, every
  // older one goes.
  std::sort(stored.begin(), stored.end(), [](const Stored& a, const Stored& b) {
    return a.time != b.time ? a.time > b.time : a.id < b.id;
  });
  std::size_t reports = 0;
  std::uint64_t bytes = 0;
  bool full = false;
  for (const Stored& s : stored) {
    full = full || reports >= limits_.max_reports || bytes + s.bytes > limits_.max_bytes;
    if (s.id == kept || !full) {
      ++reports;
      bytes += s.bytes;
      continue;
    }
    // The call first: a report without its call is not found.
    fs::remove(fs::path(folder) / (s.id + ".call.json"), ec);
    fs::remove(fs::path(folder) / (s.id + ".json"), ec);
  }
}

std::optional<ReportCache::Entry> ReportCache::find(const std::string& id) const {
  if (!is_content_id(id)) return std::nullopt;
  std::error_code ec;
  fs::path base = fs::path(folder()) / id;
  std::string report = base.string() + ".json";
  std::string call = base.string() + ".call.json";
  if (!fs::exists(report, ec) || !fs::exists(call, ec)) return std::nullopt;
  Entry entry{roots_.check(report), {}};
  check_regular_file(entry.report_path);
  json::value parsed = read_json_file(roots_.check(call), limits_.max_file_bytes);
  // What Session::cached and compare read of it: {tool, arguments, run: {paths: [...], ...}}.
  const json::object* object = parsed.if_object();
  auto has = [&](std::string_view key, json::kind kind) {
    const json::value* v = object->if_contains(key);
    return v && v->kind() == kind;
  };
  auto paths_are_texts = [&] {
    const json::value* paths = object->at("run").get_object().if_contains("paths");
    return paths && paths->is_array() &&
           std::ranges::all_of(paths->get_array(), [](const json::value& p) { return p.is_string(); });
  };
  if (!object || !has("tool", json::kind::string) || !has("arguments", json::kind::object) ||
      !has("run", json::kind::object) || !paths_are_texts())
    throw InputError(fmt::format("{}: not a call this server stored (remove it and analyze again)", call));
  entry.call = std::move(parsed.as_object());
  return entry;
}

}  // namespace perfgate::mcp
