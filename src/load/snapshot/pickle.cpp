// The restricted unpickler (pickle.h): a stack machine over the opcodes of protocols 2 to 5 that
// build plain data, following CPython's Lib/pickle.py (the _Unpickler's load_* methods) for what
// each opcode does; every opcode that imports or calls is refused before anything else happens.
#include "load/snapshot/pickle.h"

#include <bit>
#include <cstring>
#include <unordered_map>

#include "common/errors.h"
#include "load/snapshot/pickle_machine.h"

namespace perfgate::pickle {

Value Value::boolean(bool b) {
  Value v;
  v.kind_ = Kind::Bool;
  v.integer_ = b ? 1 : 0;
  return v;
}
Value Value::integer(std::int64_t i) {
  Value v;
  v.kind_ = Kind::Int;
  v.integer_ = i;
  return v;
}
Value Value::real(double d) {
  Value v;
  v.kind_ = Kind::Float;
  v.real_ = d;
  return v;
}
Value Value::node(std::shared_ptr<Node> node, Kind kind) {
  Value v;
  v.kind_ = kind;
  v.node_ = std::move(node);
  return v;
}

std::string_view Value::text() const {
  return (kind_ == Kind::Str || kind_ == Kind::Bytes) ? std::string_view(node_->text) : std::string_view();
}
const std::vector<Value>& Value::items() const {
  static const std::vector<Value> kNone;
  return (kind_ == Kind::List || kind_ == Kind::Tuple) ? node_->items : kNone;
}
const std::vector<std::pair<Value, Value>>& Value::entries() const {
  static const std::vector<std::pair<Value, Value>> kNone;
  return kind_ == Kind::Dict ? node_->entries : kNone;
}
const Value* Value::find(std::string_view key) const {
  for (const auto& [k, v] : entries())
    if (k.is(Kind::Str) && k.text() == key) return &v;
  return nullptr;
}

namespace {

struct Opcode {
  unsigned char code;
  const char* name;
};
// Every opcode of protocols 0 to 5 (Lib/pickletools.py), for the messages.
constexpr Opcode kOpcodes[] = {
    {'(', "MARK"},
    {'.', "STOP"},
    {'0', "POP"},
    {'1', "POP_MARK"},
    {'2', "DUP"},
    {'F', "FLOAT"},
    {'I', "INT"},
    {'J', "BININT"},
    {'K', "BININT1"},
    {'L', "LONG"},
    {'M', "BININT2"},
    {'N', "NONE"},
    {'P', "PERSID"},
    {'Q', "BINPERSID"},
    {'R', "REDUCE"},
    {'S', "STRING"},
    {'T', "BINSTRING"},
    {'U', "SHORT_BINSTRING"},
    {'V', "UNICODE"},
    {'X', "BINUNICODE"},
    {'a', "APPEND"},
    {'b', "BUILD"},
    {'c', "GLOBAL"},
    {'d', "DICT"},
    {'}', "EMPTY_DICT"},
    {'e', "APPENDS"},
    {'g', "GET"},
    {'h', "BINGET"},
    {'i', "INST"},
    {'j', "LONG_BINGET"},
    {'l', "LIST"},
    {']', "EMPTY_LIST"},
    {'o', "OBJ"},
    {'p', "PUT"},
    {'q', "BINPUT"},
    {'r', "LONG_BINPUT"},
    {'s', "SETITEM"},
    {'t', "TUPLE"},
    {')', "EMPTY_TUPLE"},
    {'u', "SETITEMS"},
    {'G', "BINFLOAT"},
    {0x80, "PROTO"},
    {0x81, "NEWOBJ"},
    {0x82, "EXT1"},
    {0x83, "EXT2"},
    {0x84, "EXT4"},
    {0x85, "TUPLE1"},
    {0x86, "TUPLE2"},
    {0x87, "TUPLE3"},
    {0x88, "NEWTRUE"},
    {0x89, "NEWFALSE"},
    {0x8a, "LONG1"},
    {0x8b, "LONG4"},
    {'B', "BINBYTES"},
    {'C', "SHORT_BINBYTES"},
    {0x8c, "SHORT_BINUNICODE"},
    {0x8d, "BINUNICODE8"},
    {0x8e, "BINBYTES8"},
    {0x8f, "EMPTY_SET"},
    {0x90, "ADDITEMS"},
    {0x91, "FROZENSET"},
    {0x92, "NEWOBJ_EX"},
    {0x93, "STACK_GLOBAL"},
    {0x94, "MEMOIZE"},
    {0x95, "FRAME"},
    {0x96, "BYTEARRAY8"},
    {0x97, "NEXT_BUFFER"},
    {0x98, "READONLY_BUFFER"},
};

}  // namespace

namespace detail {

// The opcodes that import a global or call one: the way a pickle runs code.
bool imports_or_calls(unsigned char op) {
  switch (op) {
    case 'c':
    case 0x93:
    case 'R':
    case 'b':
    case 'i':
    case 'o':
    case 0x81:
    case 0x92:
    case 0x82:
    case 0x83:
    case 0x84:
    case 'P':
    case 'Q':
      return true;
    default:
      return false;
  }
}

Value Machine::run() {
  while (true) {
    op_at_ = in_.offset();
    std::string_view op = in_.take(1);
    if (op.empty()) fail("the file ends before the pickle's STOP opcode (truncated)");
    op_ = static_cast<unsigned char>(op[0]);
    if (imports_or_calls(op_))
      fail(std::string("opcode ") + opcode_name(op_) +
           " would import or call a Python object; a memory snapshot is plain data, and perfgate "
           "never imports or runs anything from a file");
    if (op_ == '.') break;
    step();
  }
  if (stack_.size() != 1 || !marks_.empty()) fail("the STOP opcode does not leave exactly one value");
  if (drain_) check_result(stack_.back());
  return std::move(stack_.back());
}

void Machine::fail(const std::string& why) const {
  throw InputError(path_ + ": not a readable pickle at byte " + std::to_string(op_at_) + ": " + why);
}

void Machine::over_limit() const {
  throw InputError(path_ + ": the pickle's values pass the input memory limit of " +
                   std::to_string(limits_.max_memory) +
                   " bytes (--max-input-memory or PERFGATE_MAX_INPUT_MEMORY raises it)");
}
void Machine::charge(std::uint64_t bytes) {
  if (__builtin_add_overflow(held_, bytes, &held_)) over_limit();
  if (drain_)
    check_live();
  else if (limits_.max_memory != 0 && held_ > limits_.max_memory)
    over_limit();
}

std::string_view Machine::take(std::uint64_t n) {
  std::string_view out = in_.take(n);
  if (out.size() < n)
    fail("opcode " + std::string(opcode_name(op_)) + " needs " + std::to_string(n) + " bytes, the file has " +
         std::to_string(out.size()) + " left (truncated)");
  return out;
}
std::uint64_t Machine::little(std::size_t n) {  // an unsigned little-endian integer of n <= 8 bytes
  std::string_view b = take(n);
  std::uint64_t v = 0;
  for (std::size_t i = n; i-- > 0;) v = (v << 8) | static_cast<unsigned char>(b[i]);
  return v;
}

void Machine::push(Value v) {
  if (drain_)
    check_live();  // streamed: the stack counts as it is now, not as every value ever pushed
  else
    charge(sizeof(Value));
  ++pushed_;
  stack_.push_back(std::move(v));
}
Value Machine::pop() {
  std::size_t floor = marks_.empty() ? 0 : marks_.back();
  if (stack_.size() <= floor)
    fail(std::string("opcode ") + opcode_name(op_) + " finds no value on the stack");
  Value v = std::move(stack_.back());
  stack_.pop_back();
  return v;
}
Value& Machine::top() {
  std::size_t floor = marks_.empty() ? 0 : marks_.back();
  if (stack_.size() <= floor)
    fail(std::string("opcode ") + opcode_name(op_) + " finds no value on the stack");
  return stack_.back();
}
// The values above the last MARK, which is removed.
std::vector<Value> Machine::pop_mark() {
  if (marks_.empty()) fail(std::string("opcode ") + opcode_name(op_) + " finds no MARK");
  std::size_t from = marks_.back();
  marks_.pop_back();
  std::vector<Value> out(std::make_move_iterator(stack_.begin() + static_cast<std::ptrdiff_t>(from)),
                         std::make_move_iterator(stack_.end()));
  stack_.resize(from);
  return out;
}

Value Machine::make_text(std::string_view text, Value::Kind kind) {
  charge(kNodeBytes + text.size());
  auto node = std::make_shared<Node>();
  node->text.assign(text);
  return Value::node(std::move(node), kind);
}
Value Machine::make_container(Value::Kind kind, std::vector<Value> items) {
  charge(kNodeBytes);
  auto node = std::make_shared<Node>();
  Value v = Value::node(node, kind);
  if (drain_ && pushed_ == 0 && kind == Value::Kind::Dict) {  // the snapshot's own dict
    node->role = kRootRole;
    node->resolved = true;
    root_ = node.get();
  }
  for (Value& item : items) {
    if (drain_) check_placed(*node, item, {}, 0);
    place(*node, item);
  }
  node->items = std::move(items);
  return v;
}

// `child` goes into `parent`: a container once placed is sealed (no opcode may change it), which
// with the check that nothing goes into itself keeps the values a tree (or a DAG of shared,
// finished parts): no memo loop.
void Machine::place(Node& parent, const Value& child) {
  charge(sizeof(Value));
  const std::shared_ptr<Node>& n = child.shared();
  if (!n || child.is(Value::Kind::Str) || child.is(Value::Kind::Bytes)) return;
  if (n.get() == &parent) fail("a container is placed inside itself (a memo loop)");
  n->sealed = true;
  if (n->depth + 1 > limits_.max_depth)
    fail("containers nest deeper than " + std::to_string(limits_.max_depth) + " levels");
  if (n->depth + 1 > parent.depth) parent.depth = n->depth + 1;
}
Node& Machine::open_container(Value& v, Value::Kind kind) {
  if (!v.is(kind))
    fail(std::string("opcode ") + opcode_name(op_) + " adds to a value that is not a " +
         (kind == Value::Kind::Dict ? "dict" : "list"));
  Node& node = *v.shared();
  if (node.sealed)
    fail(std::string("opcode ") + opcode_name(op_) + " changes a container already placed in another");
  return node;
}
void Machine::append(Value& target, std::vector<Value> items) {
  Node& node = open_container(target, Value::Kind::List);
  if (drain_) {
    resolve(stack_.size() - 1);  // the target is the top of the stack
    if (drains(node)) return drain_into(node, std::move(items));
  }
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (drain_) check_placed(node, items[i], {}, node.items.size());
    place(node, items[i]);
    node.items.push_back(std::move(items[i]));
  }
}
void Machine::set_items(Value& target, std::vector<Value> items) {
  if (items.size() % 2 != 0) fail("SETITEMS has a key without its value");
  Node& node = open_container(target, Value::Kind::Dict);
  for (std::size_t i = 0; i < items.size(); i += 2) {
    if (drain_) {
      check_placed(node, items[i], {}, 0);
      check_placed(node, items[i + 1], items[i].text(), 0);
    }
    place(node, items[i]);
    place(node, items[i + 1]);
    charge(sizeof(Value));
    node.entries.emplace_back(std::move(items[i]), std::move(items[i + 1]));
  }
}

void Machine::memo_put(std::uint64_t index) {
  if (drain_) {
    // Streamed: every index is counted (MEMOIZE numbers by the memo's size), only those a GET names kept.
    stored_.insert(index, stored_.size());
    if (kept_.size() != fetched_->size()) kept_.resize(fetched_->size());
    check_live();
    std::uint64_t slot = fetched_->slot(index);
    if (slot == IndexSet::kNoSlot) return;
    if (const std::shared_ptr<Node>& n = top().shared()) {
      if (drains(*n)) fail("a list the snapshot's reading drains is also shared through the memo");
      n->memo_kept = true;
    }
    charge(sizeof(Value) + 32);
    kept_[slot] = top();
    return;
  }
  charge(sizeof(Value) + 32);
  memo_[index] = top();
}
void Machine::memo_get(std::uint64_t index) {
  if (drain_) {
    std::uint64_t slot = fetched_->slot(index);
    if (!stored_.contains(index) || slot == IndexSet::kNoSlot || slot >= kept_.size())
      fail("memo index " + std::to_string(index) + " was never stored");
    return push(kept_[slot]);
  }
  auto at = memo_.find(index);
  if (at == memo_.end()) fail("memo index " + std::to_string(index) + " was never stored");
  push(at->second);
}

Value Machine::read_long(std::uint64_t n) {
  if (n > 8) fail("an integer of " + std::to_string(n) + " bytes is past 64 bits");
  if (n == 0) return Value::integer(0);
  std::uint64_t u = little(static_cast<std::size_t>(n));
  if (n < 8 && (u >> (8 * n - 1)) != 0) u |= ~std::uint64_t{0} << (8 * n);  // sign-extend
  return Value::integer(static_cast<std::int64_t>(u));
}

void Machine::step() {
  using K = Value::Kind;
  switch (op_) {
    case 0x80: {  // PROTO
      std::uint64_t protocol = little(1);
      if (protocol < 2 || protocol > 5)
        fail("pickle protocol " + std::to_string(protocol) + " is not read (2 to 5 are)");
      return;
    }
    case 0x95:
      little(8);
      return;  // FRAME: a length hint only
    case '(':
      marks_.push_back(stack_.size());
      return;
    case '0':
      pop();
      return;
    case '1':
      pop_mark();
      return;
    case '2':
      push(top());
      return;
    case 'N':
      push(Value());
      return;
    case 0x88:
      push(Value::boolean(true));
      return;
    case 0x89:
      push(Value::boolean(false));
      return;
    case 'J':
      push(Value::integer(static_cast<std::int32_t>(static_cast<std::uint32_t>(little(4)))));
      return;
    case 'K':
      push(Value::integer(static_cast<std::int64_t>(little(1))));
      return;
    case 'M':
      push(Value::integer(static_cast<std::int64_t>(little(2))));
      return;
    case 0x8a:
      push(read_long(little(1)));
      return;
    case 0x8b:
      push(read_long(little(4)));
      return;
    case 'G': {
      std::string_view b = take(8);
      std::uint64_t u = 0;
      for (char c : b) u = (u << 8) | static_cast<unsigned char>(c);  // big-endian
      push(Value::real(std::bit_cast<double>(u)));
      return;
    }
    case 0x8c:
      push(make_text(take(little(1)), K::Str));
      return;
    case 'X':
      push(make_text(take(little(4)), K::Str));
      return;
    case 0x8d:
      push(make_text(take(little(8)), K::Str));
      return;
    case 'U':
      push(make_text(take(little(1)), K::Str));
      return;
    case 'T':
      push(make_text(take(little(4)), K::Str));
      return;
    case 'C':
      push(make_text(take(little(1)), K::Bytes));
      return;
    case 'B':
      push(make_text(take(little(4)), K::Bytes));
      return;
    case 0x8e:
    case 0x96:
      push(make_text(take(little(8)), K::Bytes));
      return;
    case ']':
    case 0x8f:
      push(make_container(K::List));
      return;
    case 'l':
    case 0x91:
      push(make_container(K::List, pop_mark()));
      return;
    case ')':
      push(make_container(K::Tuple));
      return;
    case 't':
      push(make_container(K::Tuple, pop_mark()));
      return;
    case 0x85:
    case 0x86:
    case 0x87: {
      std::vector<Value> items(static_cast<std::size_t>(op_ - 0x84));
      for (std::size_t i = items.size(); i-- > 0;) items[i] = pop();
      push(make_container(K::Tuple, std::move(items)));
      return;
    }
    case '}':
      push(make_container(K::Dict));
      return;
    case 'd': {
      std::vector<Value> items = pop_mark();
      Value dict = make_container(K::Dict);
      set_items(dict, std::move(items));
      push(std::move(dict));
      return;
    }
    case 'a': {
      Value item = pop();
      std::vector<Value> one;
      one.push_back(std::move(item));
      append(top(), std::move(one));
      return;
    }
    case 'e':
    case 0x90: {
      std::vector<Value> items = pop_mark();
      append(top(), std::move(items));
      return;
    }
    case 's': {
      std::vector<Value> pair(2);
      pair[1] = pop();
      pair[0] = pop();
      set_items(top(), std::move(pair));
      return;
    }
    case 'u': {
      std::vector<Value> items = pop_mark();
      set_items(top(), std::move(items));
      return;
    }
    case 'q':
      memo_put(little(1));
      return;
    case 'r':
      memo_put(little(4));
      return;
    case 0x94:
      memo_put(drain_ ? stored_.size() : memo_.size());
      return;
    case 'h':
      memo_get(little(1));
      return;
    case 'j':
      memo_get(little(4));
      return;
    default:
      fail(std::string("opcode ") + opcode_name(op_) + " (0x" + "0123456789abcdef"[op_ >> 4] +
           "0123456789abcdef"[op_ & 15] + ") is not one a memory snapshot uses; perfgate does not read it");
  }
}

}  // namespace detail

const char* opcode_name(unsigned char op) {
  for (const Opcode& o : kOpcodes)
    if (o.code == op) return o.name;
  return "?";
}

Value unpickle(std::string_view bytes, const std::string& path, const Limits& limits) {
  detail::Cursor in(bytes);
  return detail::Machine(in, path, limits).run();
}

}  // namespace perfgate::pickle
