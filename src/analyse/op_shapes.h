// The problem size of a matrix op from its recorded input shapes (and, for convolutions, its
// strides and padding): what FLOPs and the Tensor Core shape check are computed from. Argument
// positions follow the ATen signatures of each op.
#pragma once

#include <optional>
#include <string_view>

#include "analyse/op_info.h"

namespace perfgate {

struct GemmShape {
  std::int64_t batch = 1;
  std::int64_t m = 0;
  std::int64_t n = 0;
  std::int64_t k = 0;
};

struct ConvShape {
  std::int64_t batch = 0;            // N
  std::int64_t in_channels = 0;      // C (per group times groups)
  std::int64_t out_channels = 0;     // K
  std::int64_t macs_per_output = 0;  // C/groups x kernel volume
  std::int64_t output_volume = 0;    // product of output spatial sizes; 0 when unknown
  bool backward = false;             // convolution_backward
  int gradients = 2;                 // backward: input and weight gradients unless output_mask says
};

struct AttentionShape {
  std::int64_t batch_heads = 0;  // B x H
  std::int64_t query_len = 0;
  std::int64_t key_len = 0;
  std::int64_t head_dim = 0;
  std::int64_t value_dim = 0;
  bool backward = false;
};

std::optional<GemmShape> gemm_shape(std::string_view op, const std::vector<Dims>& inputs);
std::optional<ConvShape> conv_shape(std::string_view op, const std::vector<Dims>& inputs,
                                    const std::vector<std::string>& scalars);
std::optional<AttentionShape> attention_shape(std::string_view op, const std::vector<Dims>& inputs);

// FLOPs of one call (a multiply-add counts 2), when the shapes say enough.
std::optional<double> shape_flops(std::string_view op, const std::vector<Dims>& inputs,
                                  const std::vector<std::string>& scalars);

}  // namespace perfgate
