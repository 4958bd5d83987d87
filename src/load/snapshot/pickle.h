// A restricted unpickler: Python's pickle format (protocols 2 to 5) read as plain data only. A
// PyTorch memory snapshot (torch.cuda.memory._dump_snapshot) is a pickle of dicts, lists, tuples,
// strings, integers, floats, booleans and None; every opcode that would import or call a Python
// object (GLOBAL, STACK_GLOBAL, REDUCE, BUILD, INST, OBJ, NEWOBJ, NEWOBJ_EX, EXT1/2/4, PERSID,
// BINPERSID) is refused with an InputError naming the file and the opcode, so that nothing in a
// file is ever executed (docs/formats.md, "PyTorch memory snapshots").
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

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
};

struct Limits {
  std::uint64_t max_memory = 0;   // bytes the values may hold (0: no limit); --max-input-memory
  std::uint32_t max_depth = 128;  // containers nested in one another
};

// The value of the pickle in `bytes` (up to its STOP opcode). Throws InputError naming `path`:
// a refused or unknown opcode, a truncated file, a memo index never stored, a container placed in
// itself, an integer past 64 bits, nesting past `limits.max_depth`, values past `limits.max_memory`.
Value unpickle(std::string_view bytes, const std::string& path, const Limits& limits);

// The name of opcode `op` as Python's pickletools names it ("GLOBAL"), "?" when it has none.
const char* opcode_name(unsigned char op);

}  // namespace perfgate::pickle
