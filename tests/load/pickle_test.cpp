// The restricted unpickler (load/snapshot/pickle.h): pickles written by Python's own pickle module
// (the hex below is `pickle.dumps(obj, protocol=N).hex()` of the object in each test's comment) and
// hand-built ones (tests/support/pickle_builder.h) for what Python never writes.
#include <gtest/gtest.h>

#include <string>

#include "common/errors.h"
#include "load/snapshot/pickle.h"
#include "support/pickle_builder.h"

namespace perfgate {
namespace {

using pickle::Value;
using Kind = pickle::Value::Kind;
using test::PickleWriter;

std::string from_hex(std::string_view hex) {
  std::string out;
  for (std::size_t i = 0; i + 1 < hex.size(); i += 2)
    out += static_cast<char>(std::stoi(std::string(hex.substr(i, 2)), nullptr, 16));
  return out;
}

Value load(const std::string& bytes, pickle::Limits limits = {}) {
  return pickle::unpickle(bytes, "snap.pickle", limits);
}

std::string error_of(const std::string& bytes, pickle::Limits limits = {}) {
  try {
    load(bytes, limits);
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

// obj = {'segments': [1, 'two', [3.5, None, True, False]], 'n': -70000, 'big': 2**62, 't': (1,),
//        'shared': [s, s], 'neg1': -1} with s = ['x'], in each protocol Python writes.
constexpr std::string_view kProtocol2 =
    "80027d71002858080000007365676d656e747371015d7102284b01580300000074776f71035d71042847400c0000000000004e88"
    "89"
    "656558010000006e71054a90eefeff580300000062696771068a08000000000000004058010000007471074b0185710858060000"
    "0073686172656471095d710a285d710b580100000078710c61680b6558040000006e656731710d4affffffff752e";
constexpr std::string_view kProtocol4 =
    "8004956f000000000000007d94288c087365676d656e7473945d94284b018c0374776f945d942847400c0000000000004e888965"
    "65"
    "8c016e944a90eefeff8c03626967948a0800000000000000408c0174944b0185948c06736861726564945d94285d948c017894"
    "61680b658c046e656731944affffffff752e";

void expect_example(const Value& v) {
  ASSERT_TRUE(v.is(Kind::Dict));
  ASSERT_EQ(v.entries().size(), 6u);
  const Value* segments = v.find("segments");
  ASSERT_TRUE(segments && segments->is(Kind::List));
  ASSERT_EQ(segments->items().size(), 3u);
  EXPECT_EQ(segments->items()[0].as_int(), 1);
  EXPECT_EQ(segments->items()[1].text(), "two");
  const Value& inner = segments->items()[2];
  ASSERT_EQ(inner.items().size(), 4u);
  EXPECT_EQ(inner.items()[0].as_float(), 3.5);
  EXPECT_TRUE(inner.items()[1].is(Kind::None));
  EXPECT_TRUE(inner.items()[2].is(Kind::Bool) && inner.items()[2].as_bool());
  EXPECT_TRUE(inner.items()[3].is(Kind::Bool) && !inner.items()[3].as_bool());
  EXPECT_EQ(v.find("n")->as_int(), -70000);
  EXPECT_EQ(v.find("big")->as_int(), std::int64_t{1} << 62);
  ASSERT_TRUE(v.find("t")->is(Kind::Tuple));
  EXPECT_EQ(v.find("t")->items()[0].as_int(), 1);
  const Value* shared = v.find("shared");
  ASSERT_EQ(shared->items().size(), 2u);
  EXPECT_EQ(shared->items()[0].shared(), shared->items()[1].shared());  // the memo GET shares, not copies
  EXPECT_EQ(shared->items()[1].items()[0].text(), "x");
  EXPECT_EQ(v.find("neg1")->as_int(), -1);
}

TEST(Unpickler, ReadsWhatPythonWritesInProtocols2To5) {
  expect_example(load(from_hex(kProtocol2)));
  std::string p3 = from_hex(kProtocol2);
  p3[1] = 3;  // Python writes the same bytes in protocol 3 for this object
  expect_example(load(p3));
  expect_example(load(from_hex(kProtocol4)));
  std::string p5 = from_hex(kProtocol4);
  p5[1] = 5;
  expect_example(load(p5));
}

TEST(Unpickler, IntegersOfEveryWidth) {
  // LONG1 as Python writes 2**40, -2**40, 2**63-1, -2**63, and BININT -129, BININT2 65535.
  const std::pair<std::string_view, std::int64_t> cases[] = {
      {"80028a060000000000012e", std::int64_t{1} << 40},
      {"80028a060000000000ff2e", -(std::int64_t{1} << 40)},
      {"80028a08ffffffffffffff7f2e", INT64_MAX},
      {"80028a0800000000000000802e", INT64_MIN},
      {"80024a7fffffff2e", -129},
      {"80024dffff2e", 65535}};
  for (auto [hex, expected] : cases) EXPECT_EQ(load(from_hex(hex)).as_int(), expected) << hex;
  EXPECT_EQ(load(PickleWriter(4).op(0x8b).little(0, 4).stop().text()).as_int(), 0);  // LONG4 of no bytes
}

TEST(Unpickler, RefusesEveryOpcodeThatImportsOrCalls) {
  // GLOBAL, STACK_GLOBAL, REDUCE, BUILD, INST, OBJ, NEWOBJ, NEWOBJ_EX, EXT1, EXT2, EXT4, PERSID, BINPERSID.
  const std::pair<unsigned char, std::string_view> refused[] = {
      {'c', "GLOBAL"}, {0x93, "STACK_GLOBAL"}, {'R', "REDUCE"},     {'b', "BUILD"}, {'i', "INST"},
      {'o', "OBJ"},    {0x81, "NEWOBJ"},       {0x92, "NEWOBJ_EX"}, {0x82, "EXT1"}, {0x83, "EXT2"},
      {0x84, "EXT4"},  {'P', "PERSID"},        {'Q', "BINPERSID"}};
  for (auto [code, name] : refused) {
    std::string message = error_of(PickleWriter(4).none().op(code).stop().text());
    EXPECT_NE(message.find("snap.pickle"), std::string::npos) << message;
    EXPECT_NE(message.find("opcode " + std::string(name) + " would import or call"), std::string::npos)
        << message;
  }
  // Protocol 2 writes a bytes object as a call to _codecs.encode: refused at its GLOBAL.
  std::string with_bytes = from_hex(
      "80027d710058080000007365676d656e747371015d7102635f636f646563730a656e636f64650a710358010000000071045806"
      "0000"
      "006c6174696e31710586710652710761732e");
  EXPECT_NE(error_of(with_bytes).find("opcode GLOBAL"), std::string::npos);
}

TEST(Unpickler, RefusesWhatIsNotPlainData) {
  EXPECT_NE(error_of(PickleWriter(4).op(0x97).stop().text()).find("NEXT_BUFFER"), std::string::npos);
  EXPECT_NE(error_of(PickleWriter(4).raw("I1\n").stop().text()).find("opcode INT"), std::string::npos);
  EXPECT_NE(error_of(std::string("\x80\x06N.", 4)).find("protocol 6"), std::string::npos);
  EXPECT_NE(error_of(PickleWriter(4).op(0x8a).little(9, 1).raw(std::string(9, '\1')).stop().text())
                .find("past 64 bits"),
            std::string::npos);
}

TEST(Unpickler, TruncatedFilesAndHugeLengthsAreInputErrors) {
  std::string whole = from_hex(kProtocol4);
  for (std::size_t cut : {std::size_t{1}, std::size_t{12}, std::size_t{40}, whole.size() - 1})
    EXPECT_NE(error_of(whole.substr(0, cut)).find("truncated"), std::string::npos) << cut;
  // BINUNICODE8 and BINBYTES8 of length 2^62: the file has 2 bytes left.
  for (unsigned char code : {0x8d, 0x8e}) {
    std::string message =
        error_of(PickleWriter(4).op(code).little(std::uint64_t{1} << 62, 8).raw("ab").stop().text());
    EXPECT_NE(message.find("needs 4611686018427387904 bytes, the file has 3 left"), std::string::npos)
        << message;
  }
}

TEST(Unpickler, MemoLoopsAreRefused) {
  // l = []; l.append(l): EMPTY_LIST MEMOIZE BINGET 0 APPEND STOP.
  std::string self = PickleWriter(4).empty_list().op('h').little(0, 1).op('a').stop().text();
  EXPECT_NE(error_of(self).find("memo loop"), std::string::npos);
  // a = []; b = [a]; a.append(b): b is placed in a after a was placed in b.
  std::string pair = PickleWriter(4)
                         .empty_list()  // a (memo 0)
                         .empty_list()  // b (memo 1)
                         .op('h')
                         .little(0, 1)
                         .op('a')  // b.append(a): a is sealed
                         .op('h')
                         .little(0, 1)
                         .op('h')
                         .little(1, 1)
                         .op('a')  // a.append(b)
                         .op('0')
                         .stop()
                         .text();
  EXPECT_NE(error_of(pair).find("already placed"), std::string::npos);
  EXPECT_NE(
      error_of(PickleWriter(4).op('h').little(7, 1).stop().text()).find("memo index 7 was never stored"),
      std::string::npos);
}

TEST(Unpickler, NestingAndMemoryAreBounded) {
  PickleWriter deep(4);
  for (int i = 0; i < 200; ++i) deep.op(']');
  for (int i = 0; i < 199; ++i) deep.op('a');
  deep.stop();
  EXPECT_NE(error_of(deep.text(), {0, 128}).find("deeper than 128"), std::string::npos);
  EXPECT_NO_THROW(load(deep.text(), {0, 256}));
  // A 1 MiB string shared a thousand times costs one string: the memo shares it.
  PickleWriter shared(4);
  shared.op(']').memoize().mark().op('X').little(1 << 20, 4).raw(std::string(1 << 20, 'a')).memoize();
  for (int i = 0; i < 1000; ++i) shared.op('h').little(1, 1);
  shared.appends().stop();
  EXPECT_EQ(load(shared.text(), {std::uint64_t{4} << 20, 128}).items().size(), 1001u);
  EXPECT_NE(error_of(shared.text(), {std::uint64_t{1} << 20, 128}).find("input memory limit"),
            std::string::npos);
}

}  // namespace
}  // namespace perfgate
