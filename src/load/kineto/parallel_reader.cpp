#include "load/kineto/parallel_reader.h"

#include <boost/json/basic_parser_impl.hpp>

#include <algorithm>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "io/input_limit.h"
#include "load/kineto/block_merger.h"
#include "load/kineto/event_builder.h"
#include "load/kineto/trace_handler.h"
#include "load/kineto/trace_text.h"

namespace perfgate::kineto {
namespace {

constexpr std::size_t kReadBytes = 256 << 10;
constexpr std::size_t kMaxJoinedBytes = std::size_t{256} << 20;  // pieces joined to find an event end
constexpr std::size_t kMaxPendingBytes = std::size_t{1} << 31;   // no event start in 2 GiB: one pass

// Text read without being zeroed first, and reused from piece to piece: a fresh buffer would
// cost the page faults of its size each time, on every thread.
class TextBuffer {
 public:
  char* data() { return data_.get(); }
  const char* data() const { return data_.get(); }
  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  void clear() { size_ = 0; }
  void resize_down(std::size_t size) { size_ = std::min(size, size_); }
  // Room for `n` more bytes at the end; commit(k) then counts the k written there.
  char* room(std::size_t n) {
    reserve(size_ + n);
    return data_.get() + size_;
  }
  void commit(std::size_t n) { size_ += n; }
  void append(const char* p, std::size_t n) {
    std::memcpy(room(n), p, n);
    size_ += n;
  }
  void reserve(std::size_t n) {
    if (n <= capacity_) return;
    std::size_t capacity = std::max(n, capacity_ * 2);
    auto bigger = std::make_unique_for_overwrite<char[]>(capacity);
    if (size_ > 0) std::memcpy(bigger.get(), data_.get(), size_);
    data_ = std::move(bigger);
    capacity_ = capacity;
  }
  void erase_front(std::size_t n) {
    std::memmove(data_.get(), data_.get() + n, size_ - n);
    size_ -= n;
  }

 private:
  std::unique_ptr<char[]> data_;
  std::size_t size_ = 0;
  std::size_t capacity_ = 0;
};

// A piece's text: a copy of its own, or a view of bytes the source lends (a mapped file).
class PieceText {
 public:
  const char* data() const { return view_ != nullptr ? view_ : own_.data(); }
  std::size_t size() const { return view_ != nullptr ? view_size_ : own_.size(); }
  void reserve(std::size_t n) { own_.reserve(n); }
  void view(const char* data, std::size_t size) {
    view_ = data;
    view_size_ = size;
  }
  // The piece's own buffer, to be filled: the text is then what it holds.
  TextBuffer& own() {
    view_ = nullptr;
    return own_;
  }
  // Appends the next piece's text: lent bytes follow each other, so a view just grows.
  void join(const PieceText& next) {
    if (view_ != nullptr && next.view_ == view_ + view_size_) {
      view_size_ += next.view_size_;
      return;
    }
    if (view_ != nullptr) {
      own_.clear();
      own_.append(view_, view_size_);
      view_ = nullptr;
    }
    own_.append(next.data(), next.size());
  }

 private:
  TextBuffer own_;
  const char* view_ = nullptr;
  std::size_t view_size_ = 0;
};

// The text read but not yet cut into pieces: in a buffer of ours, or a view of the bytes the
// source lends, which grows as they are "read".
class PendingText {
 public:
  explicit PendingText(ByteSource& source) : source_(source), lent_(source.lends()) {}
  const char* data() const { return lent_ ? view_ : buffer_.data(); }
  std::size_t size() const { return lent_ ? view_size_ : buffer_.size(); }
  bool empty() const { return size() == 0; }
  void reserve(std::size_t n) {
    if (!lent_) buffer_.reserve(n);
  }
  // Adds up to `n` bytes of the source at the end; false at the end of the input.
  bool read_more(std::size_t n) {
    if (lent_) {
      std::string_view more = source_.lend(n);
      if (view_ == nullptr) view_ = more.data();  // lent bytes follow each other from here on
      view_size_ += more.size();
      return !more.empty();
    }
    std::size_t got = source_.read(buffer_.room(n), n);
    buffer_.commit(got);
    return got > 0;
  }
  void erase_front(std::size_t n) {
    if (!lent_) return buffer_.erase_front(n);
    view_ += n;
    view_size_ -= n;
  }
  void clear() { erase_front(size()); }
  // Moves the first `cut` bytes into `piece`. A buffer of ours goes with them: the rest is copied
  // into the piece's old buffer, which takes its place.
  void cut_into(PieceText& piece, std::size_t cut) {
    if (lent_) {
      piece.view(view_, cut);
      erase_front(cut);
      return;
    }
    TextBuffer& own = piece.own();
    own.clear();
    own.append(buffer_.data() + cut, buffer_.size() - cut);
    buffer_.resize_down(cut);
    std::swap(own, buffer_);
  }

 private:
  ByteSource& source_;
  bool lent_;
  TextBuffer buffer_;
  const char* view_ = nullptr;
  std::size_t view_size_ = 0;
};

struct Piece {
  PieceText text;
  std::unique_ptr<EventBlock> block;
  std::size_t array_end = std::string::npos;  // where the events array closed in `text`, if it did
  std::uint64_t invalid_utf8 = 0;
  bool ok = false;
  bool done = false;
};

// Parses "[" + text + "]" with the depth limit the events have in the whole document.
void parse_piece(Piece& piece, int max_depth, bool driver_calls) {
  piece.ok = false;
  piece.array_end = std::string::npos;
  piece.block->reset();
  EventBuilder builder(*piece.block, driver_calls);
  boost::json::basic_parser<TraceHandler> parser(trace_parse_options(max_depth), builder);
  boost::system::error_code ec;
  parser.write_some(true, "[", 1, ec);
  // One buffer for the whole piece: the handler's views into it stay valid to the end.
  std::size_t used = parser.write_some(true, piece.text.data(), piece.text.size(), ec);
  if (ec) return;
  if (parser.handler().document_closed()) {
    piece.array_end = used;
  } else {
    parser.write_some(false, "]", 1, ec);
    if (ec || !parser.done()) return;
  }
  piece.invalid_utf8 = parser.handler().invalid_utf8_strings();
  piece.ok = true;
}

// Threads that parse pieces in the order they are queued. The thread that cuts and merges the
// pieces parses queued ones too while it waits for a piece, so it counts as one of the threads:
// `threads` parsers on `threads` cores, not one more thread than cores.
class PiecePool {
 public:
  PiecePool(unsigned threads, int max_depth, bool driver_calls)
      : max_depth_(max_depth), driver_calls_(driver_calls) {
    for (unsigned i = 0; i < threads; ++i) threads_.emplace_back([this] { work(); });
  }
  PiecePool(const PiecePool&) = delete;
  PiecePool& operator=(const PiecePool&) = delete;
  ~PiecePool() {
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    queued_.notify_all();
    for (auto& t : threads_) t.join();
  }

  void submit(Piece& piece) {
    {
      std::lock_guard lock(mutex_);
      queue_.push_back(&piece);
    }
    queued_.notify_one();
  }
  // Returns once `piece` is parsed; parses the pieces queued before it (and it) meanwhile.
  void wait(const Piece& piece) {
    std::unique_lock lock(mutex_);
    while (!piece.done) {
      if (queue_.empty()) {
        finished_.wait(lock);
        continue;
      }
      Piece* next = queue_.front();
      queue_.pop_front();
      lock.unlock();
      parse_guarded(*next);
      lock.lock();
      next->done = true;
    }
  }

 private:
  void work() {
    for (;;) {
      Piece* piece = nullptr;
      {
        std::unique_lock lock(mutex_);
        queued_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
        if (stopping_) return;
        piece = queue_.front();
        queue_.pop_front();
      }
      parse_guarded(*piece);
      {
        std::lock_guard lock(mutex_);
        piece->done = true;
      }
      finished_.notify_all();
    }
  }

  void parse_guarded(Piece& piece) const {
    try {
      parse_piece(piece, max_depth_, driver_calls_);
    } catch (...) {
      piece.ok = false;  // e.g. out of memory: the one-pass read reports it
    }
  }

  int max_depth_;
  bool driver_calls_;
  std::vector<std::thread> threads_;
  std::mutex mutex_;
  std::condition_variable queued_;
  std::condition_variable finished_;
  std::deque<Piece*> queue_;
  bool stopping_ = false;
};

class PiecewiseRead {
 public:
  PiecewiseRead(ByteSource& source, const std::string& path,
                const std::function<void(std::uint64_t)>& on_progress, const ReadOptions& options)
      : source_(source),
        path_(path),
        on_progress_(on_progress),
        options_(options),
        top_builder_(top_block_, options.driver_calls),
        top_(trace_parse_options(kMaxJsonDepth), top_builder_),
        merger_(profile_) {
    profile_.source_path = path;
  }

  std::optional<Profile> run() {
    pending_.reserve(options_.piece_bytes + kReadBytes);
    int array_depth = find_events_array();
    if (array_depth == 0) return std::nullopt;
    max_depth_ = kMaxJsonDepth - (array_depth - 1);
    {
      PiecePool pool(options_.threads - 1, max_depth_, options_.driver_calls);  // and this thread
      pool_ = &pool;
      bool ok = cut_pieces();
      ok = ok && merge_until(0);
      pool_ = nullptr;
      if (!ok) return std::nullopt;
    }
    if (!finish_top_level()) return std::nullopt;
    complete_profile(profile_, merger_, top_.handler().metadata(),
                     invalid_utf8_ + top_.handler().invalid_utf8_strings(), path_, options_.threads);
    return std::move(profile_);
  }

 private:
  // Reads up to kReadBytes onto the end of pending_; false at the end of the input.
  bool read_more() {
    bool more = pending_.read_more(kReadBytes);
    if (first_read_) {
      pending_.erase_front(byte_order_mark(pending_.data(), pending_.size()));
      first_read_ = false;
    }
    if (on_progress_) on_progress_(source_.file_bytes_consumed());
    return more;
  }

  // Hands the text before the events array to the top-level parser, then "[]" in its place.
  // Returns the array's depth, or 0 where it is not found.
  int find_events_array() {
    EventsArrayFinder finder;
    for (;;) {
      if (!read_more()) return 0;
      auto state = finder.scan(pending_.data(), pending_.size());
      if (state == EventsArrayFinder::State::NotFound) return 0;
      std::size_t prefix = state == EventsArrayFinder::State::Found ? finder.offset() : pending_.size();
      if (!feed_top(pending_.data(), prefix)) return 0;
      if (state == EventsArrayFinder::State::Found) {
        pending_.erase_front(prefix + 1);
        return feed_top("[]", 2) ? finder.array_depth() : 0;
      }
      pending_.clear();
    }
  }

  // Cuts the rest of the input into pieces and queues them, merging finished ones on the way. A
  // piece ends at the last event start before piece_bytes, or at the first after it where one
  // event is longer.
  bool cut_pieces() {
    const std::size_t size = options_.piece_bytes;
    bool more = true;
    std::size_t searched = 0;  // pending_ holds no event start in [size, searched)
    for (;;) {
      while (more && pending_.size() < size) more = read_more();
      std::size_t cut = std::string::npos;
      if (pending_.size() >= size) cut = last_event_start(pending_.data(), size);
      if (cut == std::string::npos && pending_.size() > size) {
        cut = first_event_start(pending_.data(), pending_.size(), std::max(size, searched));
        searched = pending_.size();
      }
      if (cut == std::string::npos) {
        if (!more) break;
        if (pending_.size() > kMaxPendingBytes) return false;
        more = read_more();
        continue;
      }
      if (!submit(cut)) return false;
      searched = 0;
    }
    return pending_.empty() || submit(pending_.size());
  }

  // Queues pending_[0, cut) as a piece; its buffer and block come from merged pieces where there are.
  bool submit(std::size_t cut) {
    std::unique_ptr<Piece> piece;
    if (spare_.empty()) {
      piece = std::make_unique<Piece>();
      piece->block = std::make_unique<EventBlock>();
      if (!source_.lends()) piece->text.reserve(options_.piece_bytes + kReadBytes);
    } else {
      piece = std::move(spare_.back());
      spare_.pop_back();
    }
    pending_.cut_into(piece->text, cut);
    piece->done = false;
    pool_->submit(*piece);
    in_flight_.push_back(std::move(piece));
    return merge_until(options_.threads + 1);
  }

  // Merges finished pieces, in order, until at most `left` are in flight. A piece that does not
  // parse was cut inside an event (at a "}, {" in its args) or is bad input: it is joined with the
  // next piece and parsed again, here, until it parses or there is no next piece.
  bool merge_until(std::size_t left) {
    while (in_flight_.size() > left) {
      Piece& piece = *in_flight_.front();
      pool_->wait(piece);
      while (!piece.ok && !array_closed_) {
        if (in_flight_.size() < 2 || piece.text.size() > kMaxJoinedBytes) return false;
        Piece& next = *in_flight_[1];
        pool_->wait(next);
        piece.text.join(next.text);
        spare_.push_back(std::move(in_flight_[1]));
        in_flight_.erase(in_flight_.begin() + 1);
        parse_piece(piece, max_depth_, options_.driver_calls);
      }
      if (!merge(piece)) return false;
      source_.release(piece.text.data() + piece.text.size());  // a mapped file's pages up to here
      spare_.push_back(std::move(in_flight_.front()));
      in_flight_.pop_front();
    }
    return true;
  }

  bool merge(Piece& piece) {
    if (array_closed_) return feed_top(piece.text.data(), piece.text.size());  // text after the events
    if (!piece.ok || !merger_.add(*piece.block)) return false;
    check_input_memory(path_, merger_.memory_bytes(), options_.max_memory);
    invalid_utf8_ += piece.invalid_utf8;
    if (piece.array_end == std::string::npos) return true;
    array_closed_ = true;
    return feed_top(piece.text.data() + piece.array_end, piece.text.size() - piece.array_end);
  }

  bool feed_top(const char* data, std::size_t size) {
    if (top_.done()) return only_whitespace(data, size);
    boost::system::error_code ec;
    std::size_t used = top_.write_some(true, data, size, ec);
    top_.handler().keep_views();  // the piece's text is reused
    // Events after the first array (read again in one pass) must not grow past the limit meanwhile.
    check_input_memory(path_, merger_.memory_bytes() + top_builder_.memory_bytes(), options_.max_memory);
    return !ec && (used == size || only_whitespace(data + used, size - used));
  }

  bool finish_top_level() {
    if (!array_closed_) return false;
    if (!top_.done()) {
      boost::system::error_code ec;
      top_.write_some(false, nullptr, 0, ec);
      if (ec || !top_.done()) return false;
    }
    return top_.handler().events_seen() == 0;  // a second events array: read in one pass
  }

  ByteSource& source_;
  const std::string& path_;
  const std::function<void(std::uint64_t)>& on_progress_;
  const ReadOptions& options_;
  EventBlock top_block_;  // events the top-level parser meets (none, or the trace is read in one pass)
  EventBuilder top_builder_;
  boost::json::basic_parser<TraceHandler> top_;
  Profile profile_;
  BlockMerger merger_;
  PiecePool* pool_ = nullptr;
  int max_depth_ = kMaxJsonDepth;
  std::deque<std::unique_ptr<Piece>> in_flight_;
  PendingText pending_{source_};
  std::vector<std::unique_ptr<Piece>> spare_;  // merged pieces, kept for their memory
  std::uint64_t invalid_utf8_ = 0;
  bool first_read_ = true;
  bool array_closed_ = false;
};

}  // namespace

std::optional<Profile> read_trace_in_pieces(ByteSource& source, const std::string& path,
                                            const std::function<void(std::uint64_t)>& on_progress,
                                            const ReadOptions& options) {
  try {
    return PiecewiseRead(source, path, on_progress, options).run();
  } catch (const InputMemoryError&) {
    throw;  // a one-pass read would hold as much
  } catch (...) {
    return std::nullopt;  // a read error or bad input: the one-pass read says what it is
  }
}

}  // namespace perfgate::kineto
