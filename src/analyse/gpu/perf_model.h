// The performance model of one op call: its FLOPs and the bytes it must move, from the shapes,
// types and scalar arguments the trace records, by the formulas of its model (rules: op_models).
// Definitions follow TraceLens (AMD-AGI/TraceLens, TraceLens/PerfModel/perf_model.py); where
// perfgate differs, docs/metrics.md ("Roofline") says so.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analyse/ops/op_info.h"
#include "knowledge/classification.h"

namespace perfgate {

struct ServingContext;  // serving_models.h

struct OpCall {
  std::string_view op;
  const std::vector<Dims>& dims;
  const std::vector<std::string>& types;    // "Input type", one per input
  const std::vector<std::string>& scalars;  // "Concrete Inputs", one per input
  const ServingContext* serving = nullptr;  // what the moe and serving_attention models read
};

struct OpCost {
  double flop = 0;
  std::optional<double> bytes;  // empty when an operand's element type is unknown
  bool matrix = false;          // GEMM, convolution or attention: Tensor Core peaks apply
};

// The call's cost by the model's formulas; empty when the shapes do not say enough. (An XLA op's
// model is xla_cost.h's.)
std::optional<OpCost> op_cost(const OpModelPattern& model, const OpCall& call);

}  // namespace perfgate
