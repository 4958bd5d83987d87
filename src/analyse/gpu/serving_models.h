// The costs of mixture-of-experts and serving attention ops (rules: op_models, models moe and
// serving_attention), after TraceLens's PerfModel extensions (moe_perf_model_extensions.py,
// attention_perf_model_extensions.py): what they read beyond the op's own arguments (the top-k of
// the op it calls, its kernels' names, the serving step's batch lengths) is its ServingContext.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>

#include "analyse/gpu/perf_model.h"
#include "analyse/ops/op_stats.h"

namespace re2 {
class RE2;
}

namespace perfgate {

struct ServingContext {
  std::optional<double> topk;  // moe: the top-k its TopK op was called with
  bool gated = false;          // moe: a gated (SwiGLU) expert MLP: two up projections
  bool fp4_weights = false;    // moe: 4-bit expert weights (half a byte each)
  // serving_attention: the step's sums over its requests (context c_, generation g_): query and
  // key lengths, and the sums of sq x sq and sq x sk products. Empty: the step does not say.
  std::map<std::string, double, std::less<>> batch;
};

// Whether a model's cost reads a ServingContext (moe, serving_attention): more than the op's own
// arguments, so calls of one name and arguments may cost differently.
inline bool reads_serving_context(const OpModelPattern& model) {
  return model.model == "moe" || model.model == "serving_attention";
}

// moe: up = 2 T k H I (x2 gated), down = 2 T k I H, I = H (the op records no intermediate size).
std::optional<OpCost> moe_cost(const OpCall& call, const ServingContext& context);
// serving_attention: H_Q (d_qk + d_v) (2 c_sqsk - c_sqsq) + 2 H_Q (d_qk + d_v) g_sqsk.
std::optional<OpCost> serving_attention_cost(const OpCall& call, const OpModelPattern& model,
                                             const ServingContext& context);

// Reads an op's context from the trace, compiling each model's patterns once.
class ServingContextReader {
 public:
  ServingContextReader(const Profile& profile, const OpStats& stats, ArgumentCache& args);
  ~ServingContextReader();
  ServingContext read(std::size_t op, const OpModelPattern& model);

 private:
  const re2::RE2& compiled(const std::string& pattern);
  void read_moe(std::size_t op, const OpModelPattern& model, ServingContext& out);
  void read_batch(std::size_t op, const OpModelPattern& model, ServingContext& out);

  const Profile& p_;
  const OpStats& stats_;
  ArgumentCache& args_;
  std::map<std::string, std::unique_ptr<re2::RE2>> patterns_;
};

}  // namespace perfgate
