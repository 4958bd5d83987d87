// The inputs of a run: files named, and run folders whose trace files are the workers.
#include <algorithm>
#include <filesystem>
#include <string_view>

#include <fmt/format.h>

#include "common/errors.h"
#include "common/path_confinement.h"
#include "load/load.h"
#include "load/reader.h"

namespace perfgate {
namespace fs = std::filesystem;
namespace {

bool looks_like_trace_name(const std::string& name) {
  return name.ends_with(".json") || name.ends_with(".json.gz") || name.ends_with(".sqlite") ||
         name.ends_with(".xplane.pb");
}

}  // namespace

bool natural_path_less(const std::string& a, const std::string& b) {
  auto digit = [](char c) { return c >= '0' && c <= '9'; };
  std::size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (digit(a[i]) && digit(b[j])) {
      std::size_t i_end = i, j_end = j;
      while (i_end < a.size() && digit(a[i_end])) ++i_end;
      while (j_end < b.size() && digit(b[j_end])) ++j_end;
      std::size_t i_first = a.find_first_not_of('0', i), j_first = b.find_first_not_of('0', j);
      i_first = std::min(i_first, i_end);
      j_first = std::min(j_first, j_end);
      std::string_view x(a.data() + i_first, i_end - i_first), y(b.data() + j_first, j_end - j_first);
      if (x.size() != y.size()) return x.size() < y.size();
      if (x != y) return x < y;
      if (i_end - i != j_end - j) return i_end - i < j_end - j;
      i = i_end;
      j = j_end;
    } else {
      if (a[i] != b[j]) return static_cast<unsigned char>(a[i]) < static_cast<unsigned char>(b[j]);
      ++i;
      ++j;
    }
  }
  return a.size() - i < b.size() - j;
}

namespace {

const char* file_type_name(fs::file_type type) {
  switch (type) {
    case fs::file_type::fifo:
      return "a named pipe";
    case fs::file_type::socket:
      return "a socket";
    case fs::file_type::block:
      return "a block device";
    case fs::file_type::character:
      return "a character device";
    default:
      return "not a plain file";
  }
}

// Why a folder entry with a trace's name cannot be a worker's trace, or empty when it is a regular
// file (or a link to one). Only its status is read: opening a FIFO would block.
std::string not_a_trace_file(const fs::directory_entry& entry) {
  std::error_code ec;
  fs::file_status target = entry.status(ec);
  if (fs::is_regular_file(target)) return {};
  std::error_code link_ec;
  if (entry.is_symlink(link_ec) && target.type() == fs::file_type::not_found)
    return fmt::format("a dangling symbolic link (to '{}')",
                       fs::read_symlink(entry.path(), link_ec).string());
  if (fs::is_directory(target)) return "a folder";
  if (target.type() == fs::file_type::none || target.type() == fs::file_type::not_found)
    return fmt::format("unreadable ({})", ec.message());
  return file_type_name(target.type());
}

// A run folder: its trace files, in natural order of their names (rank-2 before rank-10), are the
// workers. An entry with a trace's name that is not a regular file would be a worker lost without
// a word (the plugin lists it as a run's file too): the first of them, in that order, is an error.
std::vector<std::string> expand_folder(const std::string& folder) {
  std::vector<std::string> files;
  std::vector<std::pair<std::string, std::string>> unusable;  // path, why
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(folder, ec)) {
    if (!looks_like_trace_name(entry.path().filename().string())) continue;
    check_confined_path(entry.path().string());  // a link out of the roots is refused, not read
    if (std::string why = not_a_trace_file(entry); !why.empty())
      unusable.emplace_back(entry.path().string(), std::move(why));
    else
      files.push_back(entry.path().string());
  }
  if (ec) throw InputError(fmt::format("{}: cannot list folder: {}", folder, ec.message()));
  if (!unusable.empty()) {
    auto first = std::min_element(unusable.begin(), unusable.end(), [](const auto& a, const auto& b) {
      return natural_path_less(a.first, b.first);
    });
    throw InputError(fmt::format("{}: a run folder's trace file is {}; remove it or give the workers' files",
                                 first->first, first->second));
  }
  if (files.empty())
    throw InputError(fmt::format(
        "{}: the folder holds no trace files (*.json, *.json.gz, *.sqlite, *.xplane.pb)", folder));
  std::sort(files.begin(), files.end(), natural_path_less);
  return files;
}

}  // namespace

std::vector<InputFile> resolve_inputs(const std::vector<std::string>& paths) {
  std::vector<InputFile> inputs;
  for (const auto& path : paths) {
    check_confined_path(path);
    std::error_code ec;
    auto status = fs::status(path, ec);
    if (status.type() == fs::file_type::not_found)
      throw InputError(fmt::format("{}: no such file or folder", path));
    // A folder on the way without search permission: say so, not "no such file".
    if (ec) throw InputError(fmt::format("{}: cannot read: {}", path, ec.message()));
    // A FIFO, a device or a socket could block forever or never end.
    if (!fs::is_directory(status) && !fs::is_regular_file(status))
      throw InputError(fmt::format("{}: not a regular file or a folder ({}); give a trace file", path,
                                   file_type_name(status.type())));
    bool folder = fs::is_directory(status);
    std::vector<std::string> files = folder ? expand_folder(path) : std::vector<std::string>{path};
    for (auto& file : files) {
      InputFile input;
      input.path = file;
      if (folder) input.folder = path;
      input.format = detect_format(file);
      input.bytes = fs::file_size(file, ec);
      input.worker = worker_name_from_path(file);
      if (input.format.empty()) throw InputError(fmt::format("{}: not {}", file, formats_read()));
      inputs.push_back(std::move(input));
    }
  }
  return inputs;
}

std::string worker_name_from_path(const std::string& path) {
  std::string name = fs::path(path).filename().string();
  for (std::string_view suffix : {".gz", ".json", ".sqlite", ".pb", ".xplane", ".pt.trace", ".trace"}) {
    if (name.size() > suffix.size() && name.ends_with(suffix)) name.resize(name.size() - suffix.size());
  }
  return name;
}

std::optional<std::int64_t> rank_from_file_name(const std::string& path) {
  std::string name = fs::path(path).filename().string();
  std::size_t at = name.rfind("rank_");
  if (at == std::string::npos) return std::nullopt;
  std::size_t digits = at + 5, end = digits;
  while (end < name.size() && end - digits < 9 && name[end] >= '0' && name[end] <= '9') ++end;
  if (end == digits) return std::nullopt;
  return std::stoll(name.substr(digits, end - digits));
}

}  // namespace perfgate
