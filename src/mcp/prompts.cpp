// The server's prompts (prompts/list, prompts/get): one, `discover`, that walks an agent through
// the tools from finding the profiles to the rows behind a finding.
#include <fmt/format.h>

#include "mcp/jsonrpc.h"
#include "mcp/session.h"

namespace perfgate::mcp {
namespace {

constexpr std::string_view kDiscover =
    "Find out where the time of a deep-learning run goes, with the perfgate tools.\n"
    "1. list_profiles{}: the profiles under the server's roots, with their format and size.\n"
    "2. analyze{paths: [...]}: one run (several files are its workers). Read the verdict, the headline "
    "metrics and the findings that did not pass; keep the report_id.\n"
    "3. For each finding: explain{report, finding} gives its rule, its limits and the rows behind it.\n"
    "4. table{report} lists the tables; table{report, table, sort: \"-column\", limit} reads one a page at a "
    "time (ops, kernels, iterations, gpu_gaps, ...).\n"
    "5. metrics{prefix} says what a metric means and how it is computed.\n"
    "6. compare{paths, baseline} (or report and baseline_report ids) says what changed against another run; "
    "trend{history} shows a metric across a run history.\n"
    "Quote numbers as the tools return them, with their units.";

}  // namespace

json::array prompt_list() {
  return {json::object{
      {"name", "discover"},
      {"title", "Profile a run with perfgate"},
      {"description", "The steps from the profiles under the roots to the findings and the rows behind them"},
      {"arguments", json::array{json::object{{"name", "folder"},
                                             {"description", "A folder under the roots to look in first"},
                                             {"required", false}}}}}};
}

json::object get_prompt(const std::string& name, const json::object& arguments) {
  if (name != "discover")
    throw RpcError(kInvalidParams, fmt::format("unknown prompt \"{}\" (prompts/list names them)", name));
  std::string text(kDiscover);
  if (const json::value* folder = arguments.if_contains("folder"); folder && folder->is_string())
    text += fmt::format("\nLook in {} first: list_profiles{{folder: {}}}.", folder->get_string().subview(),
                        json::serialize(*folder));
  return {{"description", "Profile a run with perfgate"},
          {"messages",
           json::array{json::object{{"role", "user"}, {"content", {{"type", "text"}, {"text", text}}}}}}};
}

}  // namespace perfgate::mcp
