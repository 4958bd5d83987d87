// Issue 13: temporary outputs are created exclusively (a planted symlink is never followed) and
// removed when perfgate is ended by a signal (issue 28: SIGHUP, SIGPIPE and the others too).
#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <iostream>

#include <fmt/format.h>

#include "common/errors.h"
#include "io/io.h"
#include "io/temp_files.h"
#include "render/render.h"
#include "support/helpers.h"
#include "support/training_run.h"

namespace perfgate::testing {
namespace {

namespace fs = std::filesystem;

std::size_t entries(const std::string& dir) {
  return static_cast<std::size_t>(std::distance(fs::directory_iterator(dir), fs::directory_iterator()));
}

TEST(TempFiles, APlantedSymlinkAtTheOldXlsxTemporaryNameIsNotFollowed) {
  std::string dir = temp_dir();
  std::string victim = write_text(dir + "/victim.txt", "precious");
  // The name perfgate used to write to: ".NAME.PID.tmp", opened with fopen("wb").
  fs::create_symlink(victim, dir + "/.r.xlsx." + std::to_string(::getpid()) + ".tmp");
  TrainingRun run;
  ReportModel report = report_of_json(training_trace(run), default_book());
  write_xlsx(report, dir + "/r.xlsx");
  EXPECT_EQ(read_text(victim), "precious");
  EXPECT_GT(fs::file_size(dir + "/r.xlsx"), 1000u);
  EXPECT_EQ(entries(dir), 3u) << "victim, symlink and the workbook: no temporary left";
}

TEST(TempFiles, AFailedXlsxWriteLeavesNoTemporary) {
  std::string dir = temp_dir();
  fs::create_directory(dir + "/taken.xlsx");  // rename() onto a folder fails
  TrainingRun run;
  ReportModel report = report_of_json(training_trace(run), default_book());
  EXPECT_THROW(write_xlsx(report, dir + "/taken.xlsx"), OutputError);
  EXPECT_EQ(entries(dir), 1u);
}

// Issue 92: a SIGKILL, which no handler sees, leaves a run's temporaries (up to 10 after 40 kills).
// The next output of the same name removes those whose process no longer runs (its id is in their
// name), and keeps a running process's, another host's and another output's.
TEST(TempFiles, AKilledRunsTemporariesGoWithTheNextOutput) {
  std::string dir = temp_dir();
  std::string out = dir + "/out.json";
  // This host's temporary name for it, seen while it is written: .out.json.tmp.HOST-PID.XXXXXX.
  std::string seen;
  write_file_atomically(out, [&](const std::function<void(std::string_view)>& write) {
    for (const auto& e : fs::directory_iterator(dir))
      if (e.path().filename().string().starts_with(".out.json.tmp.")) seen = e.path().filename().string();
    write("{}");
  });
  std::string own = fmt::format("-{}.", ::getpid());
  std::size_t at = seen.rfind(own);
  ASSERT_NE(at, std::string::npos) << seen;
  std::string prefix = seen.substr(0, at + 1);  // .out.json.tmp.HOST-
  pid_t dead = ::fork();
  if (dead == 0) ::_exit(0);
  ASSERT_EQ(::waitpid(dead, nullptr, 0), dead);
  std::string host = prefix.substr(std::string(".out.json.tmp.").size());
  const std::vector<std::string> stale = {prefix + fmt::format("{}.aB3dE9", dead),
                                          prefix + fmt::format("{}.aB3dE9.previous", dead)};
  const std::vector<std::string> kept = {prefix + fmt::format("{}.zZ9yY8", ::getpid()),  // running
                                         fmt::format(".out.json.tmp.elsewhere-{}.qQ1wW2", dead),
                                         fmt::format(".other.json.tmp.{}{}.aB3dE9", host, dead)};
  for (const std::string& name : stale) write_text(dir + "/" + name, "half");
  for (const std::string& name : kept) write_text(dir + "/" + name, "half");
  write_file_atomically(out, std::string("{\"again\": 1}"));
  for (const std::string& name : stale) EXPECT_FALSE(fs::exists(dir + "/" + name)) << name;
  for (const std::string& name : kept) EXPECT_TRUE(fs::exists(dir + "/" + name)) << name;
  EXPECT_EQ(read_text(out), "{\"again\": 1}");
}

// A child registers a temporary file and a folder, then gets a signal whose default action ends
// the process: the handler removes both and the child still dies of the signal. SIGHUP (a closed
// terminal or CI step) and SIGPIPE (a reader of the output gone) used to leave them behind.
class TempFilesOnSignal : public ::testing::TestWithParam<int> {};

TEST_P(TempFilesOnSignal, RemovesRegisteredTemporariesAndStillEndsTheProcess) {
  int signal_number = GetParam();
  struct sigaction current {};
  ASSERT_EQ(::sigaction(signal_number, nullptr, &current), 0);
  if (current.sa_handler == SIG_IGN)
    GTEST_SKIP() << "the test runs with signal " << signal_number << " ignored";
  std::string dir = temp_dir();
  std::string folder = dir + "/.out.json.ABCDEF";
  fs::create_directory(folder);
  std::string file = write_text(folder + "/part", "half a report");
  pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    struct rlimit no_core {};  // SIGQUIT's default action dumps core
    ::setrlimit(RLIMIT_CORE, &no_core);
    register_temp_path(folder, true);
    register_temp_path(file);
    ::kill(::getpid(), signal_number);
    ::pause();
    ::_exit(0);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFSIGNALED(status));
  EXPECT_EQ(WTERMSIG(status), signal_number);
  EXPECT_FALSE(fs::exists(file));
  EXPECT_FALSE(fs::exists(folder));
}

INSTANTIATE_TEST_SUITE_P(TerminatingSignals, TempFilesOnSignal,
                         ::testing::Values(SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGPIPE, SIGALRM, SIGUSR1,
                                           SIGUSR2, SIGXCPU, SIGXFSZ, SIGVTALRM),
                         [](const ::testing::TestParamInfo<int>& param) {
                           return std::string(sigabbrev_np(param.param));
                         });

TEST(TempFiles, UnregisteredPathsAreKept) {
  std::string dir = temp_dir();
  std::string kept = write_text(dir + "/kept", "x");
  std::string gone = write_text(dir + "/gone", "x");
  register_temp_path(kept);
  register_temp_path(gone);
  unregister_temp_path(kept);
  remove_registered_temp_paths();
  EXPECT_TRUE(fs::exists(kept));
  EXPECT_FALSE(fs::exists(gone));
}

}  // namespace
}  // namespace perfgate::testing

namespace perfgate::testing {
namespace {

// Issue 78, item 6: the step in which a run's outputs replace the previous ones, measured. Seven
// finished outputs (what analyze writes with every report) replace seven previous ones, as the
// CLI's commit makes them: by a child process, whose renames are timed (last_rename_step_ns). The
// previous outputs keep a second name through the step, so that their blocks are not freed inside
// it: on this machine's ext4 (`discard`) a rename that frees a file took 4 ms, one that does not
// 11 us; the step of seven was 28 ms (median) before.
TEST(TempFiles, TheRenameStepOfASetOfOutputsIsShort) {
  std::string dir = temp_dir();
  std::vector<double> step_us, commit_us;
  for (int round = 0; round < 20; ++round) {
    open_rename_batch();
    for (int i = 0; i < 7; ++i) {
      std::string target = write_text(fmt::format("{}/out{}", dir, i), "previous");
      std::string temp = write_text(fmt::format("{}/.out{}.tmp", dir, i), fmt::format("round {}", round));
      for (const std::string& file : {target, temp}) {  // as perfgate's writer leaves them: on disk
        int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
        ASSERT_EQ(::fsync(fd), 0);
        ::close(fd);
      }
      register_temp_path(temp);
      defer_rename(temp, target);
    }
    auto begin = std::chrono::steady_clock::now();
    EXPECT_TRUE(commit_rename_batch().empty());
    commit_us.push_back(
        std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - begin).count());
    step_us.push_back(static_cast<double>(last_rename_step_ns()) / 1000);
    for (int i = 0; i < 7; ++i)
      EXPECT_EQ(read_text(fmt::format("{}/out{}", dir, i)), fmt::format("round {}", round));
    EXPECT_EQ(entries(dir), 7u);  // neither a temporary nor a previous output's second name left
  }
  std::sort(step_us.begin(), step_us.end());
  std::sort(commit_us.begin(), commit_us.end());
  std::cout << fmt::format(
      "rename step of 7 outputs: median {:.0f} us, slowest {:.0f} us; whole commit (fork, step, removals) "
      "median "
      "{:.0f} us (20 rounds)\n",
      step_us[10], step_us.back(), commit_us[10]);
  EXPECT_GT(step_us[0], 0.0);
  EXPECT_LT(step_us[10], 2'000.0);  // generous for a loaded machine: about 100 us here
}

}  // namespace
}  // namespace perfgate::testing
