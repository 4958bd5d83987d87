#include "cli/outputs.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <exception>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include <fmt/chrono.h>
#include <fmt/format.h>

#include "cli/commands.h"
#include "cli/number_checks.h"
#include "common/errors.h"
#include "engine/front_end_support.h"
#include "io/io.h"
#include "io/output_target.h"
#include "io/temp_files.h"
#include "model/side_by_side.h"
#include "render/escape.h"
#include "render/render.h"
#include "report_model/table_limits.h"

namespace perfgate::cli {
namespace {

namespace fs = std::filesystem;

// A report larger than this is still written, with a warning: browsers and CI viewers struggle.
constexpr std::size_t kLargeReportBytes = 10 * 1024 * 1024;

std::string now_utc() {
  auto seconds = std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now());
  return fmt::format("{:%Y-%m-%d %H:%M:%S} UTC", seconds);
}

// Returns the size of the page.
std::size_t write_html(const ReportModel& report, const OutputArgs& a) {
  HtmlOptions o;
  o.external_assets = a.html_assets == "external";
  o.max_rows = a.html_rows;
  if (a.timestamp) o.timestamp = now_utc();
  if (!a.annotated_trace.path.empty()) o.annotated_trace = relative_link(a.html, a.annotated_trace.path);
  HtmlOutput html = render_html(report, o);
  if (o.external_assets) {
    fs::path dir = fs::path(a.html).parent_path();
    write_file_atomically((dir / kHtmlCssName).string(), html.css);
    write_file_atomically((dir / kHtmlJsName).string(), html.js);
  }
  write_file_atomically(a.html, html.page);
  return html.page.size();
}

// The files the outputs write, each with its option, in the order they are written.
std::vector<std::pair<std::string, std::string>> output_files(const OutputArgs& a) {
  std::vector<std::pair<std::string, std::string>> files;
  for (const auto& [option, path] :
       {std::pair{"--json", &a.json}, std::pair{"--html", &a.html}, std::pair{"--md", &a.markdown},
        std::pair{"--pr-comment", &a.pr_comment}, std::pair{"--xlsx", &a.xlsx},
        std::pair{"--junit", &a.junit}, std::pair{"--annotated-trace", &a.annotated_trace.path}})
    if (!path->empty()) files.emplace_back(option, *path);
  if (!a.html.empty() && a.html_assets == "external") {
    fs::path dir = fs::path(a.html).parent_path();
    files.emplace_back("--html-assets external", (dir / kHtmlCssName).string());
    files.emplace_back("--html-assets external", (dir / kHtmlJsName).string());
  }
  if (!a.gitlab.empty()) {
    files.emplace_back("--gitlab", (fs::path(a.gitlab) / kGitlabCodeQualityName).string());
    files.emplace_back("--gitlab", (fs::path(a.gitlab) / kGitlabMetricsName).string());
  }
  return files;
}

// Two paths name one file: the same file when both exist, else the same absolute, normal path.
bool same_file(const std::string& a, const std::string& b) {
  std::error_code ec;
  if (fs::exists(a, ec) && fs::exists(b, ec)) return fs::equivalent(a, b, ec);
  return fs::weakly_canonical(a, ec) == fs::weakly_canonical(b, ec);
}

// same_file(input, output) for many inputs and one output, whose status and normal path are found
// once: each input costs one stat, not the output's two stats and both paths resolved component by
// component (issue 78: 14 system calls a rank of a run folder).
class OutputFile {
 public:
  explicit OutputFile(const std::string& path) : path_(path) {
    struct stat st {};
    exists_ = ::stat(path.c_str(), &st) == 0;
    identity_ = {static_cast<std::uint64_t>(st.st_dev), static_cast<std::uint64_t>(st.st_ino)};
    if (exists_) return;
    std::error_code ec;
    normal_ = fs::weakly_canonical(path, ec);
    // An input that exists resolves to a path that exists: unless this one does, none is equal.
    struct stat normal_st {};
    normal_may_exist_ = ::stat(normal_.c_str(), &normal_st) == 0 || (errno != ENOENT && errno != ENOTDIR);
  }

  // `sniffed`: the input's file as the sniff that read it found it; unknown: the input is stat'ed.
  bool is(const std::string& input, FileIdentity sniffed = {}) const {
    struct stat in {};
    bool input_exists = sniffed.known() || ::stat(input.c_str(), &in) == 0;
    if (!sniffed.known())
      sniffed = {static_cast<std::uint64_t>(in.st_dev), static_cast<std::uint64_t>(in.st_ino)};
    if (input_exists && exists_) return sniffed == identity_;
    if (exists_) return same_file(input, path_);  // rare: an input gone since it was read
    if (input_exists && !normal_may_exist_) return false;
    std::error_code ec;
    return fs::weakly_canonical(input, ec) == normal_;
  }

 private:
  std::string path_;
  FileIdentity identity_;
  bool exists_ = false;
  fs::path normal_;
  bool normal_may_exist_ = true;
};

// A run history or an Nsight Systems export: a report written over it would destroy what no
// report can give back, whether or not this run names it.
bool is_sqlite_database(const std::string& path) {
  constexpr std::string_view kHeader("SQLite format 3\0", 16);
  std::ifstream file(path, std::ios::binary);
  char head[16] = {};
  return file.read(head, sizeof head) && std::string_view(head, sizeof head) == kHeader;
}

}  // namespace

std::string non_empty_path(const std::string& value) {
  return value.empty() ? "the path is empty" : "";
}

void check_output_files(const std::vector<std::pair<std::string, std::string>>& files,
                        const std::vector<std::string>& inputs, const ResolvedInputs* sniffed) {
  // The files the sniff read are known by device and inode: not stat'ed again for each output
  // (issue 78: a stat a rank of a run folder).
  std::unordered_map<std::string_view, FileIdentity> known;
  if (!files.empty()) known = sniffed_identities(sniffed);
  auto identity_of = [&known](const std::string& input) {
    auto found = known.find(input);
    return found == known.end() ? FileIdentity{} : found->second;
  };
  for (std::size_t i = 0; i < files.size(); ++i) {
    const auto& [option, path] = files[i];
    OutputTarget target = resolve_output_target(path);
    if (!target.refusal.empty()) throw ConfigError(fmt::format("{} {}: {}", option, path, target.refusal));
    OutputFile output(path);
    for (const std::string& input : inputs)
      if (output.is(input, identity_of(input)))
        throw ConfigError(
            fmt::format("{} {} is the input {}: perfgate never writes over its inputs", option, path, input));
    for (std::size_t k = 0; k < i; ++k)
      if (same_file(files[k].second, path))
        throw ConfigError(fmt::format("{} {} and {} {} name the same file: each output needs its own",
                                      files[k].first, files[k].second, option, path));
    if (!target.in_place && is_sqlite_database(target.path))
      throw ConfigError(fmt::format(
          "{} {} is a SQLite database (a run history or an Nsight Systems export): perfgate never writes a "
          "report over one",
          option, path));
  }
}

void check_output_paths(const OutputArgs& a, const std::vector<std::string>& inputs,
                        const ResolvedInputs* sniffed) {
  if (!a.html.empty() && a.html_assets == "external" && resolve_output_target(a.html).in_place)
    throw ConfigError(fmt::format(
        "--html {} is not a file in a folder: --html-assets external writes {} and {} beside the page",
        a.html, kHtmlCssName, kHtmlJsName));
  check_output_files(output_files(a), inputs, sniffed);
}

void add_output_options(CLI::App& command, OutputArgs& a) {
  add_options_apart(command, [&a](CLI::App& cmd) {  // cli/commands.h: checked once, by name
    cmd.add_option("--json", a.json, fmt::format("Write the JSON report (schema {}) to FILE", kReportSchema))
        ->type_name("FILE")
        ->check(non_empty_path);
    cmd.add_option("--html", a.html, "Write the HTML report (one self-contained page) to FILE")
        ->type_name("FILE")
        ->check(non_empty_path);
    cmd.add_option(
           "--html-assets", a.html_assets,
           "inline (default), or external: report.css and report.js beside the page, for servers whose "
           "Content-Security-Policy blocks inline style and script")
        ->check(CLI::IsMember({"inline", "external"}));
    cmd.add_option("--html-rows", a.html_rows, "Rows of each table in the HTML report (default 50)")
        ->type_name("N")
        ->check(whole_number(1, 100000));
    cmd.add_option("--md", a.markdown, "Write the Markdown summary (GitHub-flavoured) to FILE")
        ->type_name("FILE")
        ->check(non_empty_path);
    cmd.add_option(
           "--md-budget", a.markdown_budget,
           "Largest size of the Markdown summary in bytes (default 1048576, GitHub's job summary limit)")
        ->type_name("BYTES")
        ->check(whole_number(1024, std::int64_t{1} << 30));
    cmd.add_option("--pr-comment", a.pr_comment,
                   "Write a compact Markdown summary under 60 KB, for a pull-request comment")
        ->type_name("FILE")
        ->check(non_empty_path);
    cmd.add_option("--xlsx", a.xlsx, "Write the XLSX workbook (a sheet per table, every row) to FILE")
        ->type_name("FILE")
        ->check(non_empty_path);
    cmd.add_option("--junit", a.junit, "Write JUnit XML (a test case per rule) to FILE")
        ->type_name("FILE")
        ->check(non_empty_path);
    cmd.add_flag(
        "--github", a.github,
        "Print GitHub Actions annotations, and append the Markdown summary to $GITHUB_STEP_SUMMARY when set");
    cmd.add_option("--gitlab", a.gitlab,
                   "Write GitLab's Code Quality report (gl-code-quality-report.json) and metrics report "
                   "(metrics.txt) "
                   "into DIR")
        ->type_name("DIR")
        ->check(non_empty_path);
    cmd.add_option("--gitlab-path", a.gitlab_path,
                   "The repository path GitLab's Code Quality report puts its findings on (default: the "
                   "value of --label script=... or config=..., else the first profile relative to the "
                   "current folder)")
        ->type_name("PATH")
        ->check(non_empty_path);
    cmd.add_option_function<std::size_t>(
           "--max-rows", [](const std::size_t& rows) { set_max_table_rows(rows); },
           "Rows kept in each table with a row per name (ops, kernels, regions, ...: those with the most "
           "time) "
           "or per step (iterations, critical path: the first steps); default 5000: the rest become one "
           "\"(N more)\" row with their totals, in every output")
        ->type_name("N")
        ->check(whole_number(1, 10'000'000));
    cmd.add_flag("--timestamp", a.timestamp,
                 "Put the time of the run in the reports (off: same input, same bytes)");
  });
}

namespace {

// One output file (or pair of files): written on whichever thread takes it; what it has to say
// (a failure, a size warning) is kept and printed in the fixed order of the outputs.
struct OutputTask {
  std::function<void(std::string& messages)> write;
  int cost = 0;  // tasks start costliest first
  std::string messages;
  bool failed = false;
  std::exception_ptr error;  // anything but an OutputError: rethrown once every task is done

  void run() {
    try {
      write(messages);
    } catch (const OutputError& e) {
      messages += fmt::format("perfgate: {}\n", log_text(e.what()));
      failed = true;
    } catch (...) {
      error = std::current_exception();
    }
  }
};

std::string html_messages(const ReportModel& report, const OutputArgs& a) {
  std::string messages;
  std::size_t bytes = write_html(report, a);
  if (bytes > kLargeReportBytes)
    messages = fmt::format("perfgate: warning: {} is {:.1f} MB; open it in a browser with patience\n", a.html,
                           static_cast<double>(bytes) / 1e6);
  return messages;
}

// The tasks of the outputs asked for, in the order their messages are printed.
std::vector<OutputTask> output_tasks(const ReportModel& report, const OutputArgs& a) {
  std::vector<OutputTask> tasks;
  // `cost`: the workbook, then the page, then the JSON report start first; the rest are small.
  auto add = [&](const std::string& path, int cost, std::function<void(std::string&)> write) {
    if (!path.empty()) tasks.push_back(OutputTask{std::move(write), cost, {}, false, nullptr});
  };
  add(a.json, 1, [&](std::string&) {
    write_file_atomically(
        a.json, [&](const std::function<void(std::string_view)>& write) { write_json(report, write); });
  });
  add(a.html, 2, [&](std::string& messages) { messages += html_messages(report, a); });
  add(a.markdown, 0, [&](std::string&) {
    write_file_atomically(a.markdown, render_markdown(report, MarkdownOptions{false, a.markdown_budget}));
  });
  add(a.xlsx, 3, [&](std::string&) {
    XlsxOptions o;
    if (a.timestamp) o.created = std::time(nullptr);
    o.memory_budget = a.memory_budget;
    write_xlsx(report, a.xlsx, o);
  });
  add(a.junit, 0,
      [&](std::string&) { write_file_atomically(a.junit, render_junit(report, a.warnings_fail)); });
  add(a.gitlab, 0, [&](std::string&) {
    fs::path dir(a.gitlab);
    write_file_atomically((dir / kGitlabCodeQualityName).string(),
                          render_gitlab_code_quality(report, a.gitlab_path));
    write_file_atomically((dir / kGitlabMetricsName).string(), render_openmetrics(report));
  });
  // Costlier than the page: the profiles are read again.
  if (a.write_annotated_trace)
    add(a.annotated_trace.path, 4, [&](std::string& messages) { messages += a.write_annotated_trace(); });
  const char* summary = a.github ? std::getenv("GITHUB_STEP_SUMMARY") : nullptr;
  std::string summary_path = summary ? summary : "";
  add(summary_path, 0, [&report, &a, summary_path](std::string&) {
    append_to_file(summary_path, render_markdown(report, MarkdownOptions{false, a.markdown_budget}));
  });
  add(a.pr_comment, 0, [&](std::string&) {
    write_file_atomically(a.pr_comment, render_markdown(report, MarkdownOptions{true, kPrCommentBudget}));
  });
  return tasks;
}

// Runs the tasks side by side, the costliest first: the XLSX workbook and the HTML page take most
// of the time of writing every report.
void run_tasks(std::vector<OutputTask>& tasks, unsigned threads) {
  std::vector<OutputTask*> by_cost;
  for (OutputTask& task : tasks) by_cost.push_back(&task);
  std::stable_sort(by_cost.begin(), by_cost.end(),
                   [](const OutputTask* x, const OutputTask* y) { return x->cost > y->cost; });
  std::vector<std::function<void()>> runs;
  for (OutputTask* task : by_cost) runs.emplace_back([task] { task->run(); });
  run_side_by_side(threads, runs);  // OutputTask::run keeps its own errors: nothing is rethrown here
}

}  // namespace

bool write_outputs(const ReportModel& report, const OutputArgs& a, unsigned threads) {
  std::vector<OutputTask> tasks = output_tasks(report, a);
  // Every file goes to a temporary name first; they replace the previous run's together at the end
  // (io/temp_files.h), so that an interrupted run leaves the previous set or the new one.
  open_rename_batch();
  run_tasks(tasks, std::max(1u, threads));
  for (const OutputTask& task : tasks)
    if (task.error) {
      discard_rename_batch();
      std::rethrow_exception(task.error);
    }
  std::vector<std::string> failures = commit_rename_batch();
  bool ok = failures.empty();
  for (const OutputTask& task : tasks) {
    std::cerr << task.messages;
    ok = ok && !task.failed;
  }
  for (const std::string& failure : failures) std::cerr << "perfgate: " << log_text(failure) << '\n';
  if (a.github) std::cout << render_github_annotations(report) << std::flush;
  return ok;
}

std::string default_gitlab_path(const RunLabels& labels, const std::vector<std::string>& profiles) {
  for (const char* key : {"script", "config"})
    for (const auto& [k, v] : labels.labels)
      if (k == key && !v.empty()) return v;
  if (profiles.empty()) return "perfgate";
  std::error_code error;
  fs::path relative = fs::relative(fs::absolute(profiles.front(), error), fs::current_path(error), error);
  return error || relative.empty() ? profiles.front() : relative.generic_string();
}

}  // namespace perfgate::cli
