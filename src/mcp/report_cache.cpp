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

}  // namespace

std::string read_text_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(fmt::format("{}: cannot be read", path));
  return std::string(std::istreambuf_iterator<char>(in), {});
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
}

std::optional<ReportCache::Entry> ReportCache::find(const std::string& id) const {
  if (!is_content_id(id)) return std::nullopt;
  std::error_code ec;
  fs::path base = fs::path(folder()) / id;
  std::string report = base.string() + ".json";
  std::string call = base.string() + ".call.json";
  if (!fs::exists(report, ec) || !fs::exists(call, ec)) return std::nullopt;
  Entry entry{roots_.check(report), {}};
  json::value parsed = json::parse(read_text_file(roots_.check(call)), ec);
  if (ec || !parsed.is_object())
    throw InputError(fmt::format("{}: not a call this server stored (remove it and analyze again)", call));
  entry.call = std::move(parsed.as_object());
  return entry;
}

}  // namespace perfgate::mcp
