// Where graph-capture traces are: named with --graph-capture, or recorded beside the replay trace in
// the layout vLLM and SGLang write (capture_traces/ with execution_details.json, as TraceLens's
// load_capture_folder reads it: a list of {"file", "batch_size", "mode"}).
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <boost/json/parse.hpp>
#include <boost/json/value.hpp>

#include "perfgate/errors.h"
#include "perfgate/load.h"

namespace perfgate {
namespace fs = std::filesystem;
namespace {

constexpr const char* kDetails = "execution_details.json";

// The files execution_details.json lists that exist in its folder, in its order.
std::vector<std::string> listed_captures(const fs::path& folder) {
  fs::path details = folder / kDetails;
  std::ifstream in(details, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  boost::system::error_code ec;
  boost::json::value v = boost::json::parse(text.str(), ec);
  if (ec || !v.is_array())
    throw InputError(fmt::format("{}: not a list of capture files ({})", details.string(),
                                 ec ? ec.message() : "expected a JSON array"));
  std::vector<std::string> files;
  for (const boost::json::value& entry : v.as_array()) {
    const boost::json::object* o = entry.if_object();
    const boost::json::value* file = o ? o->if_contains("file") : nullptr;
    if (!file || !file->is_string()) continue;
    fs::path path = folder / std::string(file->as_string());
    if (path.filename() == path.lexically_normal().filename() && fs::is_regular_file(path))
      files.push_back(path.string());
  }
  return files;
}

}  // namespace

std::vector<std::string> graph_capture_files(const std::string& path) {
  std::error_code ec;
  if (!fs::is_directory(path, ec)) return {path};
  if (fs::is_regular_file(fs::path(path) / kDetails, ec)) return listed_captures(path);
  std::vector<std::string> files;
  for (const InputFile& f : resolve_inputs({path})) files.push_back(f.path);
  return files;
}

std::vector<std::string> captures_beside(const std::string& trace_path) {
  std::error_code ec;
  fs::path at(trace_path);
  fs::path folder = fs::is_directory(at, ec) ? at / "capture_traces" : at.parent_path() / "capture_traces";
  if (!fs::is_regular_file(folder / kDetails, ec)) return {};
  return listed_captures(folder);
}

}  // namespace perfgate
