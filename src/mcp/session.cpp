#include "mcp/session.h"

#include <algorithm>
#include <new>
#include <vector>

#include <fmt/format.h>

#include "common/error_report.h"
#include "common/errors.h"
#include "common/path_confinement.h"
#include "io/io.h"
#include "mcp/jsonrpc.h"
#include "mcp/report_summary.h"
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

// A tools/call result: the structured content, and the same JSON as its text block for a client
// that reads only `content`. A text past kMaxTextBytes (a result no tool should make: each pages
// or trims its own) is cut, saying where the whole is.
json::object tool_result(json::object structured, bool is_error) {
  std::string text = json_text(structured);
  if (text.size() > kMaxTextBytes)
    text = fmt::format(
        "{}\n[cut at {} of {} bytes: structuredContent holds the whole; ask for less with "
        "offset and limit]",
        cut_text(text, kMaxTextBytes - 200), kMaxTextBytes - 200, text.size());
  return {{"content", json::array{json::object{{"type", "text"}, {"text", std::move(text)}}}},
          {"structuredContent", std::move(structured)},
          {"isError", is_error}};
}

json::object tool_error(const std::string& message, int exit_code) {
  return tool_result({{"error", message}, {"exit_code", exit_code}}, true);
}

}  // namespace

std::string argument_of(std::string_view field) {
  const OptionInfo* option = option_of(field);
  if (!option) return fmt::format("options.{}", field);
  if ((option->shown & kShownByMcpOptions) != 0) return fmt::format("options.{}", option->argument);
  return std::string(option->argument);
}

Session::Session(McpOptions options)
    : options_(std::move(options)),
      roots_(options_.roots),
      cache_(roots_, CacheLimits{.max_file_bytes = max_input_memory_of(options_.run.max_input_memory)}) {}

const StoredReport& Session::keep(json::object call, const std::vector<std::string>& reads, ReportModel model,
                                  std::shared_ptr<const RuleBook> book) {
  std::string text = render_json(model);
  StoredReport stored{.id = {},
                      .lasts = options_.allow_write,
                      .not_stored = {},
                      .call = std::move(call),
                      .model = std::make_shared<const ReportModel>(std::move(model)),
                      .cached_path = {},
                      .book = std::move(book),
                      .doc = {},
                      .bytes = 0};
  if (stored.lasts) {
    stored.id = content_id(json::value_to<std::string>(stored.call.at("tool")),
                           stored.call.at("arguments").as_object(), reads);
    try {
      cache_.store(stored.id, text, stored.call);
    } catch (const OutputError& e) {
      // The report computed is still returned (a full disk must not lose it), under an id of this
      // server's.
      stored.lasts = false;
      stored.not_stored = fmt::format("not stored in {}/, so its id lasts while this server runs: {}",
                                      kCacheFolder, e.what());
      stored.id = fmt::format("r{}", next_id_++);
    }
  } else {
    stored.id = fmt::format("r{}", next_id_++);
  }
  return hold(std::move(stored), text);
}

// Keeps `stored` with its JSON report parsed (the same id again replaces the one kept).
const StoredReport& Session::hold(StoredReport stored, const std::string& json_text) {
  auto parsed_bytes = std::make_shared<std::uint64_t>(0);
  json::value parsed = json::parse(json_text, json::make_shared_resource<CountingResource>(parsed_bytes));
  std::uint64_t model_bytes = stored.model ? json_text.size() : 0;
  // Moved: keeps the counting storage.
  return hold_parsed(std::move(stored), std::move(parsed.as_object()), *parsed_bytes + model_bytes);
}

const StoredReport& Session::hold_parsed(StoredReport stored, json::object doc, std::uint64_t bytes) {
  for (auto it = reports_.begin(); it != reports_.end(); ++it)
    if (it->id == stored.id) {
      kept_bytes_ -= it->bytes;
      reports_.erase(it);
      break;
    }
  stored.doc = std::move(doc);
  stored.bytes = bytes;
  kept_bytes_ += stored.bytes;
  reports_.push_back(std::move(stored));
  while (reports_.size() > kMaxReportsKept ||
         (kept_budget() != 0 && kept_bytes_ > kept_budget() && reports_.size() > 1)) {
    kept_bytes_ -= reports_.front().bytes;
    reports_.pop_front();
  }
  return reports_.back();
}

// A report of the cache folder, read and kept; null when the folder has none of that id.
const StoredReport* Session::cached(const std::string& id) {
  std::optional<ReportCache::Entry> entry = cache_.find(id);
  if (!entry) return nullptr;
  // Its rules, for explain (its profiles need not be there any more: the report is read).
  json::object rules = entry->call.at("run").as_object();
  rules.erase("paths");
  RunRequest run = run_request_of(*this, rules);
  StoredReport stored{.id = id,
                      .lasts = true,
                      .not_stored = {},
                      .call = std::move(entry->call),
                      .model = nullptr,
                      .cached_path = entry->report_path,
                      .book = std::make_shared<const RuleBook>(
                          load_rule_book(run.rules.files, run.rules.settings, run.rules.disabled)),
                      .doc = {},
                      .bytes = 0};
  // Parsed as it is read, within --max-input-memory (report_cache.h): never read whole first.
  auto parsed_bytes = std::make_shared<std::uint64_t>(0);
  json::value parsed = read_json_file(entry->report_path, cache_.limits().max_file_bytes,
                                      json::make_shared_resource<CountingResource>(parsed_bytes));
  if (!parsed.is_object())
    throw InputError(
        fmt::format("{}: not a report this server stored (remove it and analyze again)", entry->report_path));
  return &hold_parsed(std::move(stored), std::move(parsed.as_object()), *parsed_bytes);
}

const StoredReport& Session::report(const std::string& id) {
  for (const StoredReport& r : reports_)
    if (r.id == id) return r;
  if (const StoredReport* r = cached(id)) return *r;
  std::vector<std::string> ids;
  for (const StoredReport& r : reports_) ids.push_back(r.id);
  std::string within = kept_budget() == 0
                           ? ""
                           : fmt::format(" within half its --max-memory, {}", byte_size_text(kept_budget()));
  std::string lasting = options_.allow_write ? fmt::format(", and {}/ under its first root", kCacheFolder)
                                             : " (read-only: its ids last while it runs)";
  throw ConfigError(
      fmt::format("no report {} (this server keeps the last {} reports{}{}{}{}); run analyze first", id,
                  kMaxReportsKept, within, lasting, ids.empty() ? "" : ": ", fmt::join(ids, ", ")));
}

json::array Session::tool_list() const {
  return tool_definitions();
}

json::object Session::call_tool(std::string_view name, const json::object& arguments, CallContext context) {
  using Tool = ToolOutput (*)(Session&, const json::object&);
  static const std::pair<std::string_view, Tool> kTools[] = {{"analyze", analyze_tool},
                                                             {"compare", compare_tool},
                                                             {"table", table_tool},
                                                             {"metrics", metrics_tool},
                                                             {"explain", explain_tool},
                                                             {"trend", trend_tool},
                                                             {"list_profiles", list_profiles_tool},
                                                             {"events", events_tool}};
  Tool tool = nullptr;
  for (const auto& [tool_name, fn] : kTools)
    if (tool_name == name) tool = fn;
  if (!tool) throw RpcError(kInvalidParams, fmt::format("unknown tool \"{}\" (tools/list names them)", name));
  // Every file the tool's run opens, lists or creates is checked against the roots, on the loading
  // threads too: the paths the client names, and those the files lead to (links in a run folder,
  // capture_traces, a rule file's `extends:`, a history's companions).
  PathConfinement confined(roots_.folders());
  call_ = std::move(context);
  struct Forget {  // the context lives as long as its call
    CallContext& call;
    ~Forget() { call = {}; }
  } forget{call_};
  // The exit codes and messages are the CLI's (src/cli/main.cpp), a request's field named as this
  // server's argument rather than as a flag.
  try {
    return tool_result(tool(*this, arguments), false);
  } catch (const RpcError&) {
    throw;
  } catch (const RunStopped&) {
    throw;
  } catch (const std::exception& e) {
    ErrorReport error = error_report(e, argument_of);
    return tool_error(error.message, error.exit_code);
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
    if (!r.model) continue;  // read from the cache folder: its JSON only
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

json::object Session::read_resource(const std::string& uri) {
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
  if (!found) found = cached(rest);
  // The resource spec's code for a resource that is not there (-32002).
  if (!found) throw RpcError(-32002, fmt::format("resource not found: {}", uri));
  json::object content{{"uri", uri}};
  std::string text;
  if (kind.empty()) {
    content["mimeType"] = "application/json";
    text = found->model ? render_json(*found->model)
                        : read_text_file(found->cached_path, cache_.limits().max_file_bytes);
  } else if (!found->model && (kind == "html" || kind == "markdown")) {
    throw RpcError(-32002, fmt::format("resource not found: {} (report {} was read from {}/, which keeps its "
                                       "JSON only: analyze the same paths again for its page)",
                                       uri, found->id, kCacheFolder));
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
