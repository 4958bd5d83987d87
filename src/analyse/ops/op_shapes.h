// The problem size of a matrix op from its recorded input shapes (and, for convolutions, its
// strides and padding): what FLOPs and the Tensor Core shape check are computed from. Argument
// positions follow the ATen signatures of each op.
#pragma once

#include <array>
#include <optional>
#include <string_view>

#include "analyse/ops/op_info.h"

namespace perfgate {

struct GemmShape {
  std::int64_t batch = 1;
  std::int64_t m = 0;
  std::int64_t n = 0;
  std::int64_t k = 0;
  int a = 0, b = 1;  // the input positions of the two matrices
  int bias = -1;     // ... of the bias (addmm's self, linear's bias) when one was passed, else -1
};

struct ConvShape {
  std::int64_t batch = 0;            // N
  std::int64_t in_channels = 0;      // C (per group times groups)
  std::int64_t out_channels = 0;     // K
  std::int64_t macs_per_output = 0;  // C/groups x kernel volume
  std::int64_t output_volume = 0;    // product of output spatial sizes; 0 when unknown
  bool backward = false;             // convolution_backward
  int gradients = 2;                 // backward: input and weight gradients unless output_mask says
  bool input_gradient = true;        // backward: which gradients output_mask asks for
  bool weight_gradient = true;
  bool bias = false;  // forward: a bias was passed; backward: its gradient is computed
};

struct AttentionShape {
  std::int64_t batch = 0;
  std::int64_t query_heads = 0;  // H_q
  std::int64_t kv_heads = 0;     // H_kv (fewer than H_q with grouped-query attention)
  std::int64_t query_len = 0;
  std::int64_t key_len = 0;
  std::int64_t head_dim = 0;
  std::int64_t value_dim = 0;
  bool backward = false;
  bool causal = false;  // is_causal=True
  int query = 0;        // the input position of the query (the key and value follow it)
};

std::optional<GemmShape> gemm_shape(std::string_view op, const std::vector<Dims>& inputs);
std::optional<ConvShape> conv_shape(std::string_view op, const std::vector<Dims>& inputs,
                                    const std::vector<std::string>& scalars);
std::optional<AttentionShape> attention_shape(std::string_view op, const std::vector<Dims>& inputs,
                                              const std::vector<std::string>& scalars = {});

// An ATen output_mask ("[True, True, False]"): 1, 0 or -1 (unreadable) for each of three flags.
std::array<int, 3> output_mask(std::string_view mask);
double attention_flops(const AttentionShape& a);

// FLOPs of one call (a multiply-add counts 2), when the shapes say enough: TraceLens's GEMM (with
// the bias's B x M x N), convolution (with the bias, each gradient output_mask asks for) and
// attention formulas (halved when causal; the backward recomputes Q·K^T and runs four products).
std::optional<double> shape_flops(std::string_view op, const std::vector<Dims>& inputs,
                                  const std::vector<std::string>& scalars);

}  // namespace perfgate
