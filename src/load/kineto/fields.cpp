#include "load/kineto/fields.h"

#include <array>
#include <utility>
#include <vector>

namespace perfgate::kineto {
namespace {

// Keys are looked up for every value of every event: buckets by length and first character
// leave one or two comparisons instead of a scan of the whole list.
template <std::size_t N>
class FieldIndex {
 public:
  explicit FieldIndex(const std::array<std::pair<std::string_view, Field>, N>& table) {
    for (const auto& entry : table) buckets_[bucket(entry.first)].push_back(entry);
  }
  Field operator()(std::string_view key) const {
    for (const auto& [name, field] : buckets_[bucket(key)])
      if (name == key) return field;
    return Field::Unknown;
  }

 private:
  static std::size_t bucket(std::string_view key) {
    if (key.empty()) return 0;
    return ((key.size() & 31) * 8 + (static_cast<unsigned char>(key[0]) & 7)) % kBuckets;
  }
  static constexpr std::size_t kBuckets = 256;
  std::array<std::vector<std::pair<std::string_view, Field>>, kBuckets> buckets_;
};

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

constexpr std::array<std::pair<std::string_view, Field>, 32> kArgs = {{
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
    {"Total Reserved", Field::TotalReserved},
    {"Bytes", Field::Bytes},  // of [memory] events: + allocated, - freed
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
  static const FieldIndex index(kTopLevel);
  return index(key);
}
Field event_field(std::string_view key) {
  static const FieldIndex index(kEvent);
  return index(key);
}
Field args_field(std::string_view key) {
  static const FieldIndex index(kArgs);
  return index(key);
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
