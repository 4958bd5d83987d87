#include "analyse/ops/compiled_kernels.h"

#include <re2/re2.h>

#include <algorithm>

#include <fmt/format.h>

#include "analyse/ops/op_stats.h"
#include "common/errors.h"

namespace perfgate {
namespace {

bool listed(const std::vector<std::string>& list, std::string_view name) {
  return std::find(list.begin(), list.end(), name) != list.end();
}

bool holds(const FusedPattern& p, const FusedKernel& k) {
  if (!p.kinds.empty() && !listed(p.kinds, k.kind)) return false;
  for (const std::string& op : p.all)
    if (!listed(k.ops, op)) return false;
  if (p.any.empty()) return true;
  return std::any_of(p.any.begin(), p.any.end(), [&](const std::string& op) { return listed(k.ops, op); });
}

std::string join(const std::vector<std::string>& parts, std::string_view separator) {
  std::string out;
  for (const std::string& p : parts) out += (out.empty() ? "" : std::string(separator)) + p;
  return out;
}

}  // namespace

std::string FusedKernel::ops_text() const {
  std::string text = join(ops, ", ");
  if (!unparsed.empty()) text += (text.empty() ? "unparsed: " : "; unparsed: ") + join(unparsed, ", ");
  return text;
}

FusedNames::FusedNames(const Classification& c) : ops_(c.aten_ops), patterns_(c.fused_patterns) {
  RE2::Options options;
  options.set_log_errors(false);
  for (const std::string& pattern : c.compiled_kernels) {
    auto re = std::make_unique<RE2>(pattern, options);
    if (!re->ok())
      throw ConfigError(fmt::format("invalid compiled_kernels pattern '{}': {}", pattern, re->error()));
    if (re->NumberOfCapturingGroups() < 2)
      throw ConfigError(fmt::format(
          "compiled_kernels pattern '{}' needs two groups: the kernel's kind and the ops its name lists",
          pattern));
    names_.push_back(std::move(re));
  }
}

FusedNames::FusedNames(FusedNames&&) noexcept = default;
FusedNames::~FusedNames() = default;

std::optional<FusedKernel> FusedNames::parse(std::string_view name) const {
  for (const auto& re : names_) {
    re2::StringPiece kind, list;
    if (!RE2::FullMatch(re2::StringPiece(name.data(), name.size()), *re, &kind, &list)) continue;
    FusedKernel k;
    k.kind = std::string(kind.data(), kind.size());
    std::string_view ops(list.data(), list.size());
    bool after_unparsed = false;
    // Left to right, the longest known op followed by '_' or the end; else the part up to the next
    // '_' (a leading '_' is its own: "_foo") is unparsed, joined to an unparsed part before it.
    for (std::size_t at = 0; at < ops.size();) {
      std::string_view rest = ops.substr(at);
      // The longest: "addmm" rather than "add", "native_layer_norm_backward" than "native_layer_norm".
      auto known = ops_.end();
      for (auto op = ops_.begin(); op != ops_.end(); ++op)
        if (rest.starts_with(*op) && (rest.size() == op->size() || rest[op->size()] == '_') &&
            (known == ops_.end() || op->size() > known->size()))
          known = op;
      std::size_t length = 0;
      if (known != ops_.end()) {
        k.ops.push_back(*known);
        length = known->size();
        after_unparsed = false;
      } else {
        std::size_t end = rest.find('_', rest.starts_with('_') ? 1 : 0);
        length = end == std::string_view::npos ? rest.size() : end;
        std::string part(rest.substr(0, length));
        if (after_unparsed)
          k.unparsed.back() += "_" + part;
        else
          k.unparsed.push_back(std::move(part));
        after_unparsed = true;
      }
      at += length + 1;  // and the '_' between two ops
    }
    for (const FusedPattern& p : patterns_)
      if (holds(p, k)) {
        k.pattern = &p;
        break;
      }
    return k;
  }
  return std::nullopt;
}

const FusedKernel* FusedNameCache::operator()(StringId name) {
  auto [it, inserted] = known_.try_emplace(name);
  if (inserted) it->second = names_.parse(profile_.str(name));
  return it->second ? &*it->second : nullptr;
}

std::optional<GemmShape> template_gemm_shape(const FusedKernel& kernel, const std::vector<Dims>& in) {
  if (!kernel.pattern || kernel.pattern->model != "gemm") return std::nullopt;
  auto op = std::find_if(kernel.ops.begin(), kernel.ops.end(),
                         [&](const std::string& o) { return listed(kernel.pattern->any, o); });
  if (op == kernel.ops.end()) return std::nullopt;
  std::size_t rank = *op == "bmm" || *op == "baddbmm" ? 3 : 2;
  auto is_output = [&](const Dims& c, const GemmShape& g) {
    return c.size() == rank && (rank == 2 || c[0] == g.batch) && c[rank - 2] == g.m && c[rank - 1] == g.n;
  };
  std::optional<GemmShape> found;
  for (std::size_t a = 0; a < in.size(); ++a) {
    for (std::size_t b = a + 1; b < in.size(); ++b) {
      const Dims& x = in[a];
      const Dims& y = in[b];
      if (x.size() != rank || y.size() != rank || x[rank - 1] != y[rank - 2]) continue;
      if (rank == 3 && x[0] != y[0]) continue;
      GemmShape g{rank == 3 ? x[0] : 1, x[rank - 2],         y[rank - 1], x[rank - 1],
                  static_cast<int>(a),  static_cast<int>(b), -1};
      bool output = false;
      for (std::size_t c = 0; c < in.size() && !output; ++c) output = c != a && c != b && is_output(in[c], g);
      if (!output) continue;
      if (found && (found->batch != g.batch || found->m != g.m || found->n != g.n || found->k != g.k))
        return std::nullopt;  // two readings: not guessed
      if (!found) found = g;
    }
  }
  return found;
}

std::optional<double> template_gemm_flops(const FusedKernel& kernel, const std::vector<Dims>& inputs) {
  std::optional<GemmShape> g = template_gemm_shape(kernel, inputs);
  if (!g) return std::nullopt;
  return 2.0 * static_cast<double>(g->batch) * static_cast<double>(g->m) * static_cast<double>(g->n) *
         static_cast<double>(g->k);
}

std::vector<AdoptedRange> ranges_beside_regions(const Profile& p, const OpStats& stats,
                                                const NameMatcher& compiled_kernel,
                                                const NameMatcher& compiled_region) {
  std::vector<AdoptedRange> out;
  std::uint32_t thread = kNone, region = kNone;
  std::size_t covered_end = 0;  // events before it are under the region or a range it adopted
  for (std::uint32_t i = 0; i < p.host_events.size(); ++i) {
    const HostEvent& e = p.host_events[i];
    if (e.thread != thread) {
      thread = e.thread;
      region = kNone;
    }
    // Annotations and Python frames neither end a region's run nor join it.
    if (i < covered_end || !stats.is_op(i)) continue;
    if (compiled_region(e.name)) {
      region = i;
    } else if (region != kNone && compiled_kernel(e.name)) {
      out.push_back({i, region});
    } else {
      region = kNone;  // another op: what follows is not the region's
      continue;
    }
    covered_end = stats.subtree_end(i);
  }
  return out;
}

}  // namespace perfgate
