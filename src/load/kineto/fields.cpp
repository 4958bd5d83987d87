#include "load/kineto/fields.h"

#include <array>
#include <utility>

namespace perfgate::kineto {
namespace {

template <std::size_t N>
Field lookup(const std::array<std::pair<std::string_view, Field>, N>& table, std::string_view key) {
  for (const auto& [name, field] : table)
    if (name == key) return field;
  return Field::Unknown;
}

constexpr std::array<std::pair<std::string_view, Field>, 6> kTopLevel = {{
    {"traceEvents", Field::TraceEvents},
    {"deviceProperties", Field::DeviceProperties},
    {"distributedInfo", Field::DistributedInfo},
    {"schemaVersion", Field::SchemaVersion},
    {"baseTimeNanoseconds", Field::BaseTimeNanoseconds},
    {"traceName", Field::TraceName},
}};

constexpr std::array<std::pair<std::string_view, Field>, 9> kEvent = {{
    {"ph", Field::Ph},
    {"cat", Field::Cat},
    {"name", Field::Name},
    {"pid", Field::Pid},
    {"tid", Field::Tid},
    {"ts", Field::Ts},
    {"dur", Field::Dur},
    {"id", Field::Id},
    {"args", Field::Args},
}};

constexpr std::array<std::pair<std::string_view, Field>, 30> kArgs = {{
    {"External id", Field::ExternalId},
    {"external id", Field::ExternalId},
    {"correlation", Field::Correlation},
    {"device", Field::Device},
    {"stream", Field::Stream},
    {"grid", Field::Grid},
    {"block", Field::Block},
    {"registers per thread", Field::RegistersPerThread},
    {"shared memory", Field::SharedMemory},
    {"blocks per SM", Field::BlocksPerSm},
    {"est. achieved occupancy %", Field::Occupancy},
    {"bytes", Field::Bytes},
    {"Input Dims", Field::InputDims},
    {"Input dims", Field::InputDims},
    {"Input type", Field::InputTypes},
    {"Call stack", Field::CallStack},
    {"Sequence number", Field::SequenceNumber},
    {"name", Field::ArgName},
    {"Device Type", Field::MemoryDeviceType},
    {"Device Id", Field::MemoryDeviceId},
    {"Total Allocated", Field::TotalAllocated},
    {"Concrete Inputs", Field::ConcreteInputs},
    {"flops", Field::Flops},
    {"In msg nelems", Field::InElements},
    {"Out msg nelems", Field::OutElements},
    {"Group size", Field::GroupSize},
    {"dtype", Field::Dtype},
    {"Collective name", Field::CollectiveName},
    {"Input Types", Field::InputTypes},
    {"Call Stack", Field::CallStack},
}};

}  // namespace

Field top_level_field(std::string_view key) {
  return lookup(kTopLevel, key);
}
Field event_field(std::string_view key) {
  return lookup(kEvent, key);
}
Field args_field(std::string_view key) {
  return lookup(kArgs, key);
}

const char* field_label(Field field) {
  for (const auto& [name, f] : kTopLevel)
    if (f == field) return name.data();
  for (const auto& [name, f] : kEvent)
    if (f == field) return name.data();
  for (const auto& [name, f] : kArgs)
    if (f == field) return name.data();
  return "?";
}

}  // namespace perfgate::kineto
