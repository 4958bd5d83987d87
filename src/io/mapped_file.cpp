// A plain trace file mapped read-only: the parser reads the page cache where it lies, with no read()
// copy into a buffer of ours (on a 305 MB trace, 0.04 s of system time against 0.01 s). The pages
// the reading has passed are handed back (MADV_DONTNEED), so the process holds the few pieces it is
// parsing, not the file.
//
// A mapped file that shrinks while it is read (truncated, or written over by a new profile) makes
// the next access to the lost pages fault with SIGBUS, where read() would have seen a short file.
// No exception can leave a signal handler, so the handler does what an input error does: it names
// the file on stderr and exits with the input error's code. No report has been written by then:
// reports are written after every input is read.
#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <mutex>

#include "common/errors.h"
#include "io/byte_source.h"

namespace perfgate {
namespace {

// The files mapped now, as the SIGBUS handler sees them: it may only read atomics.
struct GuardedRange {
  std::atomic<bool> claimed{false};
  std::atomic<const char*> begin{nullptr};
  std::atomic<const char*> end{nullptr};
  std::atomic<const char*> message{nullptr};
};
constexpr std::size_t kGuardedRanges = 64;  // more files mapped at once are read with read()
GuardedRange g_guarded[kGuardedRanges];
struct sigaction g_previous_bus_action {};

void write_to_stderr(const char* text) {
  std::size_t left = std::strlen(text);
  while (left > 0) {
    ssize_t n = ::write(STDERR_FILENO, text, left);
    if (n <= 0) return;
    text += n;
    left -= static_cast<std::size_t>(n);
  }
}

void on_bus_error(int, siginfo_t* info, void*) {
  const char* at = static_cast<const char*>(info->si_addr);
  for (const GuardedRange& range : g_guarded) {
    const char* begin = range.begin.load(std::memory_order_acquire);
    if (begin != nullptr && at >= begin && at < range.end.load(std::memory_order_relaxed)) {
      write_to_stderr(range.message.load(std::memory_order_relaxed));
      ::_exit(kExitInput);
    }
  }
  // Not a trace being read: what was there before takes it (the default: the process ends).
  ::sigaction(SIGBUS, &g_previous_bus_action, nullptr);
  ::raise(SIGBUS);
}

void install_bus_handler() {
  static std::once_flag installed;
  std::call_once(installed, [] {
    struct sigaction action {};
    action.sa_sigaction = on_bus_error;
    action.sa_flags = SA_SIGINFO;
    sigemptyset(&action.sa_mask);
    ::sigaction(SIGBUS, &action, &g_previous_bus_action);
  });
}

// A slot of g_guarded for one mapping while it lives, or none where all are taken.
class BusGuard {
 public:
  BusGuard(const char* begin, std::size_t size, const std::string& path) {
    message_ = "perfgate: ";
    for (char c : path) message_ += static_cast<unsigned char>(c) < 0x20 || c == 0x7f ? '?' : c;
    message_ += ": the file became shorter while it was read; read it again once it is complete\n";
    for (GuardedRange& range : g_guarded) {
      bool expected = false;
      if (!range.claimed.compare_exchange_strong(expected, true)) continue;
      range.message.store(message_.c_str(), std::memory_order_relaxed);
      range.end.store(begin + size, std::memory_order_relaxed);
      range.begin.store(begin, std::memory_order_release);
      range_ = &range;
      install_bus_handler();
      return;
    }
  }
  BusGuard(const BusGuard&) = delete;
  BusGuard& operator=(const BusGuard&) = delete;
  ~BusGuard() {
    if (range_ == nullptr) return;
    range_->begin.store(nullptr, std::memory_order_release);
    range_->claimed.store(false, std::memory_order_release);
  }
  bool active() const { return range_ != nullptr; }

 private:
  std::string message_;
  GuardedRange* range_ = nullptr;
};

std::size_t page_size() {
  static const auto page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  return page;
}

class MappedFile : public ByteSource {
  static constexpr std::size_t kReleaseBytes = 1 << 20;
  static constexpr std::size_t kReadAheadBytes = 8 << 20;

  // A file not in the page cache yet is read from disk ahead of the parse, as read() would have
  // the kernel do, instead of a page fault at a time on the parsing threads.
  void read_ahead() {
    if (lent_ + kReadAheadBytes / 2 < read_ahead_ || read_ahead_ >= size_) return;
    std::size_t from = std::max(read_ahead_, lent_) / page_size() * page_size();
    std::size_t upto = std::min(size_, from + kReadAheadBytes);
    ::madvise(const_cast<char*>(data_) + from, upto - from, MADV_WILLNEED);
    read_ahead_ = upto;
  }

 public:
  MappedFile(std::unique_ptr<FileSource> file, const char* data, std::size_t size)
      : file_(std::move(file)), data_(data), size_(size), guard_(data, size, file_->path()) {
    // Read ahead; and mapped a page at a time, not a 2 MiB folio at once, so that what is
    // resident stays near the pieces being parsed.
    ::madvise(const_cast<char*>(data_), size_, MADV_SEQUENTIAL);
    ::madvise(const_cast<char*>(data_), size_, MADV_NOHUGEPAGE);
  }
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  ~MappedFile() override { ::munmap(const_cast<char*>(data_), size_); }
  bool guarded() const { return guard_.active(); }

  std::size_t read(char* out, std::size_t size) override {
    std::string_view text = lend(size);
    std::memcpy(out, text.data(), text.size());
    release(text.data() + text.size());
    return text.size();
  }
  std::uint64_t file_bytes_consumed() const override { return lent_; }
  bool lends() const override { return true; }
  std::string_view lend(std::size_t size) override {
    std::size_t n = std::min(size, size_ - lent_);
    std::string_view text(data_ + lent_, n);
    lent_ += n;
    read_ahead();
    return text;
  }
  // Whole pages only: the page that holds `end` may still be read. At least 1 MiB at a time: in a
  // process with several threads each call interrupts the other cores to flush their TLBs.
  void release(const char* end) override {
    std::size_t upto = static_cast<std::size_t>(end - data_) / page_size() * page_size();
    if (upto < released_ + kReleaseBytes) return;
    ::madvise(const_cast<char*>(data_) + released_, upto - released_, MADV_DONTNEED);
    released_ = upto;
  }

 private:
  std::unique_ptr<FileSource> file_;  // keeps the file open while it is mapped
  const char* data_;
  std::size_t size_;
  std::size_t lent_ = 0;
  std::size_t released_ = 0;
  std::size_t read_ahead_ = 0;  // bytes asked of the disk ahead of the parse
  BusGuard guard_;
};

}  // namespace

std::unique_ptr<ByteSource> open_plain_file(const std::string& path) {
  auto file = std::make_unique<FileSource>(path);  // opens and checks it, with its messages
  auto size = static_cast<std::size_t>(file->file_size());
  if (size == 0) return file;
  void* data = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, file->fd(), 0);
  if (data == MAP_FAILED) return file;  // e.g. a file system that cannot map: read() it
  auto mapped = std::make_unique<MappedFile>(std::move(file), static_cast<const char*>(data), size);
  if (mapped->guarded()) return mapped;
  return std::make_unique<FileSource>(path);  // more files mapped at once than can be guarded
}

}  // namespace perfgate
