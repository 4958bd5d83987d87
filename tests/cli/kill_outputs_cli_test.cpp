// Issue #44, defect 6: the outputs of one run are replaced together. 50 runs of `analyze` with
// every output, each killed (SIGKILL, SIGTERM, SIGHUP in turn) at a time spread over the length of
// a whole run, alternate between two runs whose every output differs; after each, the folder holds
// one run's whole set, the previous or the new, never a mix (the issue saw report.xlsx new beside
// the previous JSON, HTML and Markdown). A run killed during its renames leaves a child process
// that finishes them; the test waits for it too. Issue 78, item 6: that process is out of
// perfgate's process group, so that a kill of the whole group (`timeout -s KILL`, Ctrl-C) during the
// renames leaves the new set too.
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/inotify.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <map>

#include <fmt/format.h>

#include "support/helpers.h"

extern char** environ;

namespace perfgate::testing {
namespace {

namespace fs = std::filesystem;

// The outputs every run writes into `dir`, by name (hidden temporary files aside).
const std::vector<std::string> kOutputs = {"report.json", "report.html", "report.md",     "report.xlsx",
                                           "junit.xml",   "comment.md",  "gl/metrics.txt"};

std::vector<std::string> analyze_args(const std::string& dir, const std::string& skip) {
  std::string example = std::string(PERFGATE_SOURCE_DIR) + "/examples/small_training.pt.trace.json.gz";
  return {PERFGATE_BINARY,
          "analyze",
          example,
          "--skip-first",
          skip,
          "--fail-on",
          "never",
          "-q",
          "--threads",
          "2",
          "--json",
          dir + "/report.json",
          "--html",
          dir + "/report.html",
          "--md",
          dir + "/report.md",
          "--xlsx",
          dir + "/report.xlsx",
          "--junit",
          dir + "/junit.xml",
          "--pr-comment",
          dir + "/comment.md",
          "--gitlab",
          dir + "/gl"};
}

// `own_group`: perfgate leads a process group of its own (as under `timeout`), which can be killed
// whole.
pid_t start(std::vector<std::string> args, bool own_group = false) {
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  if (own_group) {
    posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP);
    posix_spawnattr_setpgroup(&attributes, 0);
  }
  pid_t pid = 0;
  EXPECT_EQ(posix_spawn(&pid, argv[0], nullptr, &attributes, argv.data(), environ), 0);
  posix_spawnattr_destroy(&attributes);
  return pid;
}

// Waits for perfgate and for the process it leaves to finish its outputs' renames when it is killed
// during them (io/temp_files.h): this test is their subreaper, so they are its children too.
int wait_for(pid_t pid) {
  int status = 0;
  ::waitpid(pid, &status, 0);
  while (::waitpid(-1, nullptr, 0) > 0) {
  }
  return status;
}

std::map<std::string, std::string> contents(const std::string& dir) {
  std::map<std::string, std::string> out;
  for (const std::string& name : kOutputs) out[name] = read_text(dir + "/" + name);
  return out;
}

// Which whole set the folder holds: "A", "B", or a description of the mix.
std::string which_set(const std::string& dir, const std::map<std::string, std::string>& a,
                      const std::map<std::string, std::string>& b) {
  bool all_a = true, all_b = true;
  std::string mix;
  for (const std::string& name : kOutputs) {
    std::string now = read_text(dir + "/" + name);
    bool is_a = now == a.at(name), is_b = now == b.at(name);
    all_a = all_a && is_a;
    all_b = all_b && is_b;
    mix += fmt::format(" {}={}", name, is_a ? "A" : is_b ? "B" : "neither");
  }
  return all_a ? "A" : all_b ? "B" : "mix:" + mix;
}

TEST(KillTest, AnInterruptedRunLeavesThePreviousOutputsOrTheNew) {
  ASSERT_EQ(::prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
  std::string ref_a = temp_dir(), ref_b = temp_dir(), dir = temp_dir();
  for (const std::string& d : {ref_a, ref_b, dir}) fs::create_directories(d + "/gl");
  auto started = std::chrono::steady_clock::now();
  ASSERT_EQ(wait_for(start(analyze_args(ref_a, "0"))), 0);
  auto run_time = std::chrono::steady_clock::now() - started;
  ASSERT_EQ(wait_for(start(analyze_args(ref_b, "1"))), 0);
  std::map<std::string, std::string> a = contents(ref_a), b = contents(ref_b);
  for (const std::string& name : kOutputs)
    ASSERT_NE(a[name], b[name]) << name << " does not tell the runs apart";
  ASSERT_EQ(wait_for(start(analyze_args(dir, "0"))), 0);

  const int signals[] = {SIGKILL, SIGTERM, SIGHUP};
  std::string current = "A";
  int completed = 0, kept = 0;
  for (int i = 0; i < 50; ++i) {
    std::string next = current == "A" ? "B" : "A";
    // Kill times spread over 0 to 2 times a whole run (as timed alone), so that some land while the
    // outputs are written and some after the run has ended even when a loaded machine (the suite
    // runs in parallel) makes the runs here slower than the timed one.
    auto delay = std::chrono::duration_cast<std::chrono::nanoseconds>(run_time * 2.0 * i / 49);
    pid_t pid = start(analyze_args(dir, next == "A" ? "0" : "1"));
    timespec pause{static_cast<time_t>(delay.count() / 1'000'000'000),
                   static_cast<long>(delay.count() % 1'000'000'000)};
    ::nanosleep(&pause, nullptr);
    ::kill(pid, signals[i % 3]);
    int status = wait_for(pid);
    std::string found = which_set(dir, a, b);
    EXPECT_TRUE(found == current || found == next) << "run " << i << " (signal " << signals[i % 3]
                                                   << " after " << delay.count() / 1000 << " us): " << found;
    if (WIFEXITED(status)) ++completed;
    if (found == current) ++kept;
    current = found == next ? next : current;
  }
  // Both outcomes are seen: the test kills runs while they write, not only before or after.
  EXPECT_GT(kept, 0);
  EXPECT_LT(kept, 50);
  ::prctl(PR_SET_CHILD_SUBREAPER, 0);
  std::cout << fmt::format(
      "kill test: {} runs left the previous set, {} the new set ({} had finished); a run "
      "takes {} ms\n",
      kept, 50 - kept, completed, std::chrono::duration_cast<std::chrono::milliseconds>(run_time).count());
}

// The renames are killed in the middle, as a group: each replaces a previous output of 16 MiB, whose
// blocks the rename frees (milliseconds each), and perfgate's whole process group is sent SIGKILL as
// soon as the first output is renamed into place (inotify). The process that makes the renames has
// left the group: it finishes them, and the folder holds the new set (it held the first new output
// beside six previous ones before).
TEST(KillTest, AProcessGroupKilledDuringTheRenamesLeavesTheNewSet) {
  ASSERT_EQ(::prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
  std::string ref = temp_dir(), dir = temp_dir();
  for (const std::string& d : {ref, dir}) fs::create_directories(d + "/gl");
  ASSERT_EQ(wait_for(start(analyze_args(ref, "0"))), 0);
  std::map<std::string, std::string> fresh = contents(ref);
  for (const std::string& name : kOutputs) write_text(dir + "/" + name, std::string(16 << 20, 'p'));
  int watch = ::inotify_init1(IN_CLOEXEC);
  ASSERT_GE(watch, 0);
  for (const std::string& d : {dir, dir + "/gl"})
    ASSERT_GE(::inotify_add_watch(watch, d.c_str(), IN_MOVED_TO), 0);
  pid_t pid = start(analyze_args(dir, "0"), true);
  // The first output renamed into place: an event whose name is not a hidden temporary one.
  bool renamed = false;
  alignas(inotify_event) char events[4096];
  while (!renamed) {
    pollfd ready{watch, POLLIN, 0};
    ASSERT_EQ(::poll(&ready, 1, 60'000), 1) << "no output renamed within a minute";
    ssize_t n = ::read(watch, events, sizeof events);
    for (ssize_t at = 0; at < n;) {
      const auto* event = reinterpret_cast<const inotify_event*>(events + at);
      if (event->len > 0 && event->name[0] != '.') renamed = true;
      at += static_cast<ssize_t>(sizeof(inotify_event) + event->len);
    }
  }
  ::kill(-pid, SIGKILL);
  int status = wait_for(pid);
  ::close(watch);
  ::prctl(PR_SET_CHILD_SUBREAPER, 0);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
  std::string mix;
  for (const std::string& name : kOutputs) {
    std::string now = read_text(dir + "/" + name);
    mix += fmt::format(" {}={}", name,
                       now == fresh.at(name)       ? "new"
                       : now.size() == (16u << 20) ? "previous"
                                                   : "neither");
  }
  EXPECT_TRUE(contents(dir) == fresh) << mix;
}

}  // namespace
}  // namespace perfgate::testing
