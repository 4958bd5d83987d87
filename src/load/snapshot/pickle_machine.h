// The restricted unpickler's insides (pickle.h), shared by the whole-value reading (pickle.cpp) and
// the streamed one (pickle_stream.cpp): where the bytes come from (Cursor: a string in memory, or a
// file read or mapped a window at a time), the set of memo indices (IndexSet) and the stack machine.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "io/byte_source.h"
#include "load/snapshot/pickle.h"

namespace perfgate::pickle::detail {

constexpr std::uint64_t kNodeBytes = sizeof(Node) + 32;  // a node and its shared_ptr control block

// The bytes of a pickle, taken in order: all in memory, or from a ByteSource a window at a time
// (a mapped file lends its pages, which are handed back as the reading passes them; any other
// source is read into a buffer that holds the bytes not yet taken).
class Cursor {
 public:
  explicit Cursor(std::string_view bytes) : window_(bytes) {}
  // `max_buffer`: the most bytes the buffer may hold at once (0: no limit); past it an
  // InputMemoryError naming `path`.
  Cursor(ByteSource& source, const std::string& path, std::uint64_t max_buffer)
      : source_(&source), path_(&path), max_buffer_(max_buffer) {}

  // The next `n` bytes; fewer only when the input ends first (then all that was left).
  std::string_view take(std::uint64_t n) {
    if (n <= window_.size() - at_) {
      std::string_view out = window_.substr(at_, n);
      at_ += n;
      return out;
    }
    return take_slow(n);
  }
  // Passes `n` bytes without keeping them; false when the input ends first.
  bool skip(std::uint64_t n);
  // Bytes taken so far.
  std::uint64_t offset() const { return before_ + at_; }
  // Bytes held in a buffer of ours now (a window lent by a mapped file is not ours).
  std::uint64_t buffered() const { return buffer_.capacity(); }
  // Reads to the end; returns offset() then.
  std::uint64_t finish();

 private:
  std::string_view take_slow(std::uint64_t n);
  bool fill(std::uint64_t n);  // the window holds n bytes from at_, or all that is left

  std::string_view window_;  // the bytes available: at_ is the next
  std::size_t at_ = 0;
  std::uint64_t before_ = 0;  // bytes taken before window_[0]
  ByteSource* source_ = nullptr;
  const std::string* path_ = nullptr;
  std::uint64_t max_buffer_ = 0;
  std::string buffer_;  // read() sources: the window's bytes
  bool ended_ = false;
};

// A set of memo indices: a bit per index for those near the ones stored so far (a pickler numbers
// its memo from 0), a hash set for the far ones a hand-made file may name.
class IndexSet {
 public:
  // True when `index` was not in the set. `near`: how many indices a pickler would have numbered
  // by now (kept as bits up to twice that).
  bool insert(std::uint64_t index, std::uint64_t near);
  bool contains(std::uint64_t index) const;
  std::uint64_t size() const { return size_; }
  std::uint64_t bytes() const {
    return (bits_.capacity() + ranks_.capacity()) * 8 + (sparse_.size() + sparse_ranks_.size()) * 32;
  }
  // Numbers the indices 0 to size() - 1 (after the last insert): slot() is then an index's number,
  // kNoSlot for one not in the set; so that a memo of the set's indices is a vector, not a hash map.
  static constexpr std::uint64_t kNoSlot = ~std::uint64_t{0};
  void number();
  std::uint64_t slot(std::uint64_t index) const {
    std::uint64_t word = index / 64, bit = std::uint64_t{1} << (index % 64);
    if (word < ranks_.size() && (bits_[word] & bit) != 0)
      return ranks_[word] + static_cast<std::uint64_t>(__builtin_popcountll(bits_[word] & (bit - 1)));
    if (sparse_ranks_.empty()) return kNoSlot;
    auto at = sparse_ranks_.find(index);
    return at == sparse_ranks_.end() ? kNoSlot : at->second;
  }

 private:
  std::vector<std::uint64_t> bits_;
  std::unordered_set<std::uint64_t> sparse_;
  std::uint64_t size_ = 0;
  std::vector<std::uint64_t> ranks_;  // number(): the indices set in the words before each
  std::unordered_map<std::uint64_t, std::uint64_t> sparse_ranks_;
};

// The memo indices a pickle's GET opcodes name, found by reading its opcodes without building
// anything; stops at STOP or at any opcode the machine would refuse (which then refuses it).
IndexSet fetched_indices(Cursor& in, const std::string& path, std::uint64_t max_memory);

class Machine {
 public:
  // `drain`, `fetched`: a streamed reading (pickle.h, Drain), whose memo keeps only the values
  // `fetched` names; nullptr for a whole value.
  Machine(Cursor& in, const std::string& path, const Limits& limits, Drain* drain = nullptr,
          const IndexSet* fetched = nullptr)
      : in_(in), path_(path), limits_(limits), drain_(drain), fetched_(fetched) {}

  Value run();

 private:
  [[noreturn]] void fail(const std::string& why) const;
  [[noreturn]] void over_limit() const;
  void charge(std::uint64_t bytes);
  void check_live();
  std::string_view take(std::uint64_t n);
  std::uint64_t little(std::size_t n);

  void push(Value v);
  Value pop();
  Value& top();
  std::vector<Value> pop_mark();

  Value make_text(std::string_view text, Value::Kind kind);
  Value make_container(Value::Kind kind, std::vector<Value> items = {});
  void place(Node& parent, const Value& child);
  Node& open_container(Value& v, Value::Kind kind);
  void append(Value& target, std::vector<Value> items);
  void set_items(Value& target, std::vector<Value> items);
  void memo_put(std::uint64_t index);
  void memo_get(std::uint64_t index);
  Value read_long(std::uint64_t n);
  void step();

  // The streamed reading (pickle_stream.cpp).
  void resolve(std::size_t position);
  bool drains(const Node& node) const;
  void drain_into(Node& list, std::vector<Value> items);
  void check_placed(const Node& parent, const Value& child, std::string_view key, std::uint64_t index);
  void check_result(const Value& result) const;
  std::uint64_t exclusive_bytes(const Value& v) const;

  Cursor& in_;
  const std::string& path_;
  Limits limits_;
  Drain* drain_;
  const IndexSet* fetched_;
  std::uint64_t op_at_ = 0;
  unsigned char op_ = 0;
  std::uint64_t held_ = 0;
  std::uint64_t pushed_ = 0;  // values pushed so far: the first is the root
  std::vector<Value> stack_;
  std::vector<std::size_t> marks_;
  std::unordered_map<std::uint64_t, Value> memo_;  // a whole value's
  std::vector<Value> kept_;                        // streamed: the memo, by fetched_->slot()
  IndexSet stored_;                                // streamed: every index stored, kept or not
  const Node* root_ = nullptr;                     // streamed: the first value, when a dict
  std::uint64_t drains_resolved_ = 0;              // streamed: lists found draining
  std::uint64_t drains_placed_ = 0;                // ... and placed where they were found
};

// The opcodes that import a global or call one: the way a pickle runs code.
bool imports_or_calls(unsigned char op);

}  // namespace perfgate::pickle::detail
