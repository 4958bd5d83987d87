#include "mcp/session.h"

#include <algorithm>
#include <new>
#include <vector>

#include <fmt/format.h>

#include "common/errors.h"
#include "common/path_confinement.h"
#include "io/io.h"
#include "mcp/jsonrpc.h"
#include "render/render.h"

namespace perfgate::mcp {
namespace {

constexpr std::string_view kReportScheme = "perfgate://report/";

// A memory resource that counts what it holds, in a count its owner reads: a kept report's parsed
// JSON, allocated through it (make_shared_resource wraps the resource, so the count is shared).
class CountingResource : public json::memory_resource {
 public:
  explicit CountingResource(std::shared_ptr<std::uint64_t> bytes) : bytes_(std::move(bytes)) {}

 private:
  void* do_allocate(std::size_t n, std::size_t align) override {
    *bytes_ += n;
    return ::operator new(n, std::align_val_t(align));
  }
  void do_deallocate(void* p, std::size_t n, std::size_t align) override {
    *bytes_ -= n;
    // The unsized form: clang declares the sized one only with -fsized-deallocation.
    ::operator delete(p, std::align_val_t(align));
  }
  bool do_is_equal(const json::memory_resource& other) const noexcept override { return this == &other; }

  std::shared_ptr<std::uint64_t> bytes_;
};

json::object tool_error(const std::string& message, int exit_code) {
  std::string text = "perfgate: " + message;
  return {{"content", json::array{json::object{{"type", "text"}, {"text", text}}}},
          {"structuredContent", {{"error", message}, {"exit_code", exit_code}}},
          {"isError", true}};
}

}  // namespace

Session::Session(McpOptions options) : options_(std::move(options)), roots_(options_.roots) {}

const StoredReport& Session::keep(RunRequest request, ReportModel model,
                                  std::shared_ptr<const RuleBook> book) {
  std::string text = render_json(model);
  auto parsed_bytes = std::make_shared<std::uint64_t>(0);
  json::value parsed = json::parse(text, json::make_shared_resource<CountingResource>(parsed_bytes));
  StoredReport stored{.id = fmt::format("r{}", next_id_++),
                      .request = std::move(request),
                      .model = std::make_shared<const ReportModel>(std::move(model)),
                      .book = std::move(book),
                      .doc = std::move(parsed.as_object()),  // moved: keeps the counting storage
                      .bytes = 0};
  stored.bytes = *parsed_bytes + text.size();
  kept_bytes_ += stored.bytes;
  reports_.push_back(std::move(stored));
  while (reports_.size() > kMaxReportsKept ||
         (kept_budget() != 0 && kept_bytes_ > kept_budget() && reports_.size() > 1)) {
    kept_bytes_ -= reports_.front().bytes;
    reports_.pop_front();
  }
  return reports_.back();
}

const StoredReport& Session::report(const std::string& id) const {
  for (const StoredReport& r : reports_)
    if (r.id == id) return r;
  std::vector<std::string> ids;
  for (const StoredReport& r : reports_) ids.push_back(r.id);
  std::string within = kept_budget() == 0
                           ? ""
                           : fmt::format(" within half its --max-memory, {}", byte_size_text(kept_budget()));
  throw ConfigError(
      fmt::format("no report {} (this server keeps the last {} reports{}{}{}); run analyze first", id,
                  kMaxReportsKept, within, ids.empty() ? "" : ": ", fmt::join(ids, ", ")));
}

json::array Session::tool_list() const {
  return tool_definitions();
}

json::object Session::call_tool(std::string_view name, const json::object& arguments) {
  using Tool = ToolOutput (*)(Session&, const json::object&);
  static const std::pair<std::string_view, Tool> kTools[] = {
      {"analyze", analyze_tool}, {"compare", compare_tool}, {"table", table_tool},
      {"metrics", metrics_tool}, {"explain", explain_tool}, {"trend", trend_tool}};
  Tool tool = nullptr;
  for (const auto& [tool_name, fn] : kTools)
    if (tool_name == name) tool = fn;
  if (!tool) throw RpcError(kInvalidParams, fmt::format("unknown tool \"{}\" (tools/list names them)", name));
  // Every file the tool's run opens, lists or creates is checked against the roots, on the loading
  // threads too: the paths the client names, and those the files lead to (links in a run folder,
  // capture_traces, a rule file's `extends:`, a history's companions).
  PathConfinement confined(roots_.folders());
  // The exit codes and messages are the CLI's (src/cli/main.cpp).
  try {
    ToolOutput out = tool(*this, arguments);
    return {{"content", json::array{json::object{{"type", "text"}, {"text", out.text}}}},
            {"structuredContent", std::move(out.structured)},
            {"isError", false}};
  } catch (const ConfigError& e) {
    return tool_error(e.what(), kExitUsage);
  } catch (const RefusedError& e) {
    return tool_error(e.what(), kExitRefused);
  } catch (const InputError& e) {
    return tool_error(e.what(), kExitInput);
  } catch (const OutputError& e) {
    return tool_error(e.what(), kExitInput);
  } catch (const std::bad_alloc&) {
    return tool_error("out of memory", kExitInput);
  } catch (const RpcError&) {
    throw;
  } catch (const std::exception& e) {
    return tool_error(std::string("internal error: ") + e.what(), kExitInput);
  }
}

json::array Session::resource_list() const {
  json::array out;
  for (const StoredReport& r : reports_) {
    std::string uri = std::string(kReportScheme) + r.id;
    out.push_back({{"uri", uri},
                   {"name", r.id + ".json"},
                   {"title", "perfgate report " + r.id + " (JSON)"},
                   {"mimeType", "application/json"}});
    out.push_back({{"uri", uri + "/html"},
                   {"name", r.id + ".html"},
                   {"title", "perfgate report " + r.id + " (HTML page)"},
                   {"mimeType", "text/html"}});
    out.push_back({{"uri", uri + "/markdown"},
                   {"name", r.id + ".md"},
                   {"title", "perfgate report " + r.id + " (Markdown)"},
                   {"mimeType", "text/markdown"}});
  }
  return out;
}

json::array Session::resource_templates() const {
  std::string base(kReportScheme);
  return {json::object{{"uriTemplate", base + "{id}"},
                       {"name", "report"},
                       {"mimeType", "application/json"},
                       {"description", "A report analyze or compare made: the CLI's --json report, whole"}},
          json::object{{"uriTemplate", base + "{id}/html"},
                       {"name", "report-html"},
                       {"mimeType", "text/html"},
                       {"description", "The same report as the CLI's --html page"}},
          json::object{{"uriTemplate", base + "{id}/markdown"},
                       {"name", "report-markdown"},
                       {"mimeType", "text/markdown"},
                       {"description", "The same report as the CLI's --md summary"}}};
}

namespace {

// Where each page of `text` ends: pages of at most `page_bytes` (at least one byte), each ending on a
// UTF-8 character's boundary, so that every page is valid text and the pages joined are the text.
std::vector<std::size_t> page_ends(std::string_view text, std::size_t page_bytes) {
  std::vector<std::size_t> ends;
  std::size_t begin = 0;
  do {
    std::size_t end = std::min(text.size(), begin + page_bytes);
    while (end < text.size() && end > begin + 1 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80)
      --end;
    ends.push_back(end);
    begin = end;
  } while (begin < text.size());
  return ends;
}

}  // namespace

json::object Session::read_resource(const std::string& uri) const {
  if (uri.rfind(kReportScheme, 0) != 0)
    throw RpcError(kInvalidParams, fmt::format("unknown resource {} (perfgate://report/ID is one)", uri));
  std::string rest = uri.substr(kReportScheme.size());
  // ?page=N: a page of a text longer than a reply's (docs/agents.md#resources).
  std::size_t page = 0;
  std::string base = uri;
  if (std::size_t query = rest.find("?page="); query != std::string::npos) {
    std::string number = rest.substr(query + 6);
    if (number.empty() || number.size() > 9 || number.find_first_not_of("0123456789") != std::string::npos)
      throw RpcError(-32002, fmt::format("resource not found: {} (?page=N, N a page number from 0)", uri));
    page = std::stoul(number);
    rest.resize(query);
    base = std::string(kReportScheme) + rest;
  }
  std::string kind;
  if (std::size_t slash = rest.find('/'); slash != std::string::npos) {
    kind = rest.substr(slash + 1);
    rest.resize(slash);
  }
  const StoredReport* found = nullptr;
  for (const StoredReport& r : reports_)
    if (r.id == rest) found = &r;
  // The resource spec's code for a resource that is not there (-32002).
  if (!found) throw RpcError(-32002, fmt::format("resource not found: {}", uri));
  json::object content{{"uri", uri}};
  std::string text;
  if (kind.empty()) {
    content["mimeType"] = "application/json";
    text = render_json(*found->model);
  } else if (kind == "html") {
    content["mimeType"] = "text/html";
    text = render_html(*found->model).page;
  } else if (kind == "markdown") {
    content["mimeType"] = "text/markdown";
    text = render_markdown(*found->model);
  } else {
    throw RpcError(-32002, fmt::format("resource not found: {} (ID, ID/html or ID/markdown)", uri));
  }
  // A reply holds one page: a text longer than a page is read page by page, each naming the next.
  std::vector<std::size_t> ends = page_ends(text, options_.resource_page_bytes);
  std::size_t pages = ends.size();
  if (page >= pages)
    throw RpcError(-32002, fmt::format("resource not found: {} ({} has {} page{}: 0 to {})", uri, base, pages,
                                       pages == 1 ? "" : "s", pages - 1));
  std::size_t begin = page == 0 ? 0 : ends[page - 1];
  content["text"] = std::string_view(text).substr(begin, ends[page] - begin);
  json::object result{{"contents", json::array{std::move(content)}}};
  if (pages > 1)
    result["_meta"] = {
        {"perfgate/page", page},
        {"perfgate/pages", pages},
        {"perfgate/next",
         page + 1 < pages ? json::value(fmt::format("{}?page={}", base, page + 1)) : json::value(nullptr)}};
  return result;
}

}  // namespace perfgate::mcp
