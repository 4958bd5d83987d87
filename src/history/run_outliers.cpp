// Outliers on their own, set aside before the change-point search (docs/trends.md, "Outliers"): one
// slow run inflates the t-test's pooled variance, so that a lasting shift after it can hide (issue 95:
// 13 runs, one early run +40%, the last 6 +40%, had no change point). A run is judged against the
// median of its neighbours on each side, a Hampel identifier (F. R. Hampel, "The influence curve and
// its role in robust estimation", JASA 69(346), 1974; R. K. Pearson, "Outliers in process modeling
// and identification", IEEE Trans. Control Systems Technology 10(1), 2002) with the window split at
// the run, so that the first run of a shift, at the level of the runs after it, is none.
#include <algorithm>
#include <cmath>

#include "history/change_points.h"

namespace perfgate {
namespace {

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  std::size_t h = v.size() / 2;
  return v.size() % 2 ? v[h] : (v[h - 1] + v[h]) / 2;
}

double median_between(std::span<const double> s, std::size_t begin, std::size_t end) {
  return median_of(std::vector<double>(s.begin() + static_cast<std::ptrdiff_t>(begin),
                                       s.begin() + static_cast<std::ptrdiff_t>(end)));
}

// How many points in a row around i (i included) are nearer its value than `level`.
std::size_t points_at_its_level(std::span<const double> s, std::size_t i, double level) {
  auto near = [&](std::size_t j) { return std::fabs(s[j] - s[i]) < std::fabs(s[j] - level); };
  std::size_t count = 1;
  for (std::size_t j = i; j > 0 && near(j - 1); --j) ++count;
  for (std::size_t j = i + 1; j < s.size() && near(j); ++j) ++count;
  return count;
}

}  // namespace

double robust_noise(std::span<const double> s) {
  if (s.size() < 2) return 0;
  std::vector<double> steps, sizes;
  for (std::size_t i = 0; i + 1 < s.size(); ++i) steps.push_back(std::fabs(s[i + 1] - s[i]));
  for (double v : s) sizes.push_back(std::fabs(v));
  // The difference of two points of noise sd has sd * sqrt 2, and its median absolute value is
  // 0.6745 of that: sd = 1.4826 median / sqrt 2.
  double noise = 1.4826 * median_of(steps) / std::sqrt(2.0);
  return std::max(noise, 1e-9 * median_of(sizes));
}

std::vector<Outlier> isolated_outliers(std::span<const double> s, std::size_t min_segment) {
  std::vector<Outlier> out;
  if (min_segment < 2 || s.size() < 4) return out;
  double limit = kOutlierNoiseWidths * robust_noise(s);
  for (std::size_t i = 0; i + 1 < s.size(); ++i) {
    std::size_t from = i >= kOutlierNeighbours ? i - kOutlierNeighbours : 0;
    double after = median_between(s, i + 1, std::min(s.size(), i + 1 + kOutlierNeighbours));
    double to_after = s[i] - after;
    if (!(std::fabs(to_after) > limit)) continue;
    double level = after;
    if (i > 0) {  // the first point has only the points after it
      level = median_between(s, from, i);
      double to_before = s[i] - level;
      if (!(std::fabs(to_before) > limit) || (to_before > 0) != (to_after > 0)) continue;
    }
    if (points_at_its_level(s, i, level) >= min_segment) continue;
    Outlier o{i, s[i], level, std::nullopt};
    if (level != 0) o.change_pct = 100 * (s[i] - level) / std::fabs(level);
    out.push_back(o);
  }
  return out;
}

SeriesChanges find_changes(std::span<const double> series, const ChangePointOptions& options,
                           const MinEffect& min_effect) {
  SeriesChanges r;
  r.outliers = isolated_outliers(series, options.min_segment);
  std::size_t next_outlier = 0;
  for (std::size_t i = 0; i < series.size(); ++i) {
    if (next_outlier < r.outliers.size() && r.outliers[next_outlier].index == i) {
      ++next_outlier;
      continue;
    }
    r.kept.push_back(series[i]);
    r.kept_index.push_back(i);
  }
  r.change_points = find_change_points(r.kept, options, min_effect);
  for (ChangePoint& c : r.change_points) {
    r.kept_changes.push_back(c.index);
    c.before_index = r.kept_index[c.index - 1];
    c.index = r.kept_index[c.index];
  }
  return r;
}

}  // namespace perfgate
