#include <gtest/gtest.h>

#include <string>

#include "load/kineto/fields.h"

namespace perfgate::kineto {
namespace {

// The keys as Kineto writes them, spelled out here rather than taken from the reader's tables.
TEST(FieldLookup, FindsEveryKeyOfEachObject) {
  EXPECT_EQ(top_level_field("traceEvents"), Field::TraceEvents);
  EXPECT_EQ(top_level_field("deviceProperties"), Field::DeviceProperties);
  EXPECT_EQ(top_level_field("baseTimeNanoseconds"), Field::BaseTimeNanoseconds);
  EXPECT_EQ(event_field("ph"), Field::Ph);
  EXPECT_EQ(event_field("ts"), Field::Ts);
  EXPECT_EQ(event_field("id"), Field::Id);
  EXPECT_EQ(event_field("cat"), Field::Cat);
  EXPECT_EQ(event_field("dur"), Field::Dur);
  EXPECT_EQ(event_field("pid"), Field::Pid);
  EXPECT_EQ(event_field("tid"), Field::Tid);
  EXPECT_EQ(event_field("name"), Field::Name);
  EXPECT_EQ(event_field("args"), Field::Args);
  EXPECT_EQ(args_field("External id"), Field::ExternalId);
  EXPECT_EQ(args_field("external id"), Field::ExternalId);
  EXPECT_EQ(args_field("Input Dims"), Field::InputDims);
  EXPECT_EQ(args_field("Input dims"), Field::InputDims);
  EXPECT_EQ(args_field("Call stack"), Field::CallStack);
  EXPECT_EQ(args_field("Call Stack"), Field::CallStack);
  EXPECT_EQ(args_field("bytes"), Field::Bytes);
  EXPECT_EQ(args_field("Bytes"), Field::Bytes);
  EXPECT_EQ(args_field("registers per thread"), Field::RegistersPerThread);  // 20 bytes
  EXPECT_EQ(args_field("est. achieved occupancy %"), Field::Occupancy);      // 25 bytes
  EXPECT_EQ(args_field("name"), Field::ArgName);
}

TEST(FieldLookup, EveryLabelLooksUpToItsField) {
  for (int f = static_cast<int>(Field::TraceEvents); f <= static_cast<int>(Field::CollectiveName); ++f) {
    auto field = static_cast<Field>(f);
    std::string key = field_label(field);
    Field found = f < static_cast<int>(Field::Ph)           ? top_level_field(key)
                  : f < static_cast<int>(Field::ExternalId) ? event_field(key)
                                                            : args_field(key);
    EXPECT_EQ(found, field) << key;
  }
}

// A key matches only when every byte does: the lookup compares the first and last 8 bytes, and the
// middle of keys longer than 16, so each of those places is changed here.
TEST(FieldLookup, ANearMissIsUnknown) {
  for (const char* key :
       {"",   "p",  "phx", "xph", "Ph",  "na me", "nam",  "namee", "arg",  "argS",  "dUr", "pd",
        "tx", "di", "cap", "pit", "tip", "dut",   "cat ", "Name",  "nome", "args ", "gsra"})
    EXPECT_EQ(event_field(key), Field::Unknown) << key;
  EXPECT_EQ(event_field(std::string_view("na\0e", 4)), Field::Unknown);
  for (const char* key : {"External iD", "Xxternal id", "External_id", "External idx", "registers per threaD",
                          "Registers per thread", "registers pXr thread", "registers per thread ",
                          "est. achieved occupancy", "est. achieved occupanXy %", "ts", "args"})
    EXPECT_EQ(args_field(key), Field::Unknown) << key;
  EXPECT_EQ(top_level_field("traceevents"), Field::Unknown);
  EXPECT_EQ(top_level_field("ph"), Field::Unknown);
  // A key with a NUL byte where a shorter key ends.
  EXPECT_EQ(event_field(std::string_view("ph\0", 3)), Field::Unknown);
  EXPECT_EQ(args_field(std::string_view("bytes\0\0\0", 8)), Field::Unknown);
}

}  // namespace
}  // namespace perfgate::kineto
