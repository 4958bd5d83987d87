#include "analyse/ops/op_shapes.h"

#include <array>
#include <numeric>

namespace perfgate {
namespace {

std::string_view bare(std::string_view op) {
  return op.starts_with("aten::") ? op.substr(6) : op;
}

std::int64_t product(const Dims& d, std::size_t from = 0, std::size_t to = std::string_view::npos) {
  to = std::min(to, d.size());
  std::int64_t p = 1;
  for (std::size_t i = from; i < to; ++i) p *= d[i];
  return p;
}

const Dims* input(const std::vector<Dims>& inputs, std::size_t i) {
  return i < inputs.size() && !inputs[i].empty() ? &inputs[i] : nullptr;
}

std::optional<GemmShape> two_operands(const std::vector<Dims>& in, int a_at, bool batched, int bias_at = -1) {
  const Dims* a = input(in, static_cast<std::size_t>(a_at));
  const Dims* b = input(in, static_cast<std::size_t>(a_at + 1));
  if (!a || !b) return std::nullopt;
  std::size_t rank = batched ? 3 : 2;
  if (a->size() != rank || b->size() != rank) return std::nullopt;
  GemmShape g;
  g.batch = batched ? (*a)[0] : 1;
  g.m = (*a)[rank - 2];
  g.k = (*a)[rank - 1];
  g.n = (*b)[rank - 1];
  g.a = a_at;
  g.b = a_at + 1;
  if (bias_at >= 0 && input(in, static_cast<std::size_t>(bias_at))) g.bias = bias_at;
  return g;
}

// Positions of the scalar arguments in each convolution op's ATen signature.
struct ConvArgs {
  std::string_view op;
  int stride, padding, dilation, transposed, groups;
};
constexpr ConvArgs kConvArgs[] = {
    {"convolution", 3, 4, 5, 6, 8},
    {"_convolution", 3, 4, 5, 6, 8},
    {"conv1d", 3, 4, 5, -1, 6},
    {"conv2d", 3, 4, 5, -1, 6},
    {"conv3d", 3, 4, 5, -1, 6},
    {"cudnn_convolution", 3, 2, 4, -1, 5},
    {"miopen_convolution", 4, 3, 5, -1, 6},
    {"convolution_overrideable", 3, 4, 5, 6, 8},
};

Dims scalar_ints(const std::vector<std::string>& scalars, int index, std::size_t spatial,
                 std::int64_t fallback) {
  Dims values;
  if (index >= 0 && static_cast<std::size_t>(index) < scalars.size())
    values = ArgumentCache::integers(scalars[static_cast<std::size_t>(index)]);
  if (values.size() == 1) values.assign(spatial, values[0]);
  if (values.size() != spatial) values.assign(spatial, fallback);
  return values;
}

std::optional<ConvShape> forward_conv(const ConvArgs& args, const std::vector<Dims>& inputs,
                                      const std::vector<std::string>& scalars) {
  const Dims* x = input(inputs, 0);
  const Dims* w = input(inputs, 1);
  if (!x || !w || x->size() < 3 || x->size() != w->size()) return std::nullopt;
  std::size_t spatial = x->size() - 2;
  ConvShape c;
  c.batch = (*x)[0];
  c.in_channels = (*x)[1];
  c.out_channels = (*w)[0];
  c.macs_per_output = product(*w, 1);
  const Dims* bias = input(inputs, 2);  // cudnn_convolution's third argument is its padding: no tensor
  c.bias = bias && bias->size() == 1;
  if (args.transposed >= 0 && static_cast<std::size_t>(args.transposed) < scalars.size() &&
      scalars[static_cast<std::size_t>(args.transposed)] == "True")
    return c;  // transposed: output size unknown from these arguments
  if (static_cast<std::size_t>(args.stride) >= scalars.size()) return c;  // no scalar arguments recorded
  std::string_view padding_text = static_cast<std::size_t>(args.padding) < scalars.size()
                                      ? std::string_view(scalars[static_cast<std::size_t>(args.padding)])
                                      : std::string_view();
  Dims stride = scalar_ints(scalars, args.stride, spatial, 1);
  Dims dilation = scalar_ints(scalars, args.dilation, spatial, 1);
  Dims padding = scalar_ints(scalars, args.padding, spatial, 0);
  c.output_volume = 1;
  for (std::size_t i = 0; i < spatial; ++i) {
    std::int64_t in = (*x)[i + 2], kernel = (*w)[i + 2];
    std::int64_t out = padding_text == "same" ? (in + stride[i] - 1) / stride[i]
                       : padding_text == "valid"
                           ? (in - dilation[i] * (kernel - 1) - 1) / stride[i] + 1
                           : (in + 2 * padding[i] - dilation[i] * (kernel - 1) - 1) / stride[i] + 1;
    if (out <= 0 || stride[i] <= 0) return c;
    c.output_volume *= out;
  }
  return c;
}

}  // namespace

std::array<int, 3> output_mask(std::string_view mask) {
  std::array<int, 3> flags = {-1, -1, -1};
  std::size_t flag = 0;
  for (std::size_t at = 0; at < mask.size() && flag < 3;) {
    std::size_t end = mask.find_first_of(",]", at);
    if (end == std::string_view::npos) end = mask.size();
    std::string_view item = mask.substr(at, end - at);
    while (!item.empty() && (item.front() == '[' || item.front() == ' ')) item.remove_prefix(1);
    while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
    flags[flag++] = item == "True" || item == "true" || item == "1"     ? 1
                    : item == "False" || item == "false" || item == "0" ? 0
                                                                        : -1;
    at = end + 1;
  }
  return flags;
}

namespace {

// convolution_backward's output_mask ("[True, True, False]"): which of the input, weight and bias
// gradients it computed; not a mask we can read: the input and weight gradients.
void conv_gradients(const std::vector<std::string>& scalars, ConvShape& c) {
  constexpr std::size_t kOutputMask = 10;
  std::array<int, 3> flags =
      scalars.size() > kOutputMask ? output_mask(scalars[kOutputMask]) : std::array<int, 3>{-1, -1, -1};
  if (flags[0] < 0 || flags[1] < 0) flags = {1, 1, 0};
  c.input_gradient = flags[0] == 1;
  c.weight_gradient = flags[1] == 1;
  c.bias = flags[2] == 1;
  c.gradients = flags[0] + flags[1];
}

}  // namespace

std::optional<GemmShape> gemm_shape(std::string_view op_name, const std::vector<Dims>& in) {
  std::string_view op = bare(op_name);
  if (op == "mm" || op == "_int_mm") return two_operands(in, 0, false);
  if (op == "_scaled_mm") return two_operands(in, 0, false, 4);  // (self, mat2, scale_a, scale_b, bias, ...)
  if (op == "addmm" || op == "addmm_" || op == "_addmm_activation") return two_operands(in, 1, false, 0);
  if (op == "bmm") return two_operands(in, 0, true);
  if (op == "baddbmm" || op == "baddbmm_" || op == "addbmm" || op == "addbmm_")
    return two_operands(in, 1, true, 0);
  if (op == "linear") {
    const Dims* x = input(in, 0);
    const Dims* w = input(in, 1);
    if (!x || !w || w->size() != 2 || x->back() != (*w)[1]) return std::nullopt;
    return GemmShape{1, product(*x, 0, x->size() - 1), (*w)[0], (*w)[1], 0, 1, input(in, 2) ? 2 : -1};
  }
  if (op == "matmul") {
    const Dims* a = input(in, 0);
    const Dims* b = input(in, 1);
    if (!a || !b || a->size() < 2 || b->size() < 2) return std::nullopt;
    return GemmShape{product(*a, 0, a->size() - 2), (*a)[a->size() - 2], b->back(), a->back(), 0, 1, -1};
  }
  return std::nullopt;
}

std::optional<ConvShape> conv_shape(std::string_view op_name, const std::vector<Dims>& in,
                                    const std::vector<std::string>& scalars) {
  std::string_view op = bare(op_name);
  for (const ConvArgs& args : kConvArgs)
    if (op == args.op) return forward_conv(args, in, scalars);
  if (op == "convolution_backward") {
    // (grad_output, input, weight, ...): the output size is grad_output's.
    const Dims* grad = input(in, 0);
    const Dims* x = input(in, 1);
    const Dims* w = input(in, 2);
    if (!grad || !x || !w || grad->size() < 3 || w->size() != grad->size()) return std::nullopt;
    ConvShape c;
    c.batch = (*grad)[0];
    c.in_channels = (*x)[1];
    c.out_channels = (*w)[0];
    c.macs_per_output = product(*w, 1);
    c.output_volume = product(*grad, 2);
    c.backward = true;
    conv_gradients(scalars, c);
    return c;
  }
  return std::nullopt;
}

namespace {

// The position of is_causal in each attention op's ATen signature.
int causal_argument(std::string_view op) {
  if (op == "scaled_dot_product_attention") return 5;
  if (op == "_scaled_dot_product_flash_attention") return 4;
  if (op == "_scaled_dot_product_efficient_attention" || op == "_scaled_dot_product_cudnn_attention")
    return 6;
  if (op == "_scaled_dot_product_flash_attention_backward" ||
      op == "_scaled_dot_product_efficient_attention_backward")
    return 11;
  return 14;  // _scaled_dot_product_cudnn_attention_backward
}

}  // namespace

std::optional<AttentionShape> attention_shape(std::string_view op_name, const std::vector<Dims>& in,
                                              const std::vector<std::string>& scalars) {
  std::string_view op = bare(op_name);
  bool forward = op == "scaled_dot_product_attention" || op == "_scaled_dot_product_flash_attention" ||
                 op == "_scaled_dot_product_efficient_attention" ||
                 op == "_scaled_dot_product_cudnn_attention";
  bool backward = op == "_scaled_dot_product_flash_attention_backward" ||
                  op == "_scaled_dot_product_efficient_attention_backward" ||
                  op == "_scaled_dot_product_cudnn_attention_backward";
  if (!forward && !backward) return std::nullopt;
  std::size_t q = backward ? 1 : 0;  // backward ops take grad_out first
  const Dims* query = input(in, q);
  const Dims* key = input(in, q + 1);
  const Dims* value = input(in, q + 2);
  if (!query || !key || !value || query->size() != 4 || key->size() != 4 || value->size() != 4)
    return std::nullopt;
  std::size_t causal = static_cast<std::size_t>(causal_argument(op));
  // (B, H, N, d): the key and value may have fewer heads (grouped-query attention).
  return AttentionShape{(*query)[0],        (*query)[1], (*key)[1],
                        (*query)[2],        (*key)[2],   (*query)[3],
                        (*value)[3],        backward,    causal < scalars.size() && scalars[causal] == "True",
                        static_cast<int>(q)};
}

double attention_flops(const AttentionShape& a) {
  auto d = [](std::int64_t v) { return static_cast<double>(v); };
  double bh = d(a.batch) * d(a.query_heads), nn = d(a.query_len) * d(a.key_len);
  double flops = 0;
  if (!a.backward) {
    flops = 2 * bh * nn * (d(a.head_dim) + d(a.value_dim));  // Q·K^T and P·V
  } else {
    // Q·K^T again, then dV = P^T·dO, dP = dO·V^T, dQ = dS·K, dK = dS^T·Q; with fewer K/V heads,
    // dK and dV are also summed over the H_q / H_kv query heads that share each.
    flops = 2 * bh * nn * (3 * d(a.head_dim) + 2 * d(a.value_dim));
    if (a.kv_heads > 0 && a.query_heads > a.kv_heads)
      flops +=
          d(a.batch) * d(a.key_len) * (d(a.head_dim) + d(a.value_dim)) * d(a.query_heads / a.kv_heads - 1);
  }
  // Causal: half of the score matrix, where it is square (else counted whole).
  return a.causal && a.query_len == a.key_len ? flops / 2 : flops;
}

std::optional<double> shape_flops(std::string_view op, const std::vector<Dims>& inputs,
                                  const std::vector<std::string>& scalars) {
  if (auto g = gemm_shape(op, inputs)) {
    double outputs = static_cast<double>(g->batch) * static_cast<double>(g->m) * static_cast<double>(g->n);
    return 2.0 * outputs * static_cast<double>(g->k) + (g->bias >= 0 ? outputs : 0);
  }
  if (auto c = conv_shape(op, inputs, scalars); c && c->output_volume > 0) {
    double outputs = static_cast<double>(c->batch) * static_cast<double>(c->out_channels) *
                     static_cast<double>(c->output_volume);
    double forward = 2.0 * outputs * static_cast<double>(c->macs_per_output);
    // Each gradient costs one forward; a bias (or its gradient) one addition per output.
    return (c->backward ? c->gradients * forward : forward) + (c->bias ? outputs : 0);
  }
  if (auto a = attention_shape(op, inputs, scalars)) return attention_flops(*a);
  return std::nullopt;
}

}  // namespace perfgate
