#include "analyse/gpu/serving_models.h"

#include <cmath>

#include <re2/re2.h>

#include "analyse/communication/communication.h"

namespace perfgate {
namespace {

double last(const Dims& d) {
  return d.empty() ? 0 : static_cast<double>(d.back());
}

// All but the last dimension: the tokens of a [tokens, hidden] (or [batch, seq, hidden]) input.
double leading(const Dims& d) {
  double n = 1;
  for (std::size_t i = 0; i + 1 < d.size(); ++i) n *= static_cast<double>(d[i]);
  return n;
}

int bpe(const OpCall& c, std::size_t i) {
  return i < c.types.size() ? element_bytes(c.types[i]) : 0;
}

const Dims* dims(const OpCall& c, std::size_t i) {
  return i < c.dims.size() && !c.dims[i].empty() ? &c.dims[i] : nullptr;
}

}  // namespace

std::optional<OpCost> moe_cost(const OpCall& c, const ServingContext& context) {
  const Dims* hidden = dims(c, 0);
  const Dims* router = dims(c, 1);
  if (!hidden || !router || hidden->size() < 2 || !context.topk || *context.topk <= 0) return std::nullopt;
  double t = leading(*hidden), h = last(*hidden), e = last(*router), k = *context.topk;
  double i = h;  // TraceLens's limitation: the op records no intermediate size (docs/metrics.md)
  double gate = context.gated ? 2 : 1;
  double flop = 2 * t * k * h * i * gate + 2 * t * k * i * h;
  std::optional<double> bytes;
  if (int b = bpe(c, 0); b > 0 && e >= k) {
    // Experts a batch of T tokens touches, each picking k of E uniformly: E (1 - ((E - k) / E)^T).
    double active = e * (1 - std::pow((e - k) / e, t));
    double w = context.fp4_weights ? 0.5 : b;
    double up = t * h * b + active * gate * h * i * w + t * k * i * b;
    double down = t * k * i * b + active * i * h * w + t * h * b;
    bytes = up + down;
  }
  return OpCost{flop, bytes, true};
}

std::optional<OpCost> serving_attention_cost(const OpCall& c, const OpModelPattern& model,
                                             const ServingContext& context) {
  auto query = static_cast<std::size_t>(model.query), value = static_cast<std::size_t>(model.value);
  const Dims* q = dims(c, query);
  const Dims* v = dims(c, value);
  if (!q || !v || q->size() < 2 || v->size() < 2) return std::nullopt;
  auto get = [&](std::string_view name) -> std::optional<double> {
    auto found = context.batch.find(name);
    return found == context.batch.end() ? std::nullopt : std::optional(found->second);
  };
  auto c_sqsq = get("c_sqsq"), c_sqsk = get("c_sqsk"), g_sqsk = get("g_sqsk");
  if (!c_sqsq || !c_sqsk || !g_sqsk) return std::nullopt;
  double heads = static_cast<double>((*q)[q->size() - 2]), d_qk = last(*q), d_v = last(*v);
  double kv_heads = static_cast<double>((*v)[v->size() - 2]);
  double flop = heads * (d_qk + d_v) * (2 * *c_sqsk - *c_sqsq) + 2 * heads * (d_qk + d_v) * *g_sqsk;
  // Bytes: Q read and O written for each query token, K and V of the current tokens at Q's type and
  // of the cached ones at the cache's type (TraceLens's InferenceAttention.bytes_func, B = 1).
  std::optional<double> bytes;
  auto c_sq = get("c_sq"), c_sk = get("c_sk"), g_sq = get("g_sq"), g_sk = get("g_sk");
  int b = bpe(c, query), b_kv = bpe(c, value);
  if (c_sq && c_sk && g_sq && g_sk && b > 0 && b_kv > 0) {
    double per_query = heads * (d_qk + d_v) + kv_heads * (d_qk + d_v);
    double per_cached = kv_heads * (d_qk + d_v);
    bytes = (*c_sq + *g_sq) * per_query * b + ((*c_sk - *c_sq) + (*g_sk - *g_sq)) * per_cached * b_kv;
  }
  return OpCost{flop, bytes, true};
}

ServingContextReader::ServingContextReader(const Profile& profile, const OpStats& stats, ArgumentCache& args)
    : p_(profile), stats_(stats), args_(args) {}
ServingContextReader::~ServingContextReader() = default;

const re2::RE2& ServingContextReader::compiled(const std::string& pattern) {
  auto& re = patterns_[pattern];
  if (!re) {
    re2::RE2::Options options;
    options.set_log_errors(false);
    re = std::make_unique<re2::RE2>(pattern, options);  // checked when the rules were read
  }
  return *re;
}

ServingContext ServingContextReader::read(std::size_t op, const OpModelPattern& model) {
  ServingContext out;
  if (model.model == "moe") read_moe(op, model, out);
  if (model.model == "serving_attention") read_batch(op, model, out);
  return out;
}

// k: the second argument of the first top-k op it calls; gating and 4-bit weights: its kernels' names.
void ServingContextReader::read_moe(std::size_t op, const OpModelPattern& m, ServingContext& out) {
  const re2::RE2& topk = compiled("^(?:" + m.topk_ops + ")$");
  for (std::size_t e = op + 1; e < stats_.subtree_end(op) && !out.topk; ++e) {
    std::string_view name = p_.str(p_.host_events[e].name);
    if (!re2::RE2::FullMatch(re2::StringPiece(name.data(), name.size()), topk)) continue;
    const auto& scalars = args_.strings(p_.details(e).concrete_inputs);
    Dims k = scalars.size() > 1 ? ArgumentCache::integers(scalars[1]) : Dims{};
    if (k.size() == 1 && k[0] > 0) out.topk = static_cast<double>(k[0]);
  }
  for (std::size_t e = op; e < stats_.subtree_end(op); ++e)
    for (std::uint32_t a : stats_.launched(e)) {
      std::string_view name = p_.str(p_.gpu_activities[a].name);
      re2::StringPiece kernel(name.data(), name.size());
      if (!m.gated_kernels.empty() && re2::RE2::PartialMatch(kernel, compiled(m.gated_kernels)))
        out.gated = true;
      if (!m.fp4_weight_kernels.empty() && re2::RE2::PartialMatch(kernel, compiled(m.fp4_weight_kernels)))
        out.fp4_weights = true;
    }
}

// The batch lengths: the named groups of the first enclosing range whose name the pattern matches.
void ServingContextReader::read_batch(std::size_t op, const OpModelPattern& m, ServingContext& out) {
  const re2::RE2& re = compiled(m.batch);
  int groups = re.NumberOfCapturingGroups();
  std::vector<re2::StringPiece> pieces(static_cast<std::size_t>(groups) + 1);
  for (std::uint32_t e = p_.host_events[op].parent; e != kNone; e = p_.host_events[e].parent) {
    std::string_view name = p_.str(p_.host_events[e].name);
    if (!re.Match(re2::StringPiece(name.data(), name.size()), 0, name.size(), re2::RE2::UNANCHORED,
                  pieces.data(), groups + 1))
      continue;
    for (const auto& [group, index] : re.NamedCapturingGroups()) {
      const re2::StringPiece& piece = pieces[static_cast<std::size_t>(index)];
      Dims n = ArgumentCache::integers(std::string_view(piece.data(), piece.size()));
      if (n.size() == 1) out.batch[group] = static_cast<double>(n[0]);
    }
    return;
  }
}

}  // namespace perfgate
