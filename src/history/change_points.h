// Change points of a series of runs: E-divisive means (Matteson & James 2014, "A Nonparametric
// Approach for Multiple Change Point Analysis of Multivariate Data", JASA 109(505)), as MongoDB's
// CI (signal-processing-algorithms) and Apache Otava (formerly Hunter, Fleming et al., ICPE 2023)
// apply it to performance results: the energy divergence q̂ with alpha = 1 chooses the split, recursive
// bisection; each new change point is tested as Otava does, with Student's t between the split's two
// sides, here corrected (weighted Bonferroni) for every split the search weighed. docs/trends.md.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "report_model/trend.h"  // ChangePointOptions

namespace perfgate {

struct ChangePoint {
  std::size_t index = 0;         // the first point after the change
  std::size_t before_index = 0;  // the last point before it that is no outlier (find_changes)
  double q_hat = 0;              // the divergence statistic of the split that found it
  double p_value = 1;            // of the test that accepted it, corrected for the splits searched
  // The means of the segments on either side, between this change point and its neighbours.
  double before_mean = 0;
  double after_mean = 0;
  std::optional<double> change_pct;  // 100 (after - before) / |before|; empty when before is 0
  std::size_t runs_before = 0;       // the points those means are of (outliers left out)
  std::size_t runs_after = 0;
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

// A point that is an outlier on its own (src/history/run_outliers.cpp, docs/trends.md): far from the
// median of the points on both sides of it, where fewer than `min_segment` points in a row are at its level.
inline constexpr double kOutlierNoiseWidths = 5;      // how far, in robust noise widths (robust_noise)
inline constexpr std::size_t kOutlierNeighbours = 3;  // the points each side whose median is its level
struct Outlier {
  std::size_t index = 0;
  double value = 0;
  double level = 0;                  // the median of the points before it (after it, for the first point)
  std::optional<double> change_pct;  // 100 (value - level) / |level|; empty when the level is 0
};

// The noise of a series robust to its shifts and outliers: the median absolute difference of
// consecutive points, scaled to the standard deviation of Gaussian noise (1.4826 / sqrt 2), at least
// 1e-9 of the median absolute value (so that a constant series' rounding is no noise). 0 below 2 points.
double robust_noise(std::span<const double> series);

// The points of `series` that are outliers on their own, in index order: with a robust noise s, a
// point more than kOutlierNoiseWidths s from the median of the kOutlierNeighbours points before it
// and from that of those after it, on the same side of both, where fewer than `min_segment` points
// in a row around it are nearer its value than that level (more are a short change, for the search).
// The last point has no points after it to tell an outlier from the start of a change: never one.
// None with min_segment below 2 (a point alone can be a segment).
std::vector<Outlier> isolated_outliers(std::span<const double> series, std::size_t min_segment);

// The change points of a series and its outliers: the outliers are set aside, and the change points
// are those of the other points (find_change_points), at their indices in `series`; the means, the
// runs on either side and the noise leave the outliers out.
struct SeriesChanges {
  std::vector<ChangePoint> change_points;
  std::vector<Outlier> outliers;
  std::vector<double> kept;               // the points that are no outlier, in order
  std::vector<std::size_t> kept_index;    // their indices in the series
  std::vector<std::size_t> kept_changes;  // each change point's index in `kept`
};
SeriesChanges find_changes(std::span<const double> series, const ChangePointOptions& options = {},
                           const MinEffect& min_effect = {});

// The splits (tau, kappa) the search weighs, both parts at least `min_segment` long: in a segment of
// r runs, r - 2 min_segment + 1 whose second part runs to the segment's end (a change that lasts, the
// one CI waits for) and (r - 2 min_segment + 1)(r - 2 min_segment) / 2 that end inside it.
struct SplitCounts {
  std::size_t to_end = 0;
  std::size_t inside = 0;
};
SplitCounts candidate_splits(std::size_t runs, std::size_t min_segment);

// The share of the level each split to the end gets: half the level over the splits to the end, half
// over those inside (a weighted Bonferroni correction), all of it to the end when there are none inside.
double level_share(bool to_end, const SplitCounts& searched);

// The significance of a split into X and Y: two-sided Student's t with pooled variance
// (df = |X| + |Y| - 2), divided by the split's share of the level (level_share), at most 1. Under
// independent normal noise of one level, the chance that any split searched reaches p is at most p,
// so a series has a false change point with probability at most the level (its first test's). Two
// constant levels: 0; one level: 1.
double split_p_value(std::span<const double> x, std::span<const double> y, bool to_end,
                     const SplitCounts& searched);

// The runs' noise: the pooled standard deviation within the segments between the change points at
// `changes` (their indices, ascending); empty when no segment has two runs.
std::optional<double> run_noise(std::span<const double> series, std::span<const std::size_t> changes);

// The smallest shift, in the series' unit, that `after` runs at a new level following `before` runs at
// one level show as a change point with probability `options.power` at `options.max_p_value`, for runs
// of noise `noise`: d · noise · sqrt(1/before + 1/after), d the noncentrality at which the noncentral t
// (before + after - 2 degrees of freedom) passes t(1 - a / 2) with that probability, a the level's share
// of a split to the end of before + after runs: the t-test's exact power at the split of the change
// (the search can choose another split, so the found share is a little lower). Empty when either side
// is shorter than the minimum segment.
std::optional<double> detectable_shift(std::size_t before, std::size_t after, double noise,
                                       const ChangePointOptions& options);

}  // namespace perfgate
