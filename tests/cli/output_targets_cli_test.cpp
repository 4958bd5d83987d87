// Issue 28 (nothing lost): an output never replaces a device node, a FIFO, /dev/stdout or a run
// history; what cannot hold a report is refused before any work; and what a command prints on
// standard output must reach it.
#include <gtest/gtest.h>

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <string>

#include "support/helpers.h"

namespace perfgate::testing {
namespace {

namespace fs = std::filesystem;
using namespace std::string_literals;

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

std::string example_trace() {
  return std::string(PERFGATE_SOURCE_DIR) + "/examples/small_training.pt.trace.json.gz";
}

// A command line run by the shell as given (its own redirections), with stderr captured.
CommandResult run_shell(const std::string& command) {
  CommandResult result;
  FILE* pipe = ::popen(command.c_str(), "r");
  if (!pipe) return result;
  std::array<char, 4096> buffer{};
  while (std::size_t n = std::fread(buffer.data(), 1, buffer.size(), pipe))
    result.out.append(buffer.data(), n);
  int status = ::pclose(pipe);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

std::string perfgate() {
  return PERFGATE_BINARY;
}

bool is_char_device(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0 && S_ISCHR(st.st_mode);
}

// A copy of /dev/null (character device 1:3) in the test's folder; needs root (CAP_MKNOD).
bool make_null_device(const std::string& path) {
  return ::mknod(path.c_str(), S_IFCHR | 0666, makedev(1, 3)) == 0;
}

// Every report writer, and the trend page, writes into a device node in place: it stays a device.
TEST(OutputTargets, ADeviceNodeIsWrittenInPlaceNotReplaced) {
  std::string dir = temp_dir();
  if (!make_null_device(dir + "/probe")) GTEST_SKIP() << "mknod needs root (CAP_MKNOD); not run here";
  for (const char* option : {"--json", "--html", "--md", "--pr-comment", "--xlsx", "--junit"}) {
    std::string device = dir + "/null" + std::string(option).substr(2);
    ASSERT_TRUE(make_null_device(device));
    CommandResult r = run_perfgate("analyze " + example_trace() + " -q " + option + " " + device);
    EXPECT_EQ(r.exit_code, 0) << option << ": " << r.out;
    EXPECT_TRUE(is_char_device(device)) << option << " replaced the device node with a file";
  }
  std::string history = dir + "/h.db";
  ASSERT_EQ(run_perfgate("analyze " + example_trace() + " -q --history " + history + " --record").exit_code,
            0);
  ASSERT_TRUE(make_null_device(dir + "/trend"));
  CommandResult trend = run_perfgate("history trend " + history + " -q --html " + dir + "/trend");
  EXPECT_EQ(trend.exit_code, 0) << trend.out;
  EXPECT_TRUE(is_char_device(dir + "/trend"));
  // No temporary file or folder is left beside them.
  for (const auto& entry : fs::directory_iterator(dir))
    EXPECT_FALSE(entry.path().filename().string().starts_with(".")) << entry.path();
}

// A FIFO gets the whole report, byte for byte as a file would, and stays a FIFO. (A reader that
// never sees a writer gives up after 10 s: the test fails instead of hanging.)
TEST(OutputTargets, AFifoReceivesTheWholeReport) {
  std::string dir = temp_dir();
  for (const char* option : {"--json", "--xlsx"}) {
    std::string name = std::string(option).substr(2);
    std::string fifo = dir + "/fifo." + name;
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    CommandResult r = run_shell("timeout 10 cat " + fifo + " > " + dir + "/received." + name + " & " +
                                perfgate() + " analyze " + example_trace() + " -q " + option + " " + fifo +
                                " 2>&1; code=$?; wait; exit $code");
    EXPECT_EQ(r.exit_code, 0) << r.out;
    // Written to a file too, for comparison (the same input gives the same bytes).
    std::string file = dir + "/file." + name;
    ASSERT_EQ(run_perfgate("analyze " + example_trace() + " -q " + option + " " + file).exit_code, 0);
    EXPECT_EQ(read_text(dir + "/received." + name), read_text(file)) << option;
    struct stat st {};
    ASSERT_EQ(::lstat(fifo.c_str(), &st), 0);
    EXPECT_TRUE(S_ISFIFO(st.st_mode)) << option;
  }
}

// Issue 92, item 6: a FIFO that no process reads blocked the run for ever. It waits 10 s for a reader
// (a reader started beside the run, as above), then fails naming the FIFO, with the input error code;
// the other outputs are written. (`timeout 60`: a hang fails the test instead of stalling the suite.)
TEST(OutputTargets, AFifoNobodyReadsIsAnErrorNotAHang) {
  std::string dir = temp_dir();
  std::string fifo = dir + "/nobody.json";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  CommandResult r = run_shell("timeout 60 " + perfgate() + " analyze " + example_trace() + " -q --json " +
                              fifo + " --md " + dir + "/r.md 2>&1");
  EXPECT_EQ(r.exit_code, 3) << r.out;
  EXPECT_TRUE(contains(r.out, fifo + ": cannot write: a FIFO that no process opened for reading within 10 s"))
      << r.out;
  EXPECT_TRUE(fs::exists(dir + "/r.md"));
}

// A descriptor link (/dev/fd/1, and /dev/stdout, a link to /proc/self/fd/1) writes to the process's
// standard output; a link to one stays a link. (The test never names /dev/stdout itself: a
// regression would replace the machine's. /dev/fd/N cannot be replaced: /proc takes no new file.)
// A link to a regular file replaces the file it points at and leaves the link.
TEST(OutputTargets, LinksAreFollowedAndStdoutIsWrittenThrough) {
  std::string dir = temp_dir();
  CommandResult out = run_shell(perfgate() + " analyze " + example_trace() + " -q --md /dev/fd/1");
  EXPECT_EQ(out.exit_code, 0) << out.out;
  EXPECT_TRUE(contains(out.out, "perfgate: PASS with warnings")) << out.out.substr(0, 300);
  fs::create_symlink("/proc/self/fd/1", dir + "/out.md");
  CommandResult linked =
      run_shell(perfgate() + " analyze " + example_trace() + " -q --md " + dir + "/out.md");
  EXPECT_TRUE(contains(linked.out, "perfgate: PASS with warnings")) << linked.out.substr(0, 300);
  EXPECT_TRUE(fs::is_symlink(dir + "/out.md"));
  // The workbook through a descriptor link: its bytes, as a file gets them (a ZIP archive).
  CommandResult xlsx = run_shell(perfgate() + " analyze " + example_trace() + " -q --xlsx /dev/fd/1");
  EXPECT_EQ(xlsx.exit_code, 0);
  EXPECT_TRUE(xlsx.out.starts_with("PK\x03\x04")) << xlsx.out.substr(0, 40);

  fs::create_directory(dir + "/reports");
  write_text(dir + "/reports/latest.json", "old");
  fs::create_symlink("reports/latest.json", dir + "/report.json");
  ASSERT_EQ(run_perfgate("analyze " + example_trace() + " -q --json " + dir + "/report.json").exit_code, 0);
  EXPECT_TRUE(fs::is_symlink(dir + "/report.json"));
  EXPECT_TRUE(contains(read_text(dir + "/reports/latest.json"), "\"schema\""));
}

// What cannot hold a report is a usage error before any work, and is left as it was.
TEST(OutputTargets, BlockDevicesSocketsAndLinkLoopsAreRefused) {
  std::string dir = temp_dir();
  std::string socket_path = dir + "/s.sock";
  int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::snprintf(address.sun_path, sizeof address.sun_path, "%s", socket_path.c_str());
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
  CommandResult socket = run_perfgate("analyze " + example_trace() + " -q --json " + socket_path);
  ::close(fd);
  EXPECT_EQ(socket.exit_code, 2) << socket.out;
  EXPECT_TRUE(contains(socket.out, "--json " + socket_path + ": is a socket")) << socket.out;

  fs::create_symlink(dir + "/loop-b", dir + "/loop-a");
  fs::create_symlink(dir + "/loop-a", dir + "/loop-b");
  CommandResult loop = run_perfgate("analyze " + example_trace() + " -q --md " + dir + "/loop-a");
  EXPECT_EQ(loop.exit_code, 2) << loop.out;
  EXPECT_TRUE(contains(loop.out, "too many levels of symbolic links")) << loop.out;

  // A block device with no driver behind it (major 250 is unassigned): nothing could be written,
  // and nothing is tried.
  std::string block = dir + "/block";
  if (::mknod(block.c_str(), S_IFBLK | 0600, makedev(250, 250)) != 0)
    GTEST_SKIP() << "mknod needs root (CAP_MKNOD); block devices not tried here";
  CommandResult r = run_perfgate("analyze " + example_trace() + " -q --xlsx " + block);
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_TRUE(contains(r.out, "--xlsx " + block + ": is a block device")) << r.out;
  struct stat st {};
  ASSERT_EQ(::lstat(block.c_str(), &st), 0);
  EXPECT_TRUE(S_ISBLK(st.st_mode));
}

// External assets go beside the page: a page written to standard output has no folder for them.
TEST(OutputTargets, ExternalAssetsNeedAPageInAFolder) {
  CommandResult r =
      run_perfgate("analyze " + example_trace() + " -q --html /dev/fd/1 --html-assets external");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.out, "--html /dev/fd/1 is not a file in a folder")) << r.out;
}

// A history is an input: named as an output of the run that reads or records it, or present where
// a report would go, it is refused and kept byte for byte.
TEST(OutputTargets, AHistoryIsNeverAnOutput) {
  std::string dir = temp_dir();
  std::string history = dir + "/h.db";
  ASSERT_EQ(run_perfgate("analyze " + example_trace() + " -q --history " + history + " --record").exit_code,
            0);
  std::string before = read_text(history);

  CommandResult trend = run_perfgate("history trend " + history + " --html " + history);
  EXPECT_EQ(trend.exit_code, 2) << trend.out;
  EXPECT_TRUE(contains(trend.out, "--html " + history + " is the input " + history)) << trend.out;
  CommandResult record = run_perfgate("analyze " + example_trace() + " -q --json " + history + " --history " +
                                      history + " --record");
  EXPECT_EQ(record.exit_code, 2) << record.out;
  EXPECT_TRUE(contains(record.out, "is the input")) << record.out;
  CommandResult gate =
      run_perfgate("analyze " + example_trace() + " -q --baseline " + history + " --xlsx " + dir + "/./h.db");
  EXPECT_EQ(gate.exit_code, 2) << gate.out;
  // Not named by the run, and still a database: the report goes elsewhere.
  CommandResult other = run_perfgate("analyze " + example_trace() + " -q --md " + history);
  EXPECT_EQ(other.exit_code, 2) << other.out;
  EXPECT_TRUE(contains(other.out, "is a SQLite database")) << other.out;
  EXPECT_EQ(read_text(history), before);
  CommandResult list = run_perfgate("history list " + history);
  EXPECT_EQ(list.exit_code, 0) << list.out;
}

// A listing, a summary or a catalog that cannot be written in full is exit 3 with a message.
TEST(OutputTargets, AStandardOutputThatCannotBeWrittenIsAnError) {
  if (!fs::exists("/dev/full")) GTEST_SKIP() << "/dev/full is not available";
  std::string dir = temp_dir();
  std::string history = dir + "/h.db";
  ASSERT_EQ(run_perfgate("analyze " + example_trace() + " -q --history " + history + " --record").exit_code,
            0);
  for (const std::string& args : {"history list --json " + history, "history list " + history, "metrics"s,
                                  "analyze " + example_trace(), "rules list"s, "--help"s}) {
    CommandResult r = run_shell(perfgate() + " " + args + " 2>&1 >/dev/full");
    EXPECT_EQ(r.exit_code, 3) << args << ": " << r.out;
    EXPECT_TRUE(contains(r.out, "cannot write to standard output")) << args << ": " << r.out;
  }
}

// Issue 78: the output is looked at once for all of a run's inputs, not once per input; a rank of
// a run folder named as the output, as it is, through its folder again, through a missing
// folder and "..", or as a hard link beside the folder (the same device and inode the sniff found),
// is still refused, and the rank is left as it was.
TEST(OutputTargets, ARunFoldersRankIsRefusedAsAnOutputHoweverItIsNamed) {
  std::string run = temp_dir() + "/run";
  fs::create_directories(run);
  for (int rank = 0; rank < 3; ++rank)
    TraceBuilder().op("a", 1, 2).write(run + "/rank-" + std::to_string(rank) + ".json");
  std::string rank1 = run + "/rank-1.json";
  std::string before = read_text(rank1);
  std::string alias = run + "/../alias.json";
  fs::create_hard_link(rank1, alias);
  for (const std::string& output :
       {rank1, run + "/../run/rank-1.json", run + "/missing/../rank-1.json", alias}) {
    CommandResult r = run_perfgate("analyze " + run + " --json " + output);
    EXPECT_EQ(r.exit_code, 2) << output << "\n" << r.out;
    EXPECT_TRUE(contains(r.out, "is the input " + rank1)) << r.out;
  }
  EXPECT_EQ(read_text(rank1), before);
}

}  // namespace
}  // namespace perfgate::testing
