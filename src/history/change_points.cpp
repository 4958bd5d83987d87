#include "history/change_points.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

namespace perfgate {
namespace {

// q̂ from its three sums: `between` = Σ|x-y|, `within_x` and `within_y` over pairs of one sample.
double q_hat_of(double between, double within_x, double within_y, std::size_t m, std::size_t n) {
  double x = static_cast<double>(m), y = static_cast<double>(n);
  double divergence = 2 * between / (x * y);
  if (m > 1) divergence -= 2 * within_x / (x * (x - 1));
  if (n > 1) divergence -= 2 * within_y / (y * (y - 1));
  return x * y / (x + y) * divergence;
}

// The search over every (tau, kappa) in O(n²) time: for each point c, the sums of its distances to
// the points before it, Σ_{i<r} |s_i - s_c| for every r <= c, are kept in a triangle. Extending Y
// by one point then adds known sums to the between and within terms. The buffer is reused across
// the permutations of a test.
class SplitSearch {
 public:
  std::optional<Split> run(std::span<const double> s, std::size_t min_segment) {
    std::size_t n = s.size(), m = std::max<std::size_t>(min_segment, 1);
    if (n < 2 * m) return std::nullopt;
    fill_prefix_sums(s);
    std::optional<Split> best;
    double within_x = 0;  // Σ over pairs in [0, tau)
    for (std::size_t tau = 1; tau + m <= n; ++tau) {
      within_x += before(tau - 1, tau - 1);
      if (tau < m) continue;
      double within_y = 0, between = 0;
      for (std::size_t p = tau; p < n; ++p) {  // Y = [tau, p + 1)
        within_y += before(p, p) - before(p, tau);
        between += before(p, tau);
        std::size_t y = p + 1 - tau;
        if (y < m) continue;
        double q = q_hat_of(between, within_x, within_y, tau, y);
        if (!best || q > best->q_hat) best = Split{tau, p + 1, q};
      }
    }
    return best;
  }

 private:
  // Σ_{i<r} |s_i - s_c|, for r <= c.
  double before(std::size_t c, std::size_t r) const { return prefix_[c * (c + 1) / 2 + r]; }

  void fill_prefix_sums(std::span<const double> s) {
    prefix_.resize(s.size() * (s.size() + 1) / 2);
    for (std::size_t c = 0; c < s.size(); ++c) {
      double* row = &prefix_[c * (c + 1) / 2];
      row[0] = 0;
      for (std::size_t r = 1; r <= c; ++r) row[r] = row[r - 1] + std::fabs(s[r - 1] - s[c]);
    }
  }

  std::vector<double> prefix_;
};

// A reproducible shuffle: std::mt19937_64's output is fixed by the standard, and the bounded draw
// below is written here (std::uniform_int_distribution differs between standard libraries).
class Shuffler {
 public:
  explicit Shuffler(std::uint64_t seed) : engine_(seed) {}

  void shuffle(std::span<double> values) {
    for (std::size_t i = values.size(); i > 1; --i) std::swap(values[i - 1], values[below(i)]);
  }

 private:
  // Uniform in [0, n), by rejecting the draws that would bias the remainder.
  std::size_t below(std::size_t n) {
    std::uint64_t bound = n, threshold = (0 - bound) % bound;
    for (;;)
      if (std::uint64_t r = engine_(); r >= threshold) return static_cast<std::size_t>(r % bound);
  }

  std::mt19937_64 engine_;
};

struct Candidate {
  std::size_t index = 0;
  double q_hat = 0;
  std::size_t segment = 0, tau = 0, kappa = 0;  // its split, in its segment's length
};

// The strongest split over the segments between `bounds` (sorted, from 0 to the size).
std::optional<Candidate> best_candidate(std::span<const double> series,
                                        const std::vector<std::size_t>& bounds, std::size_t min_segment,
                                        SplitSearch& search) {
  std::optional<Candidate> best;
  for (std::size_t k = 0; k + 1 < bounds.size(); ++k) {
    auto segment = series.subspan(bounds[k], bounds[k + 1] - bounds[k]);
    if (auto split = search.run(segment, min_segment); split && (!best || split->q_hat > best->q_hat))
      best = Candidate{bounds[k] + split->tau, split->q_hat, segment.size(), split->tau, split->kappa};
  }
  return best;
}

// The candidate's split of its segment: X = [0, tau), Y = [tau, kappa), each as sorted values.
struct SplitGroups {
  std::size_t start = 0, tau = 0, kappa = 0;  // the segment's start in the series, the split in it
  std::vector<double> x, y;
  std::vector<double> segment;  // every value of the segment, sorted
};

std::vector<double> sorted_values(std::span<const double> values) {
  std::vector<double> out(values.begin(), values.end());
  std::sort(out.begin(), out.end());
  return out;
}

SplitGroups groups_of(std::span<const double> series, std::size_t start, const Candidate& c) {
  auto segment = series.subspan(start, c.segment);
  return {start,
          c.tau,
          c.kappa,
          sorted_values(segment.subspan(0, c.tau)),
          sorted_values(segment.subspan(c.tau, c.kappa - c.tau)),
          sorted_values(segment)};
}

// Whether a shuffle put the candidate's two groups back at the start of its segment, in either
// order: one of the arrangements p_value_floor() counts (issue 74). Counted again as a shuffle "as
// strong", such an arrangement made a clean step's p-value 2/1000 by chance (10 runs then 6 at
// +10%: one of 999 shuffles was its mirror), where the exact bound, 2 / 8008, is below the level.
bool rebuilds(std::span<const double> shuffled, const SplitGroups& g) {
  auto segment = shuffled.subspan(g.start);
  auto same = [&](std::size_t from, std::size_t size, const std::vector<double>& group) {
    return sorted_values(segment.subspan(from, size)) == group;
  };
  std::size_t m = g.x.size(), n = g.y.size();
  return (same(0, m, g.x) && same(m, n, g.y)) || (same(0, n, g.y) && same(n, m, g.x));
}

// The permutation test of Matteson & James: the points are shuffled within each segment found so
// far, which keeps the changes already accepted and destroys any other; the p-value is the share
// of shuffles whose strongest split is at least as strong, counting the observed one
// ((count + 1) / (permutations + 1), so it is never 0). The shuffles that rebuild the candidate's
// own split are not counted: the exact bound (p_value_floor, the caller's) accounts for them.
// Stops early once the candidate cannot pass.
double permutation_p_value(std::span<const double> series, const std::vector<std::size_t>& bounds,
                           const SplitGroups& observed_split, double observed, const ChangePointOptions& o,
                           Shuffler& shuffler, SplitSearch& search) {
  std::vector<double> work(series.begin(), series.end());
  double total = static_cast<double>(o.permutations + 1);
  std::size_t as_strong = 0;
  for (std::size_t r = 0; r < o.permutations; ++r) {
    for (std::size_t k = 0; k + 1 < bounds.size(); ++k)
      shuffler.shuffle(std::span(work).subspan(bounds[k], bounds[k + 1] - bounds[k]));
    auto best = best_candidate(work, bounds, o.min_segment, search);
    if (best && best->q_hat >= observed && !rebuilds(work, observed_split)) ++as_strong;
    if (static_cast<double>(as_strong + 1) / total > o.max_p_value) break;
  }
  return static_cast<double>(as_strong + 1) / total;
}

double mean_of(std::span<const double> values) {
  double sum = 0;
  for (double v : values) sum += v;
  return sum / static_cast<double>(values.size());
}

// Each change point's neighbouring segments in the current segmentation.
void add_segment_means(std::span<const double> series, std::vector<ChangePoint>& points) {
  for (std::size_t k = 0; k < points.size(); ++k) {
    std::size_t start = k == 0 ? 0 : points[k - 1].index;
    std::size_t end = k + 1 == points.size() ? series.size() : points[k + 1].index;
    ChangePoint& p = points[k];
    p.before_mean = mean_of(series.subspan(start, p.index - start));
    p.after_mean = mean_of(series.subspan(p.index, end - p.index));
    if (p.before_mean != 0) p.change_pct = 100 * (p.after_mean - p.before_mean) / std::fabs(p.before_mean);
  }
}

// How far a change is past the minimum effect: its size over the minimum's (>= 1 meets it).
double effect_ratio(const ChangePoint& c, const MinEffect& m) {
  double size = std::fabs(c.after_mean - c.before_mean);
  if (m.relative && size > 0)  // from 0, any change is infinitely large relative to it
    size = c.before_mean != 0 ? size / std::fabs(c.before_mean) : std::numeric_limits<double>::infinity();
  return size / m.amount;
}

// Otava's merge, with the permutation p-values kept: while the smallest change is below the minimum,
// it is removed and the segments on either side of it become one.
void merge_small_changes(std::span<const double> series, std::vector<ChangePoint>& points,
                         const MinEffect& m) {
  if (!(m.amount > 0)) return;
  while (!points.empty()) {
    auto smallest = std::min_element(points.begin(), points.end(), [&](const auto& a, const auto& b) {
      return effect_ratio(a, m) < effect_ratio(b, m);
    });
    if (effect_ratio(*smallest, m) >= 1) return;
    points.erase(smallest);
    add_segment_means(series, points);
  }
}

// C(n, k) as a double: each partial product is C(n - k + i, i), an integer, exact up to 2^53.
double binomial(std::size_t n, std::size_t k) {
  k = std::min(k, n - k);
  double c = 1;
  for (std::size_t i = 1; i <= k; ++i) c = c * static_cast<double>(n - k + i) / static_cast<double>(i);
  return c;
}

// p_value_floor for the values themselves: where a value of X or Y repeats in the segment (counts,
// or two constant levels), more placements of the runs rebuild the groups' values. Each placement
// of the segment's runs is equally likely; those that put X's values first and Y's next number
// Π over values v of C(c_v, x_v) · C(c_v − x_v, y_v) times the distinct-value count (c_v: v's runs
// in the segment, x_v and y_v in X and Y), and as many in the other order.
double floor_with_ties(const SplitGroups& g) {
  double ways = 1;
  auto count = [](const std::vector<double>& sorted, double v) {
    auto [lo, hi] = std::equal_range(sorted.begin(), sorted.end(), v);
    return static_cast<std::size_t>(hi - lo);
  };
  std::vector<double> values = g.x;
  values.insert(values.end(), g.y.begin(), g.y.end());
  std::sort(values.begin(), values.end());
  values.erase(std::unique(values.begin(), values.end()), values.end());
  for (double v : values) {
    std::size_t all = count(g.segment, v), in_x = count(g.x, v), in_y = count(g.y, v);
    ways *= binomial(all, in_x) * binomial(all - in_x, in_y);
  }
  return std::min(1.0, p_value_floor(g.segment.size(), g.tau, g.kappa) * ways);
}

double resolution(const ChangePointOptions& o) {
  return 1.0 / static_cast<double>(o.permutations + 1);
}

}  // namespace

double divergence_q_hat(std::span<const double> x, std::span<const double> y) {
  double between = 0, within_x = 0, within_y = 0;
  for (double a : x)
    for (double b : y) between += std::fabs(a - b);
  for (std::size_t i = 0; i < x.size(); ++i)
    for (std::size_t k = i + 1; k < x.size(); ++k) within_x += std::fabs(x[i] - x[k]);
  for (std::size_t i = 0; i < y.size(); ++i)
    for (std::size_t k = i + 1; k < y.size(); ++k) within_y += std::fabs(y[i] - y[k]);
  return q_hat_of(between, within_x, within_y, x.size(), y.size());
}

std::optional<Split> strongest_split(std::span<const double> series, std::size_t min_segment) {
  SplitSearch search;
  return search.run(series, min_segment);
}

std::vector<ChangePoint> find_change_points(std::span<const double> series, const ChangePointOptions& o,
                                            const MinEffect& min_effect) {
  std::vector<ChangePoint> found;
  std::vector<std::size_t> bounds = {0, series.size()};
  SplitSearch search;
  Shuffler shuffler(o.seed);
  for (;;) {
    auto candidate = best_candidate(series, bounds, o.min_segment, search);
    // No split, or no divergence at all (a constant series): nothing to test.
    if (!candidate || !(candidate->q_hat > 0)) break;
    // The shuffles estimate the p-value; it is never below what the arrangements allow.
    std::size_t start = *std::prev(std::upper_bound(bounds.begin(), bounds.end(), candidate->index));
    SplitGroups groups = groups_of(series, start, *candidate);
    double p = std::max(permutation_p_value(series, bounds, groups, candidate->q_hat, o, shuffler, search),
                        floor_with_ties(groups));
    if (p > o.max_p_value) break;
    bounds.insert(std::upper_bound(bounds.begin(), bounds.end(), candidate->index), candidate->index);
    ChangePoint point;
    point.index = candidate->index;
    point.q_hat = candidate->q_hat;
    point.p_value = p;
    found.push_back(point);
  }
  std::sort(found.begin(), found.end(),
            [](const ChangePoint& a, const ChangePoint& b) { return a.index < b.index; });
  add_segment_means(series, found);
  merge_small_changes(series, found, min_effect);
  return found;
}

double p_value_floor(std::size_t runs, std::size_t tau, std::size_t kappa) {
  // n! / (tau! (kappa - tau)! (n - kappa)!) = C(n, tau) · C(n - tau, kappa - tau).
  return 2 / (binomial(runs, tau) * binomial(runs - tau, kappa - tau));
}

double smallest_p_value(std::size_t runs, const ChangePointOptions& o) {
  std::size_t m = std::max<std::size_t>(o.min_segment, 1);
  if (runs < 2 * m) return 1;
  return std::max(p_value_floor(runs, runs / 2, runs), resolution(o));
}

std::optional<std::size_t> runs_for_p_value(const ChangePointOptions& o) {
  if (resolution(o) > o.max_p_value) return std::nullopt;
  // C(n, n/2) at least doubles every two runs: the loop ends after a few dozen at any level.
  std::size_t n = 2 * std::max<std::size_t>(o.min_segment, 1);
  while (smallest_p_value(n, o) > o.max_p_value) ++n;
  return n;
}

std::optional<std::size_t> runs_each_side(std::size_t runs, const ChangePointOptions& o) {
  if (resolution(o) > o.max_p_value) return std::nullopt;
  for (std::size_t j = std::max<std::size_t>(o.min_segment, 1); 2 * j <= runs; ++j)
    if (p_value_floor(runs, j, runs) <= o.max_p_value) return j;
  return std::nullopt;
}

}  // namespace perfgate
