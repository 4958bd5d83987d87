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

#include "report_model/trend.h"  // ChangePointOptions

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

// The smallest change a change point must show: |after - before| at least `amount`, or at least
// `amount` · |before| when `relative` (a rule's limit: "+10%" is 0.1, "-5 pts" is 5). 0: any change.
struct MinEffect {
  double amount = 0;
  bool relative = false;
};

// The significant change points of `series`, in index order. A constant series has none. Those
// whose change is below `min_effect` are then merged away, the smallest first, each time with the
// means of its neighbours recomputed (Apache Otava's merge, hunter/analysis.py).
std::vector<ChangePoint> find_change_points(std::span<const double> series,
                                            const ChangePointOptions& options = {},
                                            const MinEffect& min_effect = {});

// What the permutation test can reach (docs/trends.md, "What a series can show"). A shuffle that
// puts the two groups of a split (tau, kappa) of a segment of n runs back at its start, in either
// order, gives the split's q̂ again: 2 of the n! / (tau! (kappa - tau)! (n - kappa)!) ways to place
// the groups. So the split's p-value is at least 2 / that count; for a change that lasts to the end
// (kappa = n), 2 / C(n, tau). The test reports at least this, and at least 1 / (permutations + 1).
double p_value_floor(std::size_t runs, std::size_t tau, std::size_t kappa);

// The smallest p-value a series of `runs` can give: a change in its middle, 2 / C(runs, runs / 2),
// or 1 / (permutations + 1) when larger; 1 with fewer than two segments of `min_segment`.
double smallest_p_value(std::size_t runs, const ChangePointOptions& options);

// The fewest runs whose smallest p-value is at most `max_p_value`; empty when no count reaches it
// (a level below 1 / (permutations + 1)).
std::optional<std::size_t> runs_for_p_value(const ChangePointOptions& options);

// In a series of `runs`, the fewest runs a change needs on each side of it (j with
// 2 / C(runs, j) at most the level, and at least `min_segment`); empty when none is enough.
std::optional<std::size_t> runs_each_side(std::size_t runs, const ChangePointOptions& options);

}  // namespace perfgate
