// A rule's expression over metrics, with its names resolved once when it is parsed, and the metric
// values it reads: the run's, and baseline./delta./ratio. of them. Shared by the rules' evaluation
// and the findings' agreement (agreement.h), so that both read a metric name the same way.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "baseline/baseline.h"
#include "common/metrics.h"
#include "gate/expression.h"
#include "gate/rule_check.h"
#include "report_model/report.h"

namespace perfgate {

// Metric values by reference: the run's, and baseline./delta./ratio. of them. Empty for no
// reference (a name the catalog lacks), and for the baseline's where there is none.
class MetricLookup {
 public:
  MetricLookup(const ReportModel& report, const Baseline* baseline) : report_(report), baseline_(baseline) {}

  std::optional<double> operator()(const std::optional<MetricReference>& reference) const;
  std::optional<double> current(Metric metric) const { return report_.metric(metric); }
  std::optional<double> base(Metric metric) const {
    return baseline_ ? baseline_->metric(metric) : std::nullopt;
  }

 private:
  const ReportModel& report_;
  const Baseline* baseline_;
};

// An expression of a rule with its metric names resolved once, when it is parsed.
class MetricExpression {
 public:
  explicit MetricExpression(std::string_view text);

  std::optional<double> evaluate(const MetricLookup& lookup) const { return e_.evaluate(values(lookup)); }
  // The first name, in name order, that has no value: what a reason says is missing.
  std::string first_missing(const MetricLookup& lookup) const;
  const std::vector<std::string>& variables() const { return e_.variables(); }
  // By variables().
  const std::vector<std::optional<MetricReference>>& references() const { return references_; }

 private:
  std::vector<std::optional<double>> values(const MetricLookup& lookup) const;

  Expression e_;
  std::vector<std::optional<MetricReference>> references_;
};

}  // namespace perfgate
