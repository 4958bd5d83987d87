#include "history/change_points.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <boost/math/distributions/non_central_t.hpp>
#include <boost/math/distributions/students_t.hpp>

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

struct Candidate {
  std::size_t index = 0;
  double q_hat = 0;
  std::size_t start = 0, tau = 0, kappa = 0;  // its segment's start in the series, the split in it
};

// The strongest split over the segments between `bounds` (sorted, from 0 to the size), and how many
// splits the search weighed to choose it: the count the significance is corrected for.
std::optional<Candidate> best_candidate(std::span<const double> series,
                                        const std::vector<std::size_t>& bounds, std::size_t min_segment,
                                        SplitSearch& search, SplitCounts& searched) {
  std::optional<Candidate> best;
  searched = {};
  for (std::size_t k = 0; k + 1 < bounds.size(); ++k) {
    auto segment = series.subspan(bounds[k], bounds[k + 1] - bounds[k]);
    SplitCounts counts = candidate_splits(segment.size(), min_segment);
    searched.to_end += counts.to_end;
    searched.inside += counts.inside;
    if (auto split = search.run(segment, min_segment); split && (!best || split->q_hat > best->q_hat))
      best = Candidate{bounds[k] + split->tau, split->q_hat, bounds[k], split->tau, split->kappa};
  }
  return best;
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
    p.before_index = p.index - 1;
    p.runs_before = p.index - start;
    p.runs_after = end - p.index;
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

// Otava's merge, with the p-values kept: while the smallest change is below the minimum,
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

SplitCounts candidate_splits(std::size_t runs, std::size_t min_segment) {
  std::size_t m = std::max<std::size_t>(min_segment, 1);
  if (runs < 2 * m) return {};
  std::size_t taus = runs - 2 * m + 1;  // tau from m to runs - m; for each, kappa from tau + m to runs
  return {taus, taus * (taus - 1) / 2};
}

double level_share(bool to_end, const SplitCounts& searched) {
  if (searched.inside == 0)
    return to_end && searched.to_end > 0 ? 1.0 / static_cast<double>(searched.to_end) : 0;
  return 0.5 / static_cast<double>(to_end ? searched.to_end : searched.inside);
}

double split_p_value(std::span<const double> x, std::span<const double> y, bool to_end,
                     const SplitCounts& searched) {
  if (x.empty() || y.empty() || x.size() + y.size() < 3) return 1;
  double mx = mean_of(x), my = mean_of(y), squares = 0;
  for (double v : x) squares += (v - mx) * (v - mx);
  for (double v : y) squares += (v - my) * (v - my);
  double df = static_cast<double>(x.size() + y.size() - 2);
  double se =
      std::sqrt(squares / df * (1 / static_cast<double>(x.size()) + 1 / static_cast<double>(y.size())));
  // Two constant levels (their spread only the rounding of the means): no noise to mistake for a change.
  if (!(se > 1e-12 * std::max(std::fabs(mx), std::fabs(my)))) return mx == my ? 1 : 0;
  double t = std::fabs(my - mx) / se;
  double two_sided = 2 * boost::math::cdf(boost::math::complement(boost::math::students_t(df), t));
  double share = level_share(to_end, searched);
  return share > 0 ? std::min(1.0, two_sided / share) : 1;
}

std::vector<ChangePoint> find_change_points(std::span<const double> series, const ChangePointOptions& o,
                                            const MinEffect& min_effect) {
  std::vector<ChangePoint> found;
  std::vector<std::size_t> bounds = {0, series.size()};
  SplitSearch search;
  for (;;) {
    SplitCounts searched;
    auto candidate = best_candidate(series, bounds, o.min_segment, search, searched);
    // No split, or no divergence at all (a constant series): nothing to test.
    if (!candidate || !(candidate->q_hat > 0)) break;
    auto x = series.subspan(candidate->start, candidate->tau);
    auto y = series.subspan(candidate->index, candidate->kappa - candidate->tau);
    bool to_end = *std::upper_bound(bounds.begin(), bounds.end(), candidate->index) ==
                  candidate->start + candidate->kappa;
    double p = split_p_value(x, y, to_end, searched);
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

std::optional<double> run_noise(std::span<const double> series, std::span<const std::size_t> changes) {
  double squares = 0;
  std::size_t df = 0;
  for (std::size_t k = 0; k <= changes.size(); ++k) {
    std::size_t start = k == 0 ? 0 : changes[k - 1];
    std::size_t end = k == changes.size() ? series.size() : changes[k];
    if (end - start < 2) continue;
    auto segment = series.subspan(start, end - start);
    double m = mean_of(segment);
    for (double v : segment) squares += (v - m) * (v - m);
    df += segment.size() - 1;
  }
  if (df == 0) return std::nullopt;
  return std::sqrt(squares / static_cast<double>(df));
}

std::optional<double> detectable_shift(std::size_t before, std::size_t after, double noise,
                                       const ChangePointOptions& o) {
  std::size_t m = std::max<std::size_t>(o.min_segment, 1);
  if (before < m || after < m || before + after < 3) return std::nullopt;
  double df = static_cast<double>(before + after - 2);
  double level = o.max_p_value * level_share(true, candidate_splits(before + after, o.min_segment));
  double critical = boost::math::quantile(boost::math::students_t(df), 1 - level / 2);
  // The power at a noncentrality: the chance that t passes the critical value on the change's side.
  auto power = [&](double ncp) {
    return boost::math::cdf(boost::math::complement(boost::math::non_central_t(df, ncp), critical));
  };
  double low = 0, high = critical + 10;  // the power rises with the noncentrality: bisect to 1e-6
  while (power(high) < o.power) high *= 2;
  while (high - low > 1e-6 * high) (power((low + high) / 2) < o.power ? low : high) = (low + high) / 2;
  return high * noise * std::sqrt(1 / static_cast<double>(before) + 1 / static_cast<double>(after));
}

}  // namespace perfgate
