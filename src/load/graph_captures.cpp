// Where graph-capture traces are: named with --graph-capture, or recorded beside the replay trace in
// the layout vLLM and SGLang write (capture_traces/ with execution_details.json, as TraceLens's
// load_capture_folder reads it: a list of {"file", "batch_size", "mode"}).
#include <algorithm>
#include <filesystem>

#include <fmt/format.h>
#include <boost/json/parse.hpp>
#include <boost/json/value.hpp>

#include "common/errors.h"
#include "common/path_confinement.h"
#include "io/byte_source.h"
#include "io/input_limit.h"
#include "load/load.h"

namespace perfgate {
namespace fs = std::filesystem;
namespace {

constexpr const char* kDetails = "execution_details.json";

// vLLM and SGLang write one entry per captured batch size: a few kB.
constexpr std::uint64_t kMaxDetailsBytes = std::uint64_t{4} << 20;

// execution_details.json, read whole only when it is a regular file within both bounds.
std::string read_details(const fs::path& details, std::uint64_t max_input_memory) {
  std::string path = details.string();
  check_regular_file(path);
  std::uint64_t limit =
      max_input_memory == 0 ? kMaxDetailsBytes : std::min(kMaxDetailsBytes, max_input_memory);
  FileSource source(path);
  if (source.file_size() > limit)
    throw InputError(fmt::format("{}: {} bytes, more than a list of capture files holds (at most {})", path,
                                 source.file_size(), limit));
  std::string text(static_cast<std::size_t>(source.file_size()), '\0');
  text.resize(read_fully(source, text.data(), text.size()));
  check_input_memory(path, text.size(), max_input_memory);
  return text;
}

// An entry names a file of the folder: relative, no "..", and inside it once links are resolved.
bool inside(const fs::path& folder, const std::string& entry) {
  fs::path relative(entry);
  if (entry.empty() || relative.is_absolute() || relative.has_root_name()) return false;
  for (const fs::path& part : relative)
    if (part == "..") return false;
  std::error_code ec;
  fs::path base = fs::weakly_canonical(folder, ec);
  if (ec) return false;
  fs::path resolved = fs::weakly_canonical(folder / relative, ec);
  if (ec) return false;
  auto [end, at] = std::mismatch(base.begin(), base.end(), resolved.begin(), resolved.end());
  return end == base.end() && at != resolved.end();
}

// The files execution_details.json lists that exist in its folder, in its order.
CaptureFiles listed_captures(const fs::path& folder, std::uint64_t max_input_memory) {
  fs::path details = folder / kDetails;
  boost::system::error_code ec;
  boost::json::value v = boost::json::parse(read_details(details, max_input_memory), ec);
  if (ec || !v.is_array())
    throw InputError(fmt::format("{}: not a list of capture files ({})", details.string(),
                                 ec ? ec.message() : "expected a JSON array"));
  CaptureFiles out;
  out.read.push_back(details.string());
  std::size_t outside = 0;
  for (const boost::json::value& entry : v.as_array()) {
    const boost::json::object* o = entry.if_object();
    const boost::json::value* file = o ? o->if_contains("file") : nullptr;
    if (!file || !file->is_string()) continue;
    std::string name(file->as_string());
    if (!inside(folder, name)) {
      ++outside;
      continue;
    }
    fs::path path = folder / name;
    std::error_code exists;
    if (fs::is_regular_file(path, exists)) out.files.push_back(path.string());
  }
  if (outside > 0)
    out.warnings.push_back(note<NoteId::graph_capture_files_outside>(
        arg<"details">(details.string()), arg<"count">(outside), arg<"folder">(folder.string())));
  out.read.insert(out.read.end(), out.files.begin(), out.files.end());
  return out;
}

}  // namespace

CaptureFiles graph_capture_files(const std::string& path, std::uint64_t max_input_memory,
                                 std::uint64_t memory_budget) {
  std::error_code ec;
  check_confined_path(path);
  if (!fs::is_directory(path, ec)) return {{path}, {path}, {}};
  if (fs::exists(fs::path(path) / kDetails, ec)) return listed_captures(path, max_input_memory);
  CaptureFiles out;
  for (const InputFile& f : resolve_inputs({path}, memory_budget)) out.files.push_back(f.path);
  out.read = out.files;
  return out;
}

std::string captures_folder_of(const std::string& trace_path) {
  std::size_t slash = trace_path.rfind('/');
  return slash == std::string::npos ? std::string() : trace_path.substr(0, slash + 1);
}

CaptureFiles captures_beside(const std::string& trace_path, std::uint64_t max_input_memory) {
  std::error_code ec;
  fs::path at(trace_path);
  fs::path folder = fs::is_directory(at, ec) ? at / "capture_traces" : at.parent_path() / "capture_traces";
  if (!fs::exists(folder / kDetails, ec)) return {};
  check_confined_path(folder.string());  // a capture_traces link out of the roots is refused
  return listed_captures(folder, max_input_memory);
}

}  // namespace perfgate
