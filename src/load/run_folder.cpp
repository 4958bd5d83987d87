// The inputs of a run: files named, and run folders whose trace files are the workers.
#include <algorithm>
#include <filesystem>
#include <limits>
#include <memory>
#include <optional>
#include <string_view>
#include <unordered_map>

#include <fmt/format.h>

#include "common/errors.h"
#include "common/path_confinement.h"
#include "io/byte_source.h"
#include "load/load.h"
#include "load/reader.h"

namespace perfgate {
namespace fs = std::filesystem;
namespace {

// What std::filesystem::path::filename() gives of a POSIX path (all after the last '/'), without
// splitting the path into its parts: a run folder's ranks are named by it several times each.
std::string_view file_name_of(const std::string& path) {
  std::size_t slash = path.rfind('/');
  return std::string_view(path).substr(slash == std::string::npos ? 0 : slash + 1);
}

bool looks_like_trace_name(std::string_view name) {
  return name.ends_with(".json") || name.ends_with(".json.gz") || name.ends_with(".sqlite") ||
         name.ends_with(".xplane.pb");
}

// A PyTorch memory snapshot's name as torch.cuda.memory._dump_snapshot's users give it
// (snapshot.pickle, gzipped or not; .pkl): a folder's snapshots are read where it holds no trace
// files (issue 91, item 7), each as it is alone.
bool looks_like_snapshot_name(std::string_view name) {
  return name.ends_with(".pickle") || name.ends_with(".pickle.gz") || name.ends_with(".pkl") ||
         name.ends_with(".pkl.gz");
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

// How many of a folder's files the message for a folder without trace files looks into.
constexpr std::size_t kUnreadFilesLooked = 256;

// What a folder without trace files holds that perfgate knows and does not read (a DLProf report's
// CSVs, an Nsight Systems report, rocprof's CSVs; load/reader.h, known_unread), each kind with its
// first file, how many more, and what to give perfgate instead; empty where it holds none. Reads
// the first 4 KiB of at most kUnreadFilesLooked regular files, in natural order of their names.
std::string unread_in_folder(const std::string& folder) {
  std::vector<std::string> paths;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(folder, ec)) {
    std::error_code type_ec;
    if (entry.is_regular_file(type_ec)) paths.push_back(entry.path().native());
  }
  std::sort(paths.begin(), paths.end(), natural_path_less);
  if (paths.size() > kUnreadFilesLooked) paths.resize(kUnreadFilesLooked);
  struct Kind {
    KnownUnread format;
    std::string first;
    std::size_t more = 0;
  };
  std::vector<Kind> kinds;
  for (const std::string& path : paths) {
    std::string head;
    try {
      check_confined_path(path);
      head = read_head(*open_input_file(path), kFileHeadBytes);
    } catch (const std::exception&) {  // unreadable or out of the roots: not looked into
      continue;
    }
    std::optional<KnownUnread> format = known_unread(path, head);
    if (!format) continue;
    auto kind = std::find_if(kinds.begin(), kinds.end(),
                             [&](const Kind& k) { return k.format.what == format->what; });
    if (kind == kinds.end())
      kinds.push_back({*format, std::string(file_name_of(path)), 0});
    else
      ++kind->more;
  }
  std::string out;
  for (const Kind& k : kinds)
    out += fmt::format("; {}{} {} {}, which perfgate does not read: give it {}", k.first,
                       k.more ? fmt::format(" and {} more", k.more) : std::string(), k.more ? "are" : "is",
                       k.format.what, k.format.instead);
  return out;
}

// A run folder: its trace files, in natural order of their names (rank-2 before rank-10), are the
// workers; where it holds none, its memory snapshots are (each read as it is alone). An entry with
// a worker's name that is not a regular file would be a worker lost without a word (the plugin
// lists it as a run's file too): the first of them, in that order, is an error.
std::vector<std::string> expand_folder(const std::string& folder) {
  std::vector<std::string> files, snapshots;
  std::vector<std::pair<std::string, std::string>> unusable, unusable_snapshots;  // path, why
  std::vector<std::string> names, snapshot_names;  // of `files` and `snapshots`, in the same order
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(folder, ec)) {
    const std::string& path = entry.path().native();
    std::string_view name = file_name_of(path);
    bool trace = looks_like_trace_name(name);
    if (!trace && !looks_like_snapshot_name(name)) continue;
    check_confined_path(path);  // a link out of the roots is refused, not read
    // A regular file by the folder's listing needs no stat (a link or an unknown type does).
    std::error_code type_ec;
    if (std::string why = entry.is_regular_file(type_ec) ? std::string() : not_a_trace_file(entry);
        !why.empty()) {
      (trace ? unusable : unusable_snapshots).emplace_back(path, std::move(why));
      continue;
    }
    (trace ? files : snapshots).push_back(path);
    (trace ? names : snapshot_names).emplace_back(name);
  }
  if (ec) throw InputError(fmt::format("{}: cannot list folder: {}", folder, ec.message()));
  if (files.empty() && unusable.empty()) {  // a folder of memory snapshots, or of nothing perfgate reads
    files = std::move(snapshots);
    names = std::move(snapshot_names);
    unusable = std::move(unusable_snapshots);
  }
  if (!unusable.empty()) {
    auto first = std::min_element(unusable.begin(), unusable.end(), [](const auto& a, const auto& b) {
      return natural_path_less(a.first, b.first);
    });
    throw InputError(fmt::format("{}: a run folder's trace file is {}; remove it or give the workers' files",
                                 first->first, first->second));
  }
  if (files.empty())
    throw InputError(fmt::format(
        "{}: the folder holds no trace files (*.json, *.json.gz, *.sqlite, *.xplane.pb) and no memory "
        "snapshots (*.pickle, *.pkl){}",
        folder, unread_in_folder(folder)));
  // Every path is the folder's path, a separator and a name: ordering the names orders the paths
  // (natural_path_less walks the shared prefix in step), without comparing the prefix each time.
  std::vector<std::size_t> order(files.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(),
            [&names](std::size_t a, std::size_t b) { return natural_path_less(names[a], names[b]); });
  std::vector<std::string> sorted;
  sorted.reserve(files.size());
  for (std::size_t i : order) sorted.push_back(std::move(files[i]));
  return sorted;
}

// How many bytes of sniffed files resolve_inputs keeps for their loads: a sixteenth of the memory
// budget (the run's --max-memory, handed down by the engine), all of them without one.
std::uint64_t kept_sniffed_bytes_at_most(std::uint64_t budget) {
  return budget ? budget / 16 : std::numeric_limits<std::uint64_t>::max();
}

// A profile given as bytes, sniffed as a file of its name would be. Its bytes are held for every
// load (InputFile::held), not kept within the memory budget: the caller holds them already.
InputFile input_of_bytes(const ProfileBytes& profile) {
  static const auto kNone = std::make_shared<const std::string>();
  InputFile input;
  input.path = profile.name;
  input.worker = worker_name_from_path(profile.name);
  auto stored = std::make_unique<MemoryInput>(profile.name, profile.bytes ? profile.bytes : kNone);
  input.bytes = stored->stored_bytes();
  SniffedInput sniffed = sniff_input(std::move(stored));
  input.format = sniffed.reader ? sniffed.reader->name : "";
  if (input.format.empty()) throw InputError(fmt::format("{}: not {}", input.path, formats_read()));
  input.held = std::move(sniffed.bytes);
  return input;
}

}  // namespace

std::vector<InputFile> resolve_inputs(const std::vector<std::string>& paths, std::uint64_t memory_budget,
                                      const std::vector<ProfileBytes>& given) {
  std::vector<InputFile> inputs;
  std::unordered_map<std::string_view, const ProfileBytes*> given_by_name;
  for (const ProfileBytes& profile : given) given_by_name.emplace(profile.name, &profile);
  // Every input is sniffed before the first is loaded, so the bytes kept for the loads are held all
  // at once: 65,536 tiny ranks kept 88 MB, which under --max-memory 64M doubled the peak (154 MB)
  // and the spilling cost 60 s of CPU. They are kept within a sixteenth of the memory budget; past
  // it a file is opened again by its load.
  std::uint64_t keep_at_most = kept_sniffed_bytes_at_most(memory_budget);
  std::uint64_t kept = 0;
  for (const auto& path : paths) {
    if (auto named = given_by_name.find(path); named != given_by_name.end()) {
      inputs.push_back(input_of_bytes(*named->second));
      continue;
    }
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
    // The inputs are made before any is sniffed, and the small files' sniffed bytes kept in slots
    // made with them: what the run keeps of an input lies apart from the bytes its load frees, so
    // the memory they free is whole again (65,536 ranks: 1,606 MB peak, 1,608 MB made one by one).
    std::size_t first = inputs.size();
    auto slots = std::make_shared<std::vector<std::optional<SniffedBytes>>>(files.size());
    for (std::string& file : files) {
      InputFile& input = inputs.emplace_back();
      input.worker = worker_name_from_path(file);
      input.path = std::move(file);
      if (folder) input.folder = path;
    }
    for (std::size_t k = 0; first + k < inputs.size(); ++k) {
      InputFile& input = inputs[first + k];
      // Seen a regular file by the folder's listing or the stat above; checked and sized when opened.
      auto stored = std::make_unique<FileInput>(input.path, SeenRegularFile{});
      const FileInput& file_input = *stored;
      input.bytes = stored->stored_bytes();
      input.identity = stored->identity();
      SniffedInput sniffed = sniff_input(std::move(stored));
      input.format = sniffed.reader ? sniffed.reader->name : "";
      if (input.format.empty()) throw InputError(fmt::format("{}: not {}", input.path, formats_read()));
      if (file_input.holds_bytes() && kept + input.bytes <= keep_at_most) {
        kept += input.bytes;
        input.sniffed = std::shared_ptr<SniffedBytes>(slots, &(*slots)[k].emplace(std::move(sniffed.bytes)));
      }
    }
  }
  return inputs;
}

SniffedBytes::SniffedBytes(std::unique_ptr<ByteInput> input) : input_(std::move(input)) {}

SniffedBytes::~SniffedBytes() = default;

std::unique_ptr<ByteInput> SniffedBytes::take() {
  std::lock_guard lock(mutex_);
  return std::move(input_);
}

std::string worker_name_from_path(const std::string& path) {
  std::string name(file_name_of(path));
  for (std::string_view suffix : {".gz", ".json", ".sqlite", ".pb", ".xplane", ".pt.trace", ".trace"}) {
    if (name.size() > suffix.size() && name.ends_with(suffix)) name.resize(name.size() - suffix.size());
  }
  return name;
}

std::optional<std::int64_t> rank_from_file_name(const std::string& path) {
  std::string_view name = file_name_of(path);
  std::size_t at = name.rfind("rank_");
  if (at == std::string::npos) return std::nullopt;
  std::size_t digits = at + 5, end = digits;
  while (end < name.size() && end - digits < 9 && name[end] >= '0' && name[end] <= '9') ++end;
  if (end == digits) return std::nullopt;
  return std::stoll(std::string(name.substr(digits, end - digits)));
}

}  // namespace perfgate
