// Names and codes that the analyses write into their rows and the report's tables carry as they
// are: the row of GPU work that no op launched, and the timeline's lanes that are not a GPU.
// Declared once here, below both.
#pragma once

#include <cstdint>
#include <string_view>

namespace perfgate {

// The row (ops, top GPU ops, memory by op) and op name (kernels by op) of GPU work that no op
// launched.
inline constexpr std::string_view kNoOpName = "(no op)";

// Timeline lanes other than a GPU's, in a box's device (its stream is then the thread id, or the
// lane's index for a Neuron device's rows).
inline constexpr std::int32_t kHostOpsDevice = -1;     // outermost ops and DataLoader ops
inline constexpr std::int32_t kRuntimeDevice = -2;     // runtime calls
inline constexpr std::int32_t kNeuronEngineLane = -3;  // a Neuron engine row
inline constexpr std::int32_t kNeuronDmaLane = -4;     // a Neuron DMA queue

}  // namespace perfgate
