// The JSON keys perfgate reads, by the object they appear in. Both spellings of the keys that
// changed between PyTorch versions map to one field ("External id"/"external id", "Input Dims"/"Input dims").
#pragma once

#include <string_view>

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
};

Field top_level_field(std::string_view key);
Field event_field(std::string_view key);
Field args_field(std::string_view key);
const char* field_label(Field field);  // the key as written, for error messages

}  // namespace perfgate::kineto
