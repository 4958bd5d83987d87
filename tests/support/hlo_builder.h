// Hand-built HloProto messages for the XPlane reader's tests (the "Hlo Proto" stat of a
// /host:metadata event metadata): written with xspace_builder.h's encoder, the field numbers of
// openxla/xla's xla/service/hlo.proto and xla/xla_data.proto written out here, not taken from the
// reader.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "support/xspace_builder.h"

namespace perfgate::testing::hlo {

inline constexpr std::int64_t kF32 = 11, kBf16 = 16, kU8 = 6, kTuple = 13;

// ShapeProto: element_type 2, dimensions 3 (packed), tuple_shapes 4.
inline std::string shape(std::int64_t type, const std::vector<std::int64_t>& dims) {
  std::string packed;
  for (std::int64_t d : dims) packed += pb::varint(static_cast<std::uint64_t>(d));
  return pb::int_field(2, type) + (dims.empty() ? "" : pb::bytes_field(3, packed));
}
inline std::string tuple(const std::vector<std::string>& shapes) {
  std::string out = pb::int_field(2, kTuple);
  for (const std::string& s : shapes) out += pb::bytes_field(4, s);
  return out;
}

// HloInstructionProto: name 1, opcode 2, shape 3, id 35, operand_ids 36 (one varint each, unpacked),
// called_computation_ids 38, custom_call_target 28, backend_config 43, feature_group_count 50, plus
// whatever `extra` holds (window 15, convolution_dimension_numbers 16, dot_dimension_numbers 30).
inline std::string instruction(std::string_view name, std::string_view opcode, const std::string& shape_bytes,
                               std::int64_t id, const std::vector<std::int64_t>& operands,
                               const std::string& extra = {}) {
  std::string out = pb::bytes_field(1, name) + pb::bytes_field(2, opcode) + pb::bytes_field(3, shape_bytes) +
                    pb::int_field(35, id);
  for (std::int64_t o : operands) out += pb::int_field(36, o);
  return out + extra;
}

// ConvolutionDimensionNumbers: input_batch 7, input_feature 8, input_spatial 11, kernel_input_feature
// 3, kernel_output_feature 4, kernel_spatial 6, output_batch 9, output_feature 10, output_spatial 12
// (repeated ones unpacked here).
inline std::string conv_dims(std::int64_t in_batch, std::int64_t in_feature,
                             const std::vector<std::int64_t>& in_spatial, std::int64_t k_in,
                             std::int64_t k_out, const std::vector<std::int64_t>& k_spatial) {
  std::string out = pb::int_field(7, in_batch) + pb::int_field(8, in_feature) + pb::int_field(3, k_in) +
                    pb::int_field(4, k_out) + pb::int_field(9, in_batch) + pb::int_field(10, in_feature);
  for (std::int64_t d : in_spatial) out += pb::int_field(11, d) + pb::int_field(12, d);
  for (std::int64_t d : k_spatial) out += pb::int_field(6, d);
  return pb::bytes_field(16, out);
}

// DotDimensionNumbers: lhs_contracting 1, rhs_contracting 2, lhs_batch 3, rhs_batch 4.
inline std::string dot_dims(const std::vector<std::int64_t>& lhs_contracting,
                            const std::vector<std::int64_t>& rhs_contracting) {
  std::string out;
  for (std::int64_t d : lhs_contracting) out += pb::int_field(1, d);
  for (std::int64_t d : rhs_contracting) out += pb::int_field(2, d);
  return pb::bytes_field(30, out);
}

// HloComputationProto: name 1, instructions 2, id 5.
inline std::string computation(std::string_view name, std::int64_t id,
                               const std::vector<std::string>& instructions) {
  std::string out = pb::bytes_field(1, name) + pb::int_field(5, id);
  for (const std::string& i : instructions) out += pb::bytes_field(2, i);
  return out;
}

// HloProto{hlo_module 1: HloModuleProto{name 1, computations 3}}.
inline std::string proto(std::string_view module, const std::vector<std::string>& computations) {
  std::string m = pb::bytes_field(1, module);
  for (const std::string& c : computations) m += pb::bytes_field(3, c);
  return pb::bytes_field(1, m);
}

}  // namespace perfgate::testing::hlo
