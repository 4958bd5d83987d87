#include "render/browser.h"

#include <sys/wait.h>

#include <boost/json/parse.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <utility>

#include <fmt/format.h>

#include "render/escape.h"

namespace perfgate::testing {

namespace {

// The facts a probe wrote as <pre id="`id`"> in the dumped page. A plain search, not std::regex:
// the dump holds every frame's page (megabytes), which libstdc++'s regex took minutes to scan.
std::pair<Measured, MeasuredTexts> probe_result(const std::string& dom, const std::string& id) {
  std::pair<Measured, MeasuredTexts> out;
  std::string open = "<pre id=\"" + id + "\">";
  std::size_t from = dom.find(open);
  if (from == std::string::npos) return out;
  from += open.size();
  std::size_t to = dom.find('<', from);
  if (to == std::string::npos) return out;
  std::string json;
  for (std::size_t i = from; i < to; ++i) {
    bool decoded = false;
    for (const auto& [entity, c] : {std::pair{"&quot;", '"'}, {"&lt;", '<'}, {"&gt;", '>'}, {"&amp;", '&'}})
      if (dom.compare(i, std::char_traits<char>::length(entity), entity) == 0) {
        json += c;
        i += std::char_traits<char>::length(entity) - 1;
        decoded = true;
        break;
      }
    if (!decoded) json += dom[i];
  }
  boost::json::value parsed = boost::json::parse(json);
  for (const auto& [key, value] : parsed.as_object()) {
    if (value.is_string())
      out.second[std::string(key)] = std::string(value.as_string());
    else
      out.first[std::string(key)] =
          value.is_double() ? value.as_double() : static_cast<double>(value.as_int64());
  }
  return out;
}

}  // namespace

std::string chromium() {
  for (const char* name : {"chromium", "chromium-browser", "google-chrome"}) {
    std::string probe = fmt::format("command -v {} >/dev/null 2>&1", name);
    if (std::system(probe.c_str()) == 0) return name;
  }
  return "";
}

CommandResult browse(const std::string& page, const std::string& flags) {
  std::string profile = temp_dir();
  std::string command = fmt::format(
      "timeout 120 {} --headless=new --no-sandbox --disable-gpu --user-data-dir={} --no-first-run "
      "--disable-background-networking --disable-component-update --disable-sync --disable-default-apps "
      "--disable-domain-reliability --disable-client-side-phishing-detection "
      "--disable-features=Translate,OptimizationHints,MediaRouter,AutofillServerCommunication,SpellCheck "
      "--host-resolver-rules='MAP * ~NOTFOUND' --hide-scrollbars {} 'file://{}' 2>/dev/null",
      chromium(), profile, flags, page);
  CommandResult r;
  FILE* pipe = ::popen(command.c_str(), "r");
  char buffer[65536];
  while (std::size_t n = std::fread(buffer, 1, sizeof buffer, pipe)) r.out.append(buffer, n);
  int status = ::pclose(pipe);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

std::map<std::string, double> measure(const std::string& page, int width, int height, const std::string& body,
                                      const std::string& flags, std::map<std::string, std::string>* texts) {
  // The probe runs in the frame's page and writes its facts into the outer page, which --dump-dom
  // prints; the frame (srcdoc) shares the outer page's origin.
  std::string probe =
      "<script>window.addEventListener(\"load\", function () {\n  var out = {};\n" + body +
      "\n  var pre = parent.document.createElement(\"pre\"); pre.id = \"layout-probe\";\n"
      "  pre.textContent = JSON.stringify(out); parent.document.body.appendChild(pre);\n});</script>";
  std::string html = read_text(page);
  html.insert(html.rfind("</body>"), probe);
  std::string frame = fmt::format(
      "<!DOCTYPE html><html><body style=\"margin:0\"><iframe style=\"border:0;display:block\" width=\"{}\" "
      "height=\"{}\" srcdoc=\"{}\"></iframe></body></html>",
      width, height, html_escape(html));
  std::string copy = write_text(temp_dir() + "/probed.html", frame);
  CommandResult r = browse(
      copy, fmt::format("--window-size={},{} --dump-dom {}", std::max(width, 500) + 40, height + 40, flags));
  auto [out, found] = probe_result(r.out, "layout-probe");
  if (texts) *texts = std::move(found);
  return out;
}

namespace {

// `html` with a script that, once it has loaded, runs `body` and writes what it measured into the
// outer page as <pre id="`id`">.
std::string probed(std::string html, const std::string& body, const std::string& id) {
  std::string probe =
      "<script>window.addEventListener(\"load\", function () {\n  var out = {};\n" + body +
      "\n  var pre = parent.document.createElement(\"pre\"); pre.id = \"" + id +
      "\";\n  pre.textContent = JSON.stringify(out); parent.document.body.appendChild(pre);\n});"
      "</script>";
  html.insert(html.rfind("</body>"), probe);
  return html;
}

}  // namespace

std::vector<std::vector<std::pair<Measured, MeasuredTexts>>> measure_widths(
    const std::vector<std::string>& pages, const std::vector<int>& widths, int height,
    const std::string& body) {
  std::string frames;
  for (std::size_t p = 0; p < pages.size(); ++p) {
    std::string html = read_text(pages[p]);
    for (std::size_t w = 0; w < widths.size(); ++w)
      frames += fmt::format(
          R"(<iframe style="border:0;display:block" width="{}" height="{}" srcdoc="{}"></iframe>)", widths[w],
          height, html_escape(probed(html, body, fmt::format("probe-{}-{}", p, w))));
  }
  std::string copy = write_text(temp_dir() + "/probed.html",
                                "<!DOCTYPE html><html><body style=\"margin:0\">" + frames + "</body></html>");
  int widest = *std::max_element(widths.begin(), widths.end());
  CommandResult r = browse(copy, fmt::format("--window-size={},{} --dump-dom", widest + 40, height + 40));
  std::vector<std::vector<std::pair<Measured, MeasuredTexts>>> results(pages.size());
  for (std::size_t p = 0; p < pages.size(); ++p)
    for (std::size_t w = 0; w < widths.size(); ++w)
      results[p].push_back(probe_result(r.out, fmt::format("probe-{}-{}", p, w)));
  return results;
}

std::map<std::string, double> layout(const std::string& page, int width, int height,
                                     const std::vector<std::string>& selectors) {
  std::string body;
  for (const auto& s : selectors)
    body += fmt::format(
        "  var e = document.querySelector(\"{0}\"); out[\"{0}\"] = e ? "
        "e.getBoundingClientRect().top + window.scrollY : -1;\n",
        s);
  return measure(page, width, height, body);
}

std::string page_of(const std::string& shared_trace, const std::string& options) {
  std::string trace = shared_traces_dir().empty()
                          ? std::string(PERFGATE_SOURCE_DIR) + "/examples/small_training.pt.trace.json.gz"
                          : shared_traces_dir() + "/" + shared_trace;
  std::string page = temp_dir() + "/report.html";
  run_perfgate("analyze " + trace + " -q " + options + " --html " + page);
  return page;
}

}  // namespace perfgate::testing
