// Reproducible Gaussian noise for series with a known shape: Box-Muller on std::mt19937_64, whose
// output the C++ standard fixes (std::normal_distribution differs between standard libraries).
#pragma once

#include <cmath>
#include <cstdint>
#include <functional>
#include <numbers>
#include <random>
#include <vector>

namespace perfgate::testing {

class GaussianNoise {
 public:
  explicit GaussianNoise(std::uint64_t seed) : engine_(seed) {}

  double next(double sd) {
    double u1 = uniform(), u2 = uniform();
    return sd * std::sqrt(-2 * std::log(u1)) * std::cos(2 * std::numbers::pi * u2);
  }

 private:
  double uniform() {  // in (0, 1]
    return (static_cast<double>(engine_() >> 11) + 1) / 9007199254740992.0;
  }
  std::mt19937_64 engine_;
};

// `n` points: level(i) plus noise of standard deviation `sd_pct` percent of the level.
inline std::vector<double> noisy_series(std::size_t n, std::uint64_t seed,
                                        const std::function<double(std::size_t)>& level, double sd_pct) {
  GaussianNoise noise(seed);
  std::vector<double> out;
  for (std::size_t i = 0; i < n; ++i) out.push_back(level(i) + noise.next(level(i) * sd_pct / 100));
  return out;
}

}  // namespace perfgate::testing
