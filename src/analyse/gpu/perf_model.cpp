#include "analyse/gpu/perf_model.h"

#include <algorithm>

#include "analyse/communication/communication.h"
#include "analyse/gpu/serving_models.h"
#include "analyse/ops/op_shapes.h"

namespace perfgate {
namespace {

double elements(const Dims& d) {
  double n = 1;
  for (std::int64_t v : d) n *= static_cast<double>(v);
  return n;
}

const Dims& dims_at(const OpCall& c, std::size_t i) {
  static const Dims kNone;
  return i < c.dims.size() ? c.dims[i] : kNone;
}

int bpe_at(const OpCall& c, std::size_t i) {
  return i < c.types.size() ? element_bytes(c.types[i]) : 0;
}

bool present(const OpCall& c, std::size_t i) {
  return i < c.dims.size() && !c.dims[i].empty();
}

bool is_true(const OpCall& c, std::size_t i) {
  return i < c.scalars.size() && c.scalars[i] == "True";
}

// Bytes moved, unknown as soon as one operand's element size is.
struct Bytes {
  double total = 0;
  bool known = true;
  void add(double count, int bytes_per_element) {
    if (count <= 0) return;
    if (bytes_per_element <= 0) known = false;
    total += count * bytes_per_element;
  }
  std::optional<double> value() const { return known ? std::optional<double>(total) : std::nullopt; }
};

// A GEMM reads both matrices (and the bias) and writes the product, each at its own type; the
// output has the first matrix's type, but FP8 products are written in 16 bits and int8 in 32.
std::optional<OpCost> gemm_cost(const OpCall& c) {
  auto g = gemm_shape(c.op, c.dims);
  if (!g) return std::nullopt;
  std::size_t a = static_cast<std::size_t>(g->a), b = static_cast<std::size_t>(g->b);
  double outputs = static_cast<double>(g->batch) * static_cast<double>(g->m) * static_cast<double>(g->n);
  int out_bpe = bpe_at(c, a);
  if (out_bpe == 1) out_bpe = c.op.ends_with("_int_mm") ? 4 : 2;
  Bytes bytes;
  bytes.add(elements(dims_at(c, a)), bpe_at(c, a));
  bytes.add(elements(dims_at(c, b)), bpe_at(c, b));
  bytes.add(outputs, out_bpe);
  if (g->bias >= 0)
    bytes.add(elements(dims_at(c, static_cast<std::size_t>(g->bias))),
              bpe_at(c, static_cast<std::size_t>(g->bias)));
  double flop = 2.0 * outputs * static_cast<double>(g->k) + (g->bias >= 0 ? outputs : 0);
  return OpCost{flop, bytes.value(), true};
}

// Forward: input, weight, bias and output. Backward (grad_output, input, weight): each gradient
// output_mask asks for reads grad_output and the other operand and writes its own; the bias's
// reads grad_output and writes one value per output channel.
std::optional<OpCost> conv_cost(const OpCall& c) {
  auto shape = conv_shape(c.op, c.dims, c.scalars);
  auto flop = shape_flops(c.op, c.dims, c.scalars);
  if (!shape || !flop || shape->output_volume <= 0) return std::nullopt;
  double out = static_cast<double>(shape->batch) * static_cast<double>(shape->out_channels) *
               static_cast<double>(shape->output_volume);
  Bytes bytes;
  if (!shape->backward) {
    int bpe = bpe_at(c, 0);
    bytes.add(elements(dims_at(c, 0)), bpe);
    bytes.add(elements(dims_at(c, 1)), bpe_at(c, 1));
    if (shape->bias) bytes.add(elements(dims_at(c, 2)), bpe_at(c, 2));
    bytes.add(out, bpe);
  } else {
    double x = elements(dims_at(c, 1)), w = elements(dims_at(c, 2));
    int bpe = bpe_at(c, 0);
    if (shape->input_gradient) bytes.add(out + w + x, bpe);
    if (shape->weight_gradient) bytes.add(out + x + w, bpe);
    if (shape->bias) bytes.add(out + static_cast<double>(shape->out_channels), bpe);
  }
  return OpCost{*flop, bytes.value(), true};
}

// Forward: Q, K, V read, O written. Backward: Q, K, V, O and dO read, dQ, dK, dV written.
std::optional<OpCost> attention_cost(const OpCall& c) {
  auto a = attention_shape(c.op, c.dims, c.scalars);
  if (!a) return std::nullopt;
  std::size_t q = static_cast<std::size_t>(a->query);
  double qe = elements(dims_at(c, q)), ke = elements(dims_at(c, q + 1)), ve = elements(dims_at(c, q + 2));
  double oe = static_cast<double>(a->batch) * static_cast<double>(a->query_heads) *
              static_cast<double>(a->query_len) * static_cast<double>(a->value_dim);
  int bpe = bpe_at(c, q);
  Bytes bytes;
  bytes.add(a->backward ? 2 * (qe + ke + ve) + 2 * oe : qe + ke + ve + oe, bpe);
  return OpCost{attention_flops(*a), bytes.value(), true};
}

std::optional<OpCost> unary_cost(const OpCall& c, double per_element) {
  if (c.dims.empty()) return std::nullopt;
  double n = elements(c.dims[0]);
  Bytes bytes;
  bytes.add(2 * n, bpe_at(c, 0));  // read and written at the input's type
  return OpCost{per_element * n, bytes.value(), false};
}

// fill_ and zero_ write every element and read none: n bytes moved, not 2n (issue 72: counted as
// read and written, ResNet-50's fill_ rows reached 161% of the V100's memory bandwidth).
std::optional<OpCost> fill_cost(const OpCall& c, double per_element) {
  if (c.dims.empty()) return std::nullopt;
  double n = elements(c.dims[0]);
  Bytes bytes;
  bytes.add(n, bpe_at(c, 0));
  return OpCost{per_element * n, bytes.value(), false};
}

// The shape two inputs broadcast to; empty when they do not broadcast.
std::optional<Dims> broadcast(const Dims& a, const Dims& b) {
  std::size_t rank = std::max(a.size(), b.size());
  Dims out(rank, 1);
  for (std::size_t i = 0; i < rank; ++i) {
    std::int64_t x = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    std::int64_t y = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (x != y && x != 1 && y != 1) return std::nullopt;
    out[i] = std::max(x, y);
  }
  return out;
}

// PyTorch's type-promotion categories (torch.result_type): bool < integer < floating < complex;
// -1 where the type says nothing (a Python number recorded as "Scalar").
int type_category(std::string_view t) {
  if (t.starts_with("c10::")) t.remove_prefix(5);
  if (t == "bool" || t == "Bool") return 0;
  if (t.starts_with("Complex") || t.starts_with("c10::complex")) return 3;
  if (t == "float" || t == "Float" || t == "double" || t == "Double" || t == "Half" || t == "BFloat16" ||
      t.starts_with("Float8"))
    return 2;
  return element_bytes(t) > 0 ? 1 : -1;
}

// The bytes per element of a binary op's result. A 0-dim tensor or a Python number beside a tensor
// with dimensions does not widen it within its category (float + a double 0-dim tensor is float);
// only a higher category does: the 0-dim tensor's type, or for a number the default type (float32).
int result_bpe(const OpCall& c) {
  int a = bpe_at(c, 0), b = bpe_at(c, 1);
  bool a_dims = !c.dims[0].empty(), b_dims = !c.dims[1].empty();
  if (a_dims == b_dims) return std::max(a, b);
  std::size_t tensor = a_dims ? 0 : 1, zero_dim = a_dims ? 1 : 0;
  std::string_view zt = zero_dim < c.types.size() ? std::string_view(c.types[zero_dim]) : std::string_view{};
  std::string_view tt = tensor < c.types.size() ? std::string_view(c.types[tensor]) : std::string_view{};
  if (type_category(zt) <= type_category(tt)) return bpe_at(c, tensor);
  return element_bytes(zt) > 0 ? element_bytes(zt) : 4;
}

// Each input read once at its own size (a broadcast input is not read again per output), the
// output written at the promoted type (result_bpe; a Python number has no bytes of its own).
std::optional<OpCost> binary_cost(const OpCall& c, double per_element) {
  if (c.dims.size() < 2) return std::nullopt;
  auto out = broadcast(c.dims[0], c.dims[1]);
  if (!out) return std::nullopt;
  int a = bpe_at(c, 0), b = bpe_at(c, 1);
  bool b_tensor = b > 0 || !c.dims[1].empty();
  Bytes bytes;
  bytes.add(elements(c.dims[0]), a);
  if (b_tensor) bytes.add(elements(c.dims[1]), b);
  bytes.add(elements(*out), b_tensor ? result_bpe(c) : a);
  return OpCost{per_element * elements(*out), bytes.value(), false};
}

// copy_(self, src): reads the source, writes the destination; other copies write what they read.
std::optional<OpCost> copy_cost(const OpCall& c, double per_element) {
  if (c.dims.empty()) return std::nullopt;
  Bytes bytes;
  double n = elements(c.dims[0]);
  if (c.op.ends_with("copy_") && c.dims.size() >= 2) {
    bytes.add(elements(c.dims[1]), bpe_at(c, 1));
    bytes.add(n, bpe_at(c, 0));
  } else {
    bytes.add(2 * n, bpe_at(c, 0));
  }
  return OpCost{per_element * n, bytes.value(), false};
}

// Reads every input element, writes one per kept element: the dims reduced are the second
// argument (none: all), keepdim the third; cumulative ones write as many as they read.
std::optional<OpCost> reduce_cost(const OpCall& c, double per_element) {
  if (c.dims.empty()) return std::nullopt;
  const Dims& in = c.dims[0];
  double n = elements(in), out = 1;
  if (c.op.find("cum") != std::string_view::npos) {
    out = n;
  } else if (c.scalars.size() > 1 && !c.scalars[1].empty()) {
    Dims reduced = ArgumentCache::integers(c.scalars[1]);
    // An empty dim list ("[]": sum.dim_IntList's dim=[]) reduces every dim, as no dim list does.
    std::string_view dim = c.scalars[1];
    while (!dim.empty() && dim.front() == ' ') dim.remove_prefix(1);
    while (!dim.empty() && dim.back() == ' ') dim.remove_suffix(1);
    out = dim == "[]" ? 1 : n;
    for (std::int64_t d : reduced) {
      std::int64_t at = d < 0 ? d + static_cast<std::int64_t>(in.size()) : d;
      if (at >= 0 && static_cast<std::size_t>(at) < in.size() && in[static_cast<std::size_t>(at)] > 0)
        out /= static_cast<double>(in[static_cast<std::size_t>(at)]);
    }
  }
  Bytes bytes;
  bytes.add(n + out, bpe_at(c, 0));
  return OpCost{per_element * n, bytes.value(), false};
}

// Softmax reads and writes each element; its backward is counted as twice the forward.
std::optional<OpCost> softmax_cost(const OpCall& c, double per_element, bool backward) {
  if (c.dims.empty()) return std::nullopt;
  double n = elements(c.dims[0]), times = backward ? 2 : 1;
  Bytes bytes;
  bytes.add(times * 2 * n, bpe_at(c, 0));
  return OpCost{times * per_element * n, bytes.value(), false};
}

// The normalizations' statistics and parameters: TraceLens's Normalization formulas.
struct Norm {
  double elements = 0;
  double channels = 0;  // per-channel statistics: C of batch norm, the normalized size of layer norm
  bool affine = false;
  bool bias = false;
  bool training = true;
  bool input_gradient = true;  // backward
  int bpe = 0;
};

OpCost norm_forward(const Norm& n) {
  double flop = 3 * n.channels + (n.training ? 3 * n.elements : 0) + 3 * n.channels + 2 * n.elements;
  int parameters = 2 + (n.affine ? 1 + (n.bias ? 1 : 0) : 0) + (n.training ? 2 : 0);
  Bytes bytes;
  bytes.add(2 * n.elements + parameters * n.channels, n.bpe);
  return OpCost{flop, bytes.value(), false};
}

OpCost norm_backward(const Norm& n) {
  double rows = n.channels > 0 ? n.elements / n.channels : 0;
  double per_channel = (n.training ? 0 : 3) + 4 * rows;
  if (!n.input_gradient)
    per_channel += 2 * rows;
  else if (n.training)
    per_channel += 5 * rows;
  double read_input = n.input_gradient && n.training ? 2 : 1;
  double parameters = (n.training ? 1 : 0) + (n.affine ? 1 + (n.training ? (n.bias ? 2 : 1) : 0) : 0);
  Bytes bytes;
  bytes.add(n.elements + read_input * n.elements + parameters * n.channels, n.bpe);
  return OpCost{n.channels * per_channel, bytes.value(), false};
}

double normalized_size(const OpCall& c, std::size_t shape_at) {
  if (shape_at >= c.scalars.size()) return 0;
  double size = 1;
  for (std::int64_t v : ArgumentCache::integers(c.scalars[shape_at])) size *= static_cast<double>(v);
  return size;
}

std::optional<OpCost> layer_norm_cost(const OpCall& c, bool backward) {
  // native_layer_norm(input, normalized_shape, weight, bias, eps);
  // native_layer_norm_backward(grad_out, input, normalized_shape, mean, rstd, weight, bias, output_mask)
  std::size_t x = backward ? 1 : 0;
  Norm n{elements(dims_at(c, x)),
         normalized_size(c, x + 1),
         present(c, backward ? 5 : 2),
         present(c, backward ? 6 : 3),
         true,
         true,
         bpe_at(c, x)};
  if (c.dims.size() <= x || n.channels <= 0) return std::nullopt;
  if (!backward) return norm_forward(n);
  if (c.scalars.size() > 7) {
    std::array<int, 3> mask = output_mask(c.scalars[7]);
    n.input_gradient = mask[0] != 0;
    n.affine = mask[1] == 1;
    n.bias = mask[2] == 1;
  }
  return norm_backward(n);
}

std::optional<OpCost> batch_norm_cost(const OpCall& c, bool backward) {
  // native_batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps);
  // native_batch_norm_backward(grad_out, input, weight, ..., train (7), eps, output_mask);
  // cudnn/miopen_batch_norm_backward(input, grad_output, weight, ...): inference statistics.
  bool native_backward = backward && c.op.find("native") != std::string_view::npos;
  std::size_t x = native_backward ? 1 : 0;
  const Dims& input = dims_at(c, x);
  if (input.size() < 2) return std::nullopt;
  Norm n{elements(input), static_cast<double>(input[1]), present(c, backward ? 2 : 1), true, true, true,
         bpe_at(c, x)};
  if (!backward) {
    n.training = is_true(c, 5);
    return norm_forward(n);
  }
  n.training = native_backward && is_true(c, 7);
  n.input_gradient = !native_backward || present(c, 0);
  return norm_backward(n);
}

// rms_norm(input, normalized_shape, weight, eps); _fused_rms_norm(input, normalized_ndim, weight, eps).
std::optional<OpCost> rms_norm_cost(const OpCall& c) {
  if (c.dims.empty() || c.dims[0].empty()) return std::nullopt;
  const Dims& x = c.dims[0];
  double size = normalized_size(c, 1);
  if (c.op.ends_with("_fused_rms_norm")) {
    Dims ndim = c.scalars.size() > 1 ? ArgumentCache::integers(c.scalars[1]) : Dims{};
    if (ndim.size() != 1 || ndim[0] <= 0 || static_cast<std::size_t>(ndim[0]) > x.size()) return std::nullopt;
    size = elements(Dims(x.end() - ndim[0], x.end()));
  }
  if (size <= 0) return std::nullopt;
  double n = elements(x);
  bool affine = present(c, 2);
  Bytes bytes;
  bytes.add(2 * n + (affine ? size : 0), bpe_at(c, 0));
  return OpCost{n / size * (2 * size + 2) + n * (affine ? 2 : 1), bytes.value(), false};
}

}  // namespace

std::optional<OpCost> op_cost(const OpModelPattern& model, const OpCall& call) {
  const std::string& m = model.model;
  double per = model.flops_per_element;
  if (m == "gemm") return gemm_cost(call);
  if (m == "conv") return conv_cost(call);
  if (m == "attention") return attention_cost(call);
  if (m == "unary") return unary_cost(call, per);
  if (m == "fill") return fill_cost(call, per);
  if (m == "binary") return binary_cost(call, per);
  if (m == "copy") return copy_cost(call, per);
  if (m == "reduce") return reduce_cost(call, per);
  if (m == "softmax" || m == "softmax_backward") return softmax_cost(call, per, m == "softmax_backward");
  if (m == "layer_norm" || m == "layer_norm_backward")
    return layer_norm_cost(call, m == "layer_norm_backward");
  if (m == "batch_norm" || m == "batch_norm_backward")
    return batch_norm_cost(call, m == "batch_norm_backward");
  if (m == "rms_norm") return rms_norm_cost(call);
  if (m == "moe" && call.serving) return moe_cost(call, *call.serving);
  if (m == "serving_attention" && call.serving) return serving_attention_cost(call, model, *call.serving);
  return std::nullopt;
}

}  // namespace perfgate
