// Issue 73: the inputs the readers open streams from (io/byte_source.h): bytes in memory lent where
// they lie, a gzip input wrapping another and inflating each stream afresh (read ahead or not), a
// file that says where it lies on disk, and the whole bytes read within the memory limit.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <memory>
#include <string>

#include "common/errors.h"
#include "io/byte_source.h"
#include "io/gzip.h"
#include "io/input_limit.h"
#include "support/helpers.h"

namespace perfgate::testing {
namespace {

// Every byte of a stream, read `step` at a time (lent where the source lends).
std::string drain(ByteSource& source, std::size_t step) {
  std::string out;
  if (source.lends()) {
    for (std::string_view text; !(text = source.lend(step)).empty();) {
      out += text;
      source.release(text.data() + text.size());
    }
    return out;
  }
  std::string buffer(step, '\0');
  for (std::size_t n; (n = source.read(buffer.data(), step)) > 0;) out.append(buffer, 0, n);
  return out;
}

std::string numbers(std::size_t count) {
  std::string text;
  for (std::size_t i = 0; i < count; ++i) text += std::to_string(i * 7919 % 100003) + ",";
  return text;
}

TEST(ByteInput, MemoryIsLentWhereItLiesAndOpenedAgainFromTheStart) {
  MemoryInput input("m.json", "0123456789");
  EXPECT_EQ(input.name(), "m.json");
  EXPECT_EQ(input.stored_bytes(), 10u);
  EXPECT_EQ(input.file_path(), nullptr);
  auto first = input.open();
  ASSERT_TRUE(first->lends());
  EXPECT_EQ(first->lend(4), "0123");
  EXPECT_EQ(first->file_bytes_consumed(), 4u);
  auto second = input.open();  // a second pass, while the first is open
  EXPECT_EQ(drain(*second, 3), "0123456789");
  char buffer[16];
  EXPECT_EQ(first->read(buffer, sizeof buffer), 6u);
  EXPECT_EQ(std::string(buffer, 6), "456789");
  EXPECT_EQ(first->read(buffer, sizeof buffer), 0u);
}

// Two gzip members read as one stream, each open() inflating from the start, with or without a
// thread reading ahead; progress counts the compressed bytes.
TEST(ByteInput, GzipWrapsAnInputAndInflatesEachStreamAfresh) {
  std::string text = numbers(200000);
  std::string packed = gzip_compress(text.substr(0, 1000)) + gzip_compress(text.substr(1000));
  auto input = inflate_if_gzip(std::make_unique<MemoryInput>("n.json.gz", packed));
  EXPECT_EQ(input->name(), "n.json.gz");
  EXPECT_EQ(input->stored_bytes(), packed.size());
  EXPECT_EQ(input->file_path(), nullptr);
  for (bool ahead : {false, true}) {
    auto source = input->open({.inflate_ahead = ahead});
    EXPECT_EQ(source->lends(), ahead);  // the read-ahead lends its blocks
    EXPECT_EQ(drain(*source, 4093), text) << ahead;
    EXPECT_EQ(source->file_bytes_consumed(), packed.size()) << ahead;
  }
  EXPECT_EQ(read_head(*input, 12), text.substr(0, 12));
  // Plain bytes are left as they are.
  auto plain = inflate_if_gzip(std::make_unique<MemoryInput>("p.json", text));
  EXPECT_EQ(plain->stored_bytes(), text.size());
  EXPECT_EQ(read_head(*plain, 12), text.substr(0, 12));
}

TEST(ByteInput, AFileSaysWhereItLiesAndIsMappedOrRead) {
  std::string text = numbers(20000);  // past FileInput::kSmallFileBytes
  std::string path = write_text(temp_dir() + "/f.json", text);
  FileInput input(path);
  ASSERT_NE(input.file_path(), nullptr);
  EXPECT_EQ(*input.file_path(), path);
  EXPECT_EQ(input.stored_bytes(), text.size());
  ASSERT_GT(input.stored_bytes(), FileInput::kSmallFileBytes);
  auto mapped = input.open();
  EXPECT_TRUE(mapped->lends());
  EXPECT_EQ(drain(*mapped, 100), text);
  auto read = input.open({.map = false});
  EXPECT_FALSE(read->lends());
  EXPECT_EQ(drain(*read, 100), text);
  // A gzip file's inflated bytes are not the file's: no path for a library to open.
  std::string gz = write_text(temp_dir() + "/f.json.gz", gzip_compress(text));
  auto inflated = inflate_if_gzip(std::make_unique<FileInput>(gz));
  EXPECT_EQ(inflated->file_path(), nullptr);
  EXPECT_EQ(drain(*inflated->open(), 100), text);
}

// Issue 78: a small file (a rank of a run folder) is opened and read whole when it is named, sized
// by the descriptor's fstat, not by a stat of its name; every later stream (the sniff's head, the
// gzip check, the parse, mapped or read) lends those bytes, so it is opened once, and a file removed
// after it was named is still read. A large one is opened to be sized, then for each stream.
TEST(ByteInput, ASmallFileIsOpenedOnceHoweverOftenItIsRead) {
  std::string text = numbers(100);
  std::string path = write_text(temp_dir() + "/small.json", text);
  FileInput input(path);
  EXPECT_EQ(input.opened(), 1u);
  EXPECT_EQ(input.stored_bytes(), text.size());
  EXPECT_TRUE(input.holds_bytes());
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(input.identity(),
            (FileIdentity{static_cast<std::uint64_t>(st.st_dev), static_cast<std::uint64_t>(st.st_ino)}));
  std::filesystem::remove(path);
  EXPECT_EQ(read_head(input, 2), text.substr(0, 2));
  EXPECT_EQ(read_head(input, 1 << 20), text);
  EXPECT_EQ(drain(*input.open(), 7), text);
  EXPECT_EQ(drain(*input.open({.map = false}), 7), text);
  EXPECT_EQ(input.opened(), 1u);
  std::string large = write_text(temp_dir() + "/large.json", numbers(20000));
  FileInput big(large);
  ASSERT_GT(big.stored_bytes(), FileInput::kSmallFileBytes);
  EXPECT_EQ(read_head(big, 2), "0,");
  EXPECT_EQ(drain(*big.open(), 4096).size(), big.stored_bytes());
  EXPECT_FALSE(big.holds_bytes());
  EXPECT_EQ(big.opened(), 3u);
}

// A file's source outlives its input (`inflate_if_gzip(make_unique<FileInput>(p))->open()`, as the
// fuzz harnesses read): a small file's bytes, read once and lent, stay with the sources that lend
// them. kineto_fuzz found the first version reading them after the input had freed them (ASan).
TEST(ByteInput, ASmallFilesSourceOutlivesItsInput) {
  std::string text = numbers(100);
  std::string path = write_text(temp_dir() + "/outlives.json", text);
  std::unique_ptr<ByteSource> first, second;
  {
    auto input = std::make_unique<FileInput>(path);
    first = input->open();
    second = inflate_if_gzip(std::move(input))->open();
  }
  EXPECT_EQ(drain(*first, 7), text);
  EXPECT_EQ(drain(*second, 7), text);
}

// A small file is sized and read from one open: what its streams give is the file as it was when
// it was named, all of it and no more than its size, whatever is written to it after (a stale size
// never cuts a read short). A large one is streamed from the file, to its end, at each open.
TEST(ByteInput, ASmallFileIsReadAsItWasWhenNamed) {
  std::string path = write_text(temp_dir() + "/growing.json", numbers(10));
  FileInput input(path);
  write_text(path, numbers(30));
  EXPECT_EQ(input.stored_bytes(), numbers(10).size());
  EXPECT_EQ(drain(*input.open(), 5), numbers(10));
  EXPECT_EQ(drain(*input.open({.map = false}), 5), numbers(10));
  std::string large = write_text(temp_dir() + "/growing-large.json", numbers(20000));
  FileInput big(large);
  write_text(large, numbers(30000));
  EXPECT_EQ(drain(*big.open({.map = false}), 4096), numbers(30000));
}

TEST(ByteInput, FilesThatAreNotRegularAreRefusedByName) {
  std::string dir = temp_dir();
  std::string fifo = dir + "/pipe.json";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  try {
    FileInput input(fifo);
    ADD_FAILURE() << "not refused";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), fifo + ": not a regular file (a named pipe)");
  }
  try {
    FileInput input(dir + "/missing.json");
    ADD_FAILURE() << "not refused";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), dir + "/missing.json: cannot open: No such file or directory");
  }
}

// A path named by a user is stat'ed before it is opened: a FIFO or a device is refused without
// being opened (opening a device may do something). A caller that has just seen a regular file
// there (a run folder's listing) skips the stat; what was opened is still checked by its fstat.
TEST(ByteInput, ANamedPathIsCheckedBeforeItIsOpened) {
  std::string fifo = temp_dir() + "/pipe.json";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::uint64_t before = files_opened();
  EXPECT_THROW(FileInput input(fifo), InputError);
  EXPECT_EQ(files_opened(), before) << "the FIFO was opened";
  try {
    FileInput input(fifo, SeenRegularFile{});
    ADD_FAILURE() << "not refused";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), fifo + ": not a regular file (a named pipe)");
  }
  EXPECT_EQ(files_opened(), before + 1);
  std::string text = numbers(100);
  std::string path = write_text(temp_dir() + "/seen.json", text);
  FileInput seen(path, SeenRegularFile{});
  EXPECT_EQ(seen.stored_bytes(), text.size());
  EXPECT_EQ(drain(*seen.open(), 7), text);
  EXPECT_EQ(seen.opened(), 1u);
}

// What a reader that needs the bytes at random holds: refused at once past the limit by the stored
// size, and as the inflated bytes grow past it.
TEST(ByteInput, WholeBytesWithinTheMemoryLimit) {
  std::string text = numbers(300000);  // about 1.7 MB: more than one read
  MemoryInput plain("p.bin", text);
  EXPECT_EQ(read_whole(plain, 0), text);
  EXPECT_EQ(read_whole(plain, text.size()), text);
  EXPECT_THROW(read_whole(plain, text.size() - 1), InputMemoryError);
  auto packed = make_gzip_input(std::make_unique<MemoryInput>("p.bin.gz", gzip_compress(text)));
  ASSERT_LT(packed->stored_bytes(), text.size() / 2);
  EXPECT_EQ(read_whole(*packed, 0), text);
  try {
    read_whole(*packed, text.size() / 2);
    ADD_FAILURE() << "not refused";
  } catch (const InputMemoryError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("p.bin.gz: ", 0), 0u) << e.what();
  }
}

}  // namespace
}  // namespace perfgate::testing
