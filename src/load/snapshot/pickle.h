// A restricted unpickler: Python's pickle format (protocols 2 to 5) read as plain data only. A
// PyTorch memory snapshot (torch.cuda.memory._dump_snapshot) is a pickle of dicts, lists, tuples,
// strings, integers, floats, booleans and None; every opcode that would import or call a Python
// object (GLOBAL, STACK_GLOBAL, REDUCE, BUILD, INST, OBJ, NEWOBJ, NEWOBJ_EX, EXT1/2/4, PERSID,
// BINPERSID) is refused with an InputError naming the file and the opcode, so that nothing in a
// file is ever executed (docs/formats.md, "PyTorch memory snapshots").
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace perfgate {
class ByteSource;
}

namespace perfgate::pickle {

struct Node;

// One value. Containers and strings live in shared nodes: a memo GET shares what it names (a
// snapshot shares its frame lists), so a small file cannot make a large tree.
class Value {
 public:
  enum class Kind : unsigned char { None, Bool, Int, Float, Str, Bytes, List, Tuple, Dict };

  Value() = default;
  static Value boolean(bool b);
  static Value integer(std::int64_t i);
  static Value real(double d);
  static Value node(std::shared_ptr<Node> node, Kind kind);

  Kind kind() const { return kind_; }
  bool is(Kind k) const { return kind_ == k; }
  bool as_bool() const { return integer_ != 0; }
  std::int64_t as_int() const { return integer_; }
  double as_float() const { return real_; }
  // The text of a Str or Bytes; empty for every other kind.
  std::string_view text() const;
  // The items of a List or Tuple; empty for every other kind.
  const std::vector<Value>& items() const;
  // The entries of a Dict, in the order written; empty for every other kind.
  const std::vector<std::pair<Value, Value>>& entries() const;
  // The value under the string key `key` of a Dict; nullptr when absent or not a Dict.
  const Value* find(std::string_view key) const;
  const std::shared_ptr<Node>& shared() const { return node_; }

 private:
  Kind kind_ = Kind::None;
  std::int64_t integer_ = 0;
  double real_ = 0;
  std::shared_ptr<Node> node_;
};

struct Node {
  std::string text;                              // Str, Bytes
  std::vector<Value> items;                      // List, Tuple
  std::vector<std::pair<Value, Value>> entries;  // Dict
  std::uint32_t depth = 1;                       // containers nested in it, itself included
  bool sealed = false;                           // placed in another container: no longer changed
  // A streamed reading (Drain): where the container sits, once the machine has looked.
  bool resolved = false;         // role and tag known
  bool memo_kept = false;        // the memo holds it for a later GET
  bool in_place = false;         // a draining list placed where it was found
  bool keyed = false;            // a draining list found under a key of a dict (else at an index of a list)
  std::uint8_t role = 0;         // 0: an ordinary value; kRootRole; else the Drain's
  std::uint64_t tag = 0;         // a draining list's index in its parent list
  std::uint64_t placed = 0;      // a draining list: the items handed over so far
  const Node* parent = nullptr;  // a draining list: the container it was found in
};

// The first value of a streamed pickle, when a dict.
constexpr std::uint8_t kRootRole = 1;

// A streamed reading: the reader tells the unpickler which lists it drains, and takes their items
// one at a time as each is placed, instead of the list keeping them; the list stays, empty. A list
// is found where it sits from the values below it on the unpickler's stack (its key in a dict, its
// index in a list), the way Python's pickler writes them, and must then be placed there: a
// draining list placed elsewhere, twice, never, or fetched from the memo is an InputError.
class Drain {
 public:
  virtual ~Drain() = default;
  // The role of a list found in a container of role `parent`: under `key` of a dict (`keyed`) or
  // as item `index` of a list. Above kRootRole: the list drains; 0: it keeps its items.
  virtual std::uint8_t role_of(std::uint8_t parent, bool keyed, std::string_view key,
                               std::uint64_t index) = 0;
  // `item`, the `index`th placed into a draining list of `role` (that list's own index: `tag`).
  virtual void take(std::uint8_t role, std::uint64_t tag, std::uint64_t index, const Value& item) = 0;
  // The bytes of what it keeps of the items taken, counted with the values against the limit: an
  // item placed N times through the memo (its GETs cost a few bytes each) is kept N times.
  virtual std::uint64_t kept_bytes() const { return 0; }
};

struct Limits {
  std::uint64_t max_memory = 0;   // bytes the values may hold (0: no limit); --max-input-memory
  std::uint32_t max_depth = 128;  // containers nested in one another
};

// The value of the pickle in `bytes` (up to its STOP opcode). Throws InputError naming `path`:
// a refused or unknown opcode, a truncated file, a memo index never stored, a container placed in
// itself, an integer past 64 bits, nesting past `limits.max_depth`, values past `limits.max_memory`.
Value unpickle(std::string_view bytes, const std::string& path, const Limits& limits);

// The value of the pickle `open()` gives, read twice as a stream: first for the memo indices its
// GETs name, then into values, the lists `drain` drains handed over item by item. The memo keeps
// only what a GET names, and the limit counts the values alive at once (the stack, the memo's,
// one item being built), not the file: the same errors as unpickle() otherwise.
Value unpickle_stream(const std::function<std::unique_ptr<ByteSource>()>& open, const std::string& path,
                      const Limits& limits, Drain& drain, std::uint64_t* bytes_read = nullptr);

// The name of opcode `op` as Python's pickletools names it ("GLOBAL"), "?" when it has none.
const char* opcode_name(unsigned char op);

}  // namespace perfgate::pickle
