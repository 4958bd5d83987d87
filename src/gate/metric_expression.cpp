#include "gate/metric_expression.h"

namespace perfgate {

std::optional<double> MetricLookup::operator()(const std::optional<MetricReference>& reference) const {
  if (!reference) return std::nullopt;
  Metric m = reference->metric;
  switch (reference->of) {
    case MetricReference::Of::Current:
      return current(m);
    case MetricReference::Of::Baseline:
      return base(m);
    case MetricReference::Of::Delta: {
      auto c = current(m), b = base(m);
      if (!c || !b) return std::nullopt;
      return *c - *b;
    }
    case MetricReference::Of::Ratio: {
      auto c = current(m), b = base(m);
      if (!c || !b || *b == 0) return std::nullopt;
      return *c / *b;
    }
  }
  return std::nullopt;
}

MetricExpression::MetricExpression(std::string_view text) : e_(text) {
  for (const std::string& name : e_.variables()) references_.push_back(metric_reference(name));
}

std::string MetricExpression::first_missing(const MetricLookup& lookup) const {
  std::vector<std::optional<double>> v = values(lookup);
  for (std::size_t i = 0; i < v.size(); ++i)
    if (!v[i]) return e_.variables()[i];
  return "";
}

std::vector<std::optional<double>> MetricExpression::values(const MetricLookup& lookup) const {
  std::vector<std::optional<double>> out;
  out.reserve(references_.size());
  for (const auto& reference : references_) out.push_back(lookup(reference));
  return out;
}

}  // namespace perfgate
