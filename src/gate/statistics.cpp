#include "gate/statistics.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <vector>

namespace perfgate {
namespace {

// Exact samples up to this size; beyond it (or with ties) the normal approximation is accurate.
constexpr std::size_t kExactMax = 50;

// P(U >= u) for sample sizes m, n without ties. U's distribution follows
// p(m, n, k) = m/(m+n) p(m-1, n, k-n) + n/(m+n) p(m, n-1, k): the largest of all m+n values is
// an x (then it beats all n y's) or a y.
double exact_upper_tail(std::size_t m, std::size_t n, double u) {
  // rows[i]: the distribution for (i, j) over k = 0..i*j, for the current j.
  std::vector<std::vector<double>> rows(m + 1);
  for (std::size_t i = 0; i <= m; ++i) rows[i] = {1.0};  // j = 0: U is 0
  for (std::size_t j = 1; j <= n; ++j) {
    std::vector<std::vector<double>> next(m + 1);
    next[0] = {1.0};
    for (std::size_t i = 1; i <= m; ++i) {
      std::vector<double> p(i * j + 1, 0.0);
      double from_x = static_cast<double>(i) / static_cast<double>(i + j);
      double from_y = static_cast<double>(j) / static_cast<double>(i + j);
      for (std::size_t k = 0; k < next[i - 1].size(); ++k) p[k + j] += from_x * next[i - 1][k];
      for (std::size_t k = 0; k < rows[i].size(); ++k) p[k] += from_y * rows[i][k];
      next[i] = std::move(p);
    }
    rows = std::move(next);
  }
  const std::vector<double>& dist = rows[m];
  double tail = 0;
  for (std::size_t k = 0; k < dist.size(); ++k)
    if (static_cast<double>(k) >= u - 1e-9) tail += dist[k];
  return std::min(1.0, tail);
}

// Normal approximation with the tie correction and a continuity correction.
double normal_upper_tail(std::span<const double> x, std::span<const double> y, double u) {
  double m = static_cast<double>(x.size()), n = static_cast<double>(y.size()), total = m + n;
  std::map<double, std::size_t> counts;
  for (double v : x) ++counts[v];
  for (double v : y) ++counts[v];
  double ties = 0;
  for (const auto& [value, t] : counts) ties += std::pow(static_cast<double>(t), 3) - static_cast<double>(t);
  double variance = m * n / 12.0 * ((total + 1) - ties / (total * (total - 1)));
  if (variance <= 0) return 1;
  double z = (u - m * n / 2.0 - 0.5) / std::sqrt(variance);
  return 0.5 * std::erfc(z / std::sqrt(2.0));
}

bool has_ties(std::span<const double> x, std::span<const double> y) {
  std::vector<double> all(x.begin(), x.end());
  all.insert(all.end(), y.begin(), y.end());
  std::sort(all.begin(), all.end());
  return std::adjacent_find(all.begin(), all.end()) != all.end();
}

}  // namespace

MannWhitney mann_whitney_greater(std::span<const double> x, std::span<const double> y) {
  MannWhitney r;
  if (x.empty() || y.empty()) return r;
  for (double a : x)
    for (double b : y) r.u += a > b ? 1.0 : a == b ? 0.5 : 0.0;
  r.exact = !has_ties(x, y) && x.size() <= kExactMax && y.size() <= kExactMax;
  r.p_value = r.exact ? exact_upper_tail(x.size(), y.size(), r.u) : normal_upper_tail(x, y, r.u);
  return r;
}

double smallest_exact_p(std::size_t m, std::size_t n) {
  // 1 / C(m+n, m), as a product to stay in range.
  double p = 1;
  for (std::size_t i = 1; i <= m; ++i) p *= static_cast<double>(i) / static_cast<double>(n + i);
  return p;
}

double statistic(std::span<const double> values, Statistic s) {
  if (values.empty()) return 0;
  if (s == Statistic::Mean)
    return std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(values.size());
  std::vector<double> sorted(values.begin(), values.end());
  std::sort(sorted.begin(), sorted.end());
  std::size_t mid = sorted.size() / 2;
  return sorted.size() % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

}  // namespace perfgate
