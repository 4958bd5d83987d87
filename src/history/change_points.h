// Change points of a series of runs: E-divisive means (Matteson & James 2014, "A Nonparametric
// Approach for Multiple Change Point Analysis of Multivariate Data", JASA 109(505)), as MongoDB's
// CI (signal-processing-algorithms) and Apache Otava (formerly Hunter, Fleming et al., ICPE 2023)
// apply it to performance results: the energy divergence q̂ with alpha = 1, recursive bisection,
// and a permutation test with a fixed seed for each new change point. docs/trends.md.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "perfgate/trend.h"  // ChangePointOptions

namespace perfgate {

struct ChangePoint {
  std::size_t index = 0;  // the first point after the change
  double q_hat = 0;       // the divergence statistic of the split that found it
  double p_value = 1;     // of the permutation test that accepted it
  // The means of the segments on either side, between this change point and its neighbours.
  double before_mean = 0;
  double after_mean = 0;
  std::optional<double> change_pct;  // 100 (after - before) / |before|; empty when before is 0
};

// q̂(X, Y) of Matteson & James with alpha = 1:
//   mn/(m+n) · [ 2/(mn) Σ|x-y|  -  C(m,2)^-1 Σ_{i<k}|x_i-x_k|  -  C(n,2)^-1 Σ_{j<k}|y_j-y_k| ],
// a within-sample term counted as 0 for a sample of one. Quadratic: for tests and small inputs.
double divergence_q_hat(std::span<const double> x, std::span<const double> y);

// The split of `series` into X = [0, tau) and Y = [tau, kappa) with the largest q̂, both at least
// `min_segment` long (the paper's search over tau and kappa); empty when the series is too short.
struct Split {
  std::size_t tau = 0;
  std::size_t kappa = 0;
  double q_hat = 0;
};
std::optional<Split> strongest_split(std::span<const double> series, std::size_t min_segment);

// The significant change points of `series`, in index order. A constant series has none.
std::vector<ChangePoint> find_change_points(std::span<const double> series,
                                            const ChangePointOptions& options = {});

}  // namespace perfgate
