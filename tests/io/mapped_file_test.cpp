// A plain trace file is mapped and parsed where it lies (src/io/mapped_file.cpp): the bytes it
// lends must be the file's, in order, still readable after their pages are handed back, and a file
// that shrinks under the mapping must end the process as an input error naming it, not a crash.
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>

#include <filesystem>

#include "common/errors.h"
#include "io/byte_source.h"
#include "support/helpers.h"

namespace perfgate::testing {
namespace {

// Bytes that differ from page to page, so that a view at the wrong place shows.
std::string patterned_text(std::size_t size) {
  std::string text(size, ' ');
  for (std::size_t i = 0; i < size; ++i) text[i] = static_cast<char>('a' + (i * 7 + i / 4096) % 26);
  return text;
}

TEST(MappedFile, LendsTheFileInOrderAndReadsTheSame) {
  std::string text = patterned_text(3 * 4096 + 123);
  std::string path = write_text(temp_dir() + "/mapped.json", text);
  auto source = open_plain_file(path);
  ASSERT_TRUE(source->lends());
  std::string lent;
  for (std::string_view v = source->lend(1000); !v.empty(); v = source->lend(1000)) {
    lent.append(v);
    EXPECT_EQ(source->file_bytes_consumed(), lent.size());
    source->release(v.data() + v.size() / 2);  // pages before the middle of the view go
  }
  EXPECT_EQ(lent, text);

  auto again = open_plain_file(path);
  std::string read(text.size() + 10, '\0');
  std::size_t n = 0, got = 0;
  while ((got = again->read(read.data() + n, 777)) > 0) n += got;
  read.resize(n);
  EXPECT_EQ(read, text);
}

// Handing pages back drops them from the process, not from the file: a view read again after its
// pages went sees the same bytes.
TEST(MappedFile, ReleasedPagesReadTheSameAgain) {
  std::string text = patterned_text(5 * 4096);
  std::string path = write_text(temp_dir() + "/released.json", text);
  auto source = open_plain_file(path);
  std::string_view all = source->lend(text.size());
  ASSERT_EQ(all.size(), text.size());
  source->release(all.data() + all.size());
  EXPECT_EQ(std::string(all), text);
}

TEST(MappedFile, AnEmptyFileReadsNothingAndAMissingOneNamesItself) {
  std::string path = write_text(temp_dir() + "/empty.json", "");
  auto source = open_plain_file(path);
  char c = 0;
  EXPECT_EQ(source->read(&c, 1), 0u);
  try {
    open_plain_file(temp_dir() + "/missing.json");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("missing.json: cannot open"), std::string::npos) << e.what();
  }
}

// What read() would have seen as a short file faults under a mapping (SIGBUS): perfgate names the
// file and exits with the input error's code.
TEST(MappedFileDeathTest, AFileThatShrinksWhileReadIsAnInputError) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  std::string path = write_text(temp_dir() + "/shrinks.json", patterned_text(64 * 4096));
  EXPECT_EXIT(
      {
        auto source = open_plain_file(path);
        std::string_view text = source->lend(64 * 4096);
        std::filesystem::resize_file(path, 0);
        volatile char last = text[text.size() - 1];
        (void)last;
        std::_Exit(0);  // not reached: the read above faults
      },
      ::testing::ExitedWithCode(kExitInput), "shrinks.json: the file became shorter while it was read");
  // A SIGBUS outside any mapped trace goes to what handled it before (the default action ends the
  // process; a sanitizer's handler reports it): never taken for an input error.
  auto not_an_input_error = [](int status) {
    return !(WIFEXITED(status) && (WEXITSTATUS(status) == kExitInput || WEXITSTATUS(status) == 0));
  };
  EXPECT_EXIT(
      {
        auto source = open_plain_file(write_text(temp_dir() + "/kept.json", "{}"));
        ::raise(SIGBUS);
        std::_Exit(0);
      },
      not_an_input_error, "");
}

}  // namespace
}  // namespace perfgate::testing
