#include "support/helpers.h"
#include "engine/front_end_support.h"
#include "render/format.h"
#include "support/read_bytes.h"
#include "support/spawn_perfgate.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>

extern char** environ;

namespace perfgate::testing {

Profile load_json(const std::string& json, const std::string& file_name, const LoadOptions& options) {
  std::string path = temp_dir() + "/" + file_name;
  ReadBytes read =
      read_bytes(json, file_name.ends_with(".gz"), options, threads_per_input(options, 1, kNotSmall), path);
  return std::move(read.profiles.front());
}

LoadOptions load_options_for(const Classification& c) {
  LoadOptions options;
  options.read = read_settings_of(c);
  return options;
}

const Classification& default_classification() {
  return default_book().knowledge;
}

WorkerAnalysis analyse_json(const std::string& json, const AnalysisOptions& options,
                            const std::vector<std::string>& rules) {
  Classification c = rules.empty() ? default_classification() : load_rule_book(rules).knowledge;
  Profile p = load_json(json, "trace.json", load_options_for(c));
  return analyse_profile(p, c, options);
}

ReportModel report_of_files(const std::vector<std::string>& paths, const RuleBook& book,
                            const AnalysisOptions& options) {
  // Through the engine's door, as a front end asks (issue 90): a request of these paths.
  RunRequest request;
  request.paths = paths;
  request.options = options;
  return analyse_profiles(request, book, options);
}

ReportModel report_of_bytes(const std::vector<ProfileBytes>& profiles, const RuleBook& book,
                            const AnalysisOptions& options) {
  RunRequest request;
  for (const ProfileBytes& profile : profiles) request.paths.push_back(profile.name);
  request.profile_bytes = profiles;
  request.options = options;
  check_request(request);
  return analyse_profiles(request, book, options);
}

ReportModel report_of_json(const std::string& json, const RuleBook& book, const AnalysisOptions& options) {
  // Fed bytes, as a file of this name would be read (issue 90): no temporary file.
  return report_of_bytes({{"trace.pt.trace.json", std::make_shared<const std::string>(json)}}, book, options);
}

const RuleBook& default_book() {
  static const RuleBook book = load_rule_book({});
  return book;
}

const RuleSet& default_rules() {
  return default_book().rules;
}

const std::vector<GatedMetric>& default_gated_metrics() {
  static const std::vector<GatedMetric> gated = gated_metrics_of(default_book());
  return gated;
}

const ReportFinding* find_finding(const ReportModel& report, std::string_view id) {
  for (const auto& f : report.findings)
    if (f.id == id) return &f;
  return nullptr;
}

std::string shared_traces_dir() {
  if (const char* env = std::getenv("PERFGATE_SHARED_TRACES")) return env;
  std::filesystem::path dir = std::filesystem::path(PERFGATE_SOURCE_DIR) / ".." / "shared" / "traces";
  return std::filesystem::is_directory(dir) ? std::filesystem::canonical(dir).string() : std::string();
}

std::string shared_trace(const std::string& relative) {
  std::string traces = shared_traces_dir();
  if (traces.empty()) return "";
  std::filesystem::path path = std::filesystem::path(traces) / relative;
  return std::filesystem::exists(path) ? path.string() : "";
}

std::string shared_reference(const std::string& relative) {
  return shared_trace("../references/" + relative);
}

bool has_line(const std::vector<std::string>& lines, std::string_view text) {
  for (const std::string& line : lines)
    if (line.find(text) != std::string::npos) return true;
  return false;
}

bool has_line(const std::vector<Note>& notes, std::string_view text) {
  return has_line(note_texts(notes), text);
}

bool has_line(const std::vector<ReportNote>& notes, std::string_view text) {
  return has_line(note_lines(notes), text);
}

namespace {

// A shell command with stderr joined to stdout.
CommandResult run_command(const std::string& command) {
  CommandResult result;
  FILE* pipe = ::popen((command + " 2>&1").c_str(), "r");
  if (!pipe) return result;
  std::array<char, 4096> buffer{};
  while (std::size_t n = std::fread(buffer.data(), 1, buffer.size(), pipe))
    result.out.append(buffer.data(), n);
  int status = ::pclose(pipe);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

}  // namespace

CommandResult run_perfgate(const std::string& args) {
  return run_command(std::string(PERFGATE_BINARY) + " " + args);
}

pid_t spawn_perfgate_quietly(const std::vector<std::string>& args) {
  std::vector<std::string> all = {PERFGATE_BINARY};
  all.insert(all.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& a : all) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  pid_t pid = 0;
  int started = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  return started == 0 ? pid : -1;
}

CommandResult run_perfgate_as(const std::string& user, const std::string& args) {
  std::string as = ::geteuid() == 0 ? "runuser -u " + user + " -- " : "";
  return run_command(as + PERFGATE_BINARY + " " + args);
}

CommandResult run_perfgate_in(const std::string& dir, const std::string& args) {
  return run_command("cd '" + dir + "' && " + PERFGATE_BINARY + " " + args);
}

std::vector<CommandResult> run_perfgate_all(const std::vector<std::string>& args) {
  std::vector<FILE*> pipes;
  for (const std::string& a : args)
    pipes.push_back(::popen((std::string(PERFGATE_BINARY) + " " + a + " 2>&1").c_str(), "r"));
  std::vector<CommandResult> results(args.size());
  for (std::size_t i = 0; i < pipes.size(); ++i) {
    if (!pipes[i]) continue;
    std::array<char, 4096> buffer{};
    while (std::size_t n = std::fread(buffer.data(), 1, buffer.size(), pipes[i]))
      results[i].out.append(buffer.data(), n);
    int status = ::pclose(pipes[i]);
    results[i].exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }
  return results;
}

std::string unzip(const std::string& zip, const std::string& member) {
  std::string command = "unzip -p '" + zip + "' '" + member + "'";
  FILE* pipe = ::popen(command.c_str(), "r");
  std::string out;
  char buffer[4096];
  while (std::size_t n = std::fread(buffer, 1, sizeof buffer, pipe)) out.append(buffer, n);
  ::pclose(pipe);
  return out;
}

}  // namespace perfgate::testing
