#include "analyse/step_stats.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace perfgate {

double percentile(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return 0;
  double rank = q / 100.0 * static_cast<double>(sorted.size() - 1);
  auto lower = static_cast<std::size_t>(std::floor(rank));
  std::size_t upper = std::min(lower + 1, sorted.size() - 1);
  double fraction = rank - static_cast<double>(lower);
  return sorted[lower] + (sorted[upper] - sorted[lower]) * fraction;
}

std::optional<SummaryStats> summarize(std::vector<double> values) {
  if (values.empty()) return std::nullopt;
  std::sort(values.begin(), values.end());
  SummaryStats s;
  s.count = values.size();
  s.mean = std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(s.count);
  s.median = percentile(values, 50);
  s.min = values.front();
  s.max = values.back();
  s.p90 = percentile(values, 90);
  if (s.count >= 2) {
    double squares = 0;
    for (double v : values) squares += (v - s.mean) * (v - s.mean);
    s.stddev = std::sqrt(squares / static_cast<double>(s.count - 1));
  }
  return s;
}

}  // namespace perfgate
