// The streamed reading of a pickle (pickle.h, unpickle_stream): the bytes taken a window at a time
// (Cursor), a first pass for the memo indices the GETs name (so that the memo keeps those only:
// Python's pickler memoises every string and container, a snapshot fetches few of them again: its
// dicts' keys, the frames its tracebacks share), and the machine's draining of the lists the
// reader takes item by item. The memory limit then counts what is alive: the stack, the memo's
// values, the item being built, the buffer; not every value the file ever held.
#include <algorithm>

#include "common/errors.h"
#include "io/input_limit.h"
#include "load/snapshot/pickle_machine.h"

namespace perfgate::pickle {
namespace detail {
namespace {

constexpr std::uint64_t kWindow = std::uint64_t{4} << 20;  // asked of a mapped file at a time
// Read into our buffer at a time (a gzip'd file): small, as the buffer counts against the limit.
constexpr std::uint64_t kReadStep = std::uint64_t{256} << 10;

std::size_t clamp(std::uint64_t n) {
  return static_cast<std::size_t>(std::min<std::uint64_t>(n, std::uint64_t{1} << 40));
}

}  // namespace

std::string_view Cursor::take_slow(std::uint64_t n) {
  fill(n);
  std::size_t k = clamp(std::min<std::uint64_t>(n, window_.size() - at_));
  std::string_view out = window_.substr(at_, k);
  at_ += k;
  return out;
}

bool Cursor::fill(std::uint64_t n) {
  if (source_ == nullptr || ended_) return window_.size() - at_ >= n;
  bool in_buffer = !buffer_.empty() && window_.data() == buffer_.data();
  if (source_->lends() && !in_buffer && at_ > 0) source_->release(window_.data() + at_);
  while (window_.size() - at_ < n && !ended_) {
    std::uint64_t want = std::max(n - (window_.size() - at_), kWindow);
    if (source_->lends()) {
      std::string_view more = source_->lend(clamp(want));
      if (more.empty()) {
        ended_ = true;
      } else if (!in_buffer && (window_.empty() || window_.data() + window_.size() == more.data())) {
        // A mapped file lends its bytes where they lie, one after the other: the window grows over them.
        window_ =
            std::string_view(window_.empty() ? more.data() : window_.data(), window_.size() + more.size());
      } else {  // bytes from elsewhere: into the buffer, after what is left of the window
        if (in_buffer)
          buffer_.erase(0, at_);
        else
          buffer_.assign(window_.substr(at_));
        before_ += at_;
        at_ = 0;
        buffer_.append(more);
        source_->release(more.data() + more.size());
        window_ = buffer_;
        in_buffer = true;
      }
      continue;
    }
    // A read() source: what is left to the front of the buffer, then read after it.
    buffer_.erase(0, at_);
    before_ += at_;
    at_ = 0;
    std::size_t held = buffer_.size();
    std::uint64_t step = std::min(std::max(n - held, kReadStep), kWindow);  // n > held: the loop's test
    if (max_buffer_ != 0 && held + step > max_buffer_) throw InputMemoryError(*path_, max_buffer_);
    buffer_.resize(held + clamp(step));
    std::size_t got = read_fully(*source_, buffer_.data() + held, clamp(step));
    buffer_.resize(held + got);
    if (got < step) ended_ = true;
    window_ = buffer_;
    in_buffer = true;
  }
  return window_.size() - at_ >= n;
}

bool Cursor::skip(std::uint64_t n) {
  while (true) {
    std::uint64_t have = window_.size() - at_;
    if (n <= have) {
      at_ += clamp(n);
      return true;
    }
    at_ += clamp(have);
    n -= have;
    fill(std::min(n, kWindow));
    if (window_.size() == at_) return false;
  }
}

std::uint64_t Cursor::finish() {
  while (skip(kWindow)) {
  }
  return offset();
}

bool IndexSet::insert(std::uint64_t index, std::uint64_t near) {
  std::uint64_t word = index / 64, bit = std::uint64_t{1} << (index % 64);
  if (word >= bits_.size() && index < 2 * std::max(size_, near) + 65536) bits_.resize(clamp(word + 1));
  if (word < bits_.size()) {
    if ((bits_[word] & bit) != 0 || (!sparse_.empty() && sparse_.count(index) != 0)) return false;
    bits_[word] |= bit;
  } else if (!sparse_.insert(index).second) {
    return false;
  }
  ++size_;
  return true;
}

bool IndexSet::contains(std::uint64_t index) const {
  std::uint64_t word = index / 64;
  if (word < bits_.size() && (bits_[word] & (std::uint64_t{1} << (index % 64))) != 0) return true;
  return !sparse_.empty() && sparse_.count(index) != 0;
}

void IndexSet::number() {
  ranks_.resize(bits_.size());
  std::uint64_t n = 0;
  for (std::size_t w = 0; w < bits_.size(); ++w) {
    ranks_[w] = n;
    n += static_cast<std::uint64_t>(__builtin_popcountll(bits_[w]));
  }
  for (std::uint64_t index : sparse_) sparse_ranks_.emplace(index, n++);
}

IndexSet fetched_indices(Cursor& in, const std::string& path, std::uint64_t max_memory) {
  IndexSet out;
  std::uint64_t stores = 0;  // memo stores so far: a GET names one of them
  auto little = [&](std::size_t n, std::uint64_t& v) {
    std::string_view b = in.take(n);
    v = 0;
    for (std::size_t i = b.size(); i-- > 0;) v = (v << 8) | static_cast<unsigned char>(b[i]);
    return b.size() == n;
  };
  std::uint64_t v = 0;
  while (true) {
    std::string_view op = in.take(1);
    if (op.empty()) return out;
    const auto c = static_cast<unsigned char>(op[0]);
    switch (c) {
      case 'h':
      case 'j':
        if (!little(c == 'h' ? 1 : 4, v)) return out;
        // The set of indices counts against the limit as it grows: GETs of indices far apart, each
        // a few bytes of a file, would otherwise hold far more than the file.
        if (out.insert(v, stores) && max_memory != 0 && out.bytes() > max_memory)
          throw InputMemoryError(path, max_memory);
        break;
      case 0x80:  // PROTO, BININT1, BININT2, BININT, BINFLOAT, FRAME: arguments of a fixed size
      case 'K':
      case 'M':
      case 'J':
      case 'G':
      case 0x95:
        if (!in.skip(c == 0x80 || c == 'K' ? 1 : c == 'M' ? 2 : c == 'J' ? 4 : 8)) return out;
        break;
      case 'q':
      case 'r':
        ++stores;
        if (!in.skip(c == 'q' ? 1 : 4)) return out;
        break;
      case 0x94:
        ++stores;
        break;
      case 0x8a:  // a length of 1, 4 or 8 bytes, then that many bytes
      case 0x8c:
      case 'U':
      case 'C':
      case 0x8b:
      case 'X':
      case 'T':
      case 'B':
      case 0x8d:
      case 0x8e:
      case 0x96: {
        std::size_t width = (c == 0x8a || c == 0x8c || c == 'U' || c == 'C') ? 1
                            : (c == 0x8d || c == 0x8e || c == 0x96)          ? 8
                                                                             : 4;
        if (!little(width, v) || !in.skip(v)) return out;
        break;
      }
      case '(':
      case '0':
      case '1':
      case '2':
      case 'N':
      case 0x88:
      case 0x89:
      case ']':
      case 0x8f:
      case 'l':
      case 0x91:
      case ')':
      case 't':
      case 0x85:
      case 0x86:
      case 0x87:
      case '}':
      case 'd':
      case 'a':
      case 'e':
      case 0x90:
      case 's':
      case 'u':
        break;  // no argument
      default:
        return out;  // STOP; or an opcode the machine refuses when it gets there
    }
  }
}

void Machine::check_live() {
  if (limits_.max_memory == 0) return;
  std::uint64_t live = held_ + stack_.size() * sizeof(Value) + marks_.size() * sizeof(std::size_t) +
                       stored_.bytes() + fetched_->bytes() + kept_.capacity() * sizeof(Value) +
                       in_.buffered() + drain_->kept_bytes();
  if (live > limits_.max_memory) over_limit();
}

bool Machine::drains(const Node& node) const {
  return node.role > kRootRole;
}

// The role of the list at `position` on the stack, from the values below it: its key and the dict
// under the MARK of that dict's SETITEMS (or with no MARK, SETITEM's), or the list under the MARK
// of that list's APPENDS (or APPEND's) and its index there; as Python's pickler writes containers.
void Machine::resolve(std::size_t p) {
  using K = Value::Kind;
  Node& n = *stack_[p].shared();
  if (n.resolved) return;
  n.resolved = true;
  if (!stack_[p].is(K::List)) return;
  std::size_t frame = 0;
  bool marked = false;
  for (auto m = marks_.rbegin(); m != marks_.rend() && !marked; ++m)
    if (*m <= p) frame = *m, marked = true;
  std::size_t at = 0;
  bool keyed = false;
  std::uint64_t index = 0;
  if (marked && frame >= 1 && stack_[frame - 1].is(K::List)) {
    at = frame - 1;
    index = p - frame;
  } else if (marked && frame >= 1 && stack_[frame - 1].is(K::Dict) && (p - frame) % 2 == 1 &&
             stack_[p - 1].is(K::Str)) {
    at = frame - 1;
    keyed = true;
  } else if (p >= frame + 1 && stack_[p - 1].is(K::List)) {
    at = p - 1;
  } else if (p >= frame + 2 && stack_[p - 1].is(K::Str) && stack_[p - 2].is(K::Dict)) {
    at = p - 2;
    keyed = true;
  } else {
    return;
  }
  if (stack_[at].is(K::List)) resolve(at);
  Node& parent = *stack_[at].shared();
  if (parent.role == 0) return;
  if (!keyed) index += parent.placed;
  std::uint8_t role = drain_->role_of(parent.role, keyed, keyed ? stack_[p - 1].text() : "", index);
  if (role <= kRootRole) return;
  if (n.memo_kept) fail("a list the snapshot's reading drains is also shared through the memo");
  n.role = role;
  n.tag = index;
  n.keyed = keyed;
  n.parent = &parent;
  ++drains_resolved_;
}

// A draining list's place checked as it is placed: where it was found, once.
void Machine::check_placed(const Node& parent, const Value& child, std::string_view key,
                           std::uint64_t index) {
  const std::shared_ptr<Node>& n = child.shared();
  if (!n || !drains(*n)) return;
  bool same = n->parent == &parent && !n->in_place &&
              (n->keyed ? drain_->role_of(parent.role, true, key, 0) == n->role : index == n->tag);
  if (!same)
    fail(
        "a list the snapshot's reading drains is placed elsewhere than where it was found (perfgate reads "
        "a snapshot's segments and traces as torch writes them)");
  n->in_place = true;
  ++drains_placed_;
}

void Machine::drain_into(Node& list, std::vector<Value> items) {
  for (Value& item : items) {
    check_placed(list, item, {}, list.placed);
    place(list, item);
    held_ -= sizeof(Value);  // place() counts a slot the list does not keep
    drain_->take(list.role, list.tag, list.placed, item);
    held_ -= std::min(held_, exclusive_bytes(item));
    ++list.placed;
    item = Value();  // freed now: the next item may be large
  }
}

// What `v` holds alone (no other value shares it): what it gives back when it goes.
std::uint64_t Machine::exclusive_bytes(const Value& v) const {
  const std::shared_ptr<Node>& n = v.shared();
  if (!n || n.use_count() != 1) return 0;
  std::uint64_t bytes =
      kNodeBytes + n->text.size() + n->items.size() * sizeof(Value) + n->entries.size() * 3 * sizeof(Value);
  for (const Value& item : n->items) bytes += exclusive_bytes(item);
  for (const auto& [key, value] : n->entries) bytes += exclusive_bytes(key) + exclusive_bytes(value);
  return bytes;
}

void Machine::check_result(const Value& result) const {
  if (drains_placed_ != drains_resolved_)
    fail("a list the snapshot's reading drains is not placed where it was found");
  if (drains_resolved_ > 0 && result.shared().get() != root_)
    fail("the pickle's value is not the dict whose lists were read as they streamed");
}

}  // namespace detail

Value unpickle_stream(const std::function<std::unique_ptr<ByteSource>()>& open, const std::string& path,
                      const Limits& limits, Drain& drain, std::uint64_t* bytes_read) {
  detail::IndexSet fetched;
  {
    std::unique_ptr<ByteSource> source = open();
    detail::Cursor in(*source, path, limits.max_memory);
    fetched = detail::fetched_indices(in, path, limits.max_memory);
    fetched.number();
  }
  std::unique_ptr<ByteSource> source = open();
  detail::Cursor in(*source, path, limits.max_memory);
  Value out = detail::Machine(in, path, limits, &drain, &fetched).run();
  if (bytes_read != nullptr) *bytes_read = in.finish();
  return out;
}

}  // namespace perfgate::pickle
