// The JSON keys perfgate reads, by the object they appear in. Both spellings of the keys that
// changed between PyTorch versions map to one field ("External id"/"external id", "Input Dims"/"Input dims").
#pragma once

#include <array>
#include <bit>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <type_traits>
#include <utility>

namespace perfgate::kineto {

enum class Field : unsigned char {
  Unknown,
  // top-level object
  TraceEvents,
  DeviceProperties,
  DistributedInfo,
  SchemaVersion,
  BaseTimeNanoseconds,
  TraceName,
  // event object
  Ph,
  Cat,
  Name,
  Pid,
  Tid,
  Ts,
  Dur,
  Id,
  Args,
  // args object
  ExternalId,
  Correlation,
  Device,
  Stream,
  Grid,
  Block,
  RegistersPerThread,
  SharedMemory,
  BlocksPerSm,
  Occupancy,
  Bytes,
  InputDims,
  InputTypes,
  CallStack,
  SequenceNumber,
  ArgName,
  MemoryDeviceType,
  MemoryDeviceId,
  TotalAllocated,
  TotalReserved,
  ConcreteInputs,
  Flops,
  InElements,
  OutElements,
  GroupSize,
  Dtype,
  CollectiveName,
  ProcessGroupName,
  LaunchedKernel,
  WaitOnStream,
  WaitOnEventRecord,
  DmaDirection,  // of MTIA's dma_request events (mtia_ccp_events): "HOST_TO_DEVICE"
  DmaSize,       // of MTIA's dma_request events: the bytes moved
  // Not keys: what a value means where no key names it (TraceHandler's pending value).
  TopLevelOther,    // a top-level key perfgate does not read: its scalar is kept as an attribute
  EventsArrayItem,  // an entry of traceEvents: must be an object
  IntArrayItem,     // an entry of args.grid or args.block
  Captured,         // inside a value kept as text (shapes, types, device properties)
  Document,         // the document itself: must be an object or an array
};

namespace fields_detail {

// Keys are looked up for every value of every event (956,000 keys in the 35 MB ResNet-50 trace), so a
// lookup hashes and compares two words that cover the key (its first and last 8, 4, 2 or 1 bytes,
// overlapping where the key is shorter than 16) instead of calling memcmp. Only keys longer than 16
// bytes compare their middle as well.
template <typename Word>
constexpr std::uint64_t load(const char* p) {
  if (std::is_constant_evaluated()) {  // the tables are built at compile time: memcpy's bytes, by hand
    std::uint64_t word = 0;
    for (std::size_t i = 0; i < sizeof(Word); ++i) {
      std::size_t shift = std::endian::native == std::endian::little ? i : sizeof(Word) - 1 - i;
      word |= std::uint64_t{static_cast<unsigned char>(p[i])} << (8 * shift);
    }
    return word;
  }
  Word word;
  std::memcpy(&word, p, sizeof word);
  return word;
}

struct KeyWords {
  std::uint64_t head = 0;
  std::uint64_t tail = 0;
};

constexpr KeyWords key_words(std::string_view key) {
  const char* p = key.data();
  std::size_t n = key.size();
  if (n >= 8) return {load<std::uint64_t>(p), load<std::uint64_t>(p + n - 8)};
  if (n >= 4) return {load<std::uint32_t>(p), load<std::uint32_t>(p + n - 4)};
  if (n >= 2) return {load<std::uint16_t>(p), load<std::uint16_t>(p + n - 2)};
  return {load<std::uint8_t>(p), load<std::uint8_t>(p)};
}

constexpr std::size_t key_slot(const KeyWords& words, std::size_t size) {
  return ((words.head ^ (words.tail << 1) ^ size) * 0x9E3779B97F4A7C15ULL) >> 57;  // 7 bits
}

class FieldIndex {
 public:
  template <std::size_t N>
  constexpr explicit FieldIndex(const std::array<std::pair<std::string_view, Field>, N>& table) {
    static_assert(N < kSlots / 2, "the table stays at most half full, so probes stay short");
    for (const auto& [name, field] : table) {
      KeyWords words = key_words(name);
      std::size_t slot = key_slot(words, name.size());
      while (slots_[slot].field != Field::Unknown) slot = (slot + 1) % kSlots;
      slots_[slot] = {words.head, words.tail, name, field};
    }
  }
  [[gnu::always_inline]] constexpr Field operator()(std::string_view key) const {
    if (key.empty()) return Field::Unknown;
    KeyWords words = key_words(key);
    for (std::size_t slot = key_slot(words, key.size());; slot = (slot + 1) % kSlots) {
      const Slot& s = slots_[slot];
      if (s.field == Field::Unknown) return Field::Unknown;
      if (s.head == words.head && s.tail == words.tail && s.name.size() == key.size() &&
          (key.size() <= 16 || s.name == key))
        return s.field;
    }
  }

 private:
  struct Slot {
    std::uint64_t head = 0;
    std::uint64_t tail = 0;
    std::string_view name;
    Field field = Field::Unknown;
  };
  static constexpr std::size_t kSlots = 128;
  std::array<Slot, kSlots> slots_{};
};
inline constexpr std::array<std::pair<std::string_view, Field>, 6> kTopLevel = {{
    {"traceEvents", Field::TraceEvents},
    {"deviceProperties", Field::DeviceProperties},
    {"distributedInfo", Field::DistributedInfo},
    {"schemaVersion", Field::SchemaVersion},
    {"baseTimeNanoseconds", Field::BaseTimeNanoseconds},
    {"traceName", Field::TraceName},
}};

inline constexpr std::array<std::pair<std::string_view, Field>, 9> kEvent = {{
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

inline constexpr std::array<std::pair<std::string_view, Field>, 39> kArgs = {{
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
    {"Process Group Name", Field::ProcessGroupName},
    {"Input Types", Field::InputTypes},
    {"Call Stack", Field::CallStack},
    {"kernel", Field::LaunchedKernel},        // of a launch call in a graph-capture trace (ROCm)
    {"wait_on_stream", Field::WaitOnStream},  // of cuda_sync events
    {"wait_on_cuda_event_record_corr_id", Field::WaitOnEventRecord},
    {"labels", Field::ArgName},  // of process_labels metadata events: "GPU 0", "MTIA 9", "CPU"
    {"direction", Field::DmaDirection},
    {"size", Field::DmaSize},
}};

inline constexpr FieldIndex kTopLevelIndex(kTopLevel);
inline constexpr FieldIndex kArgsIndex(kArgs);

}  // namespace fields_detail

// Inline, with tables built at compile time: the handler looks up every key of every event.
inline Field top_level_field(std::string_view key) {
  return fields_detail::kTopLevelIndex(key);
}
namespace fields_detail {

// The bytes of a key of 2 to 4 bytes as one number (the same at compile time and at run time).
constexpr std::uint32_t short_key_word(const char* p, std::size_t n) {
  if (n == 2) return static_cast<std::uint32_t>(load<std::uint16_t>(p));
  if (n == 3) return static_cast<std::uint32_t>(load<std::uint16_t>(p) | (load<std::uint8_t>(p + 2) << 16));
  return static_cast<std::uint32_t>(load<std::uint32_t>(p));
}
constexpr std::uint32_t operator""_key(const char* p, std::size_t n) {
  return short_key_word(p, n);
}

}  // namespace fields_detail

// The nine event keys are 2 to 4 bytes long (584,000 of ResNet-50's 956,000 keys): told apart by
// their length and one word of their bytes, with no table.
inline Field event_field(std::string_view key) {
  using fields_detail::operator""_key;
  if (key.size() < 2 || key.size() > 4) return Field::Unknown;
  std::uint32_t word = fields_detail::short_key_word(key.data(), key.size());
  switch (key.size()) {
    case 2:
      return word == "ph"_key   ? Field::Ph
             : word == "ts"_key ? Field::Ts
             : word == "id"_key ? Field::Id
                                : Field::Unknown;
    case 3:
      switch (word) {
        case "cat"_key:
          return Field::Cat;
        case "pid"_key:
          return Field::Pid;
        case "tid"_key:
          return Field::Tid;
        case "dur"_key:
          return Field::Dur;
        default:
          return Field::Unknown;
      }
    default:
      return word == "name"_key ? Field::Name : word == "args"_key ? Field::Args : Field::Unknown;
  }
}
inline Field args_field(std::string_view key) {
  return fields_detail::kArgsIndex(key);
}
const char* field_label(Field field);  // the key as written, for error messages

}  // namespace perfgate::kineto
