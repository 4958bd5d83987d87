#include "gate/rule_check.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <optional>
#include <stdexcept>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "common/metrics.h"
#include "common/suggest.h"
#include "common/tables.h"
#include "gate/capture_words.h"
#include "gate/expression.h"
#include "gate/message_template.h"
#include "gate/offenders.h"

namespace perfgate {
namespace {

constexpr std::array<std::string_view, 3> kPrefixes = {"baseline.", "delta.", "ratio."};

// An expression quoted in an error: whole when short, else its start (a 100,000-term expression
// would bury the message).
std::string shortened(const std::string& text) {
  constexpr std::size_t kShown = 60;
  if (text.size() <= kShown) return text;
  return fmt::format("{}... ({} characters)", text.substr(0, kShown), text.size());
}

std::pair<std::string_view, std::string_view> split_prefix(std::string_view name) {
  for (std::string_view p : kPrefixes)
    if (name.starts_with(p)) return {p, name.substr(p.size())};
  return {"", name};
}

std::string metric_suggestion(std::string_view name) {
  auto [prefix, rest] = split_prefix(name);
  std::vector<std::string_view> names;
  for (const MetricInfo& m : metric_catalog()) names.push_back(m.name);
  std::string best = closest_match(rest, names);
  return best.empty() ? "" : fmt::format(", did you mean '{}{}'?", prefix, best);
}

std::string placeholder_suggestion(std::string_view name, const std::vector<std::string>& names) {
  std::vector<std::string_view> candidates(names.begin(), names.end());
  std::string best = closest_match(name, candidates);
  return best.empty() ? metric_suggestion(name) : fmt::format(", did you mean '{{{}}}'?", best);
}

std::optional<double> parse_number(std::string_view text) {
  double v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  // from_chars reads "nan", "inf" and "infinity": a non-finite threshold would never fire.
  if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

// Multipliers of the units a change may be written in, by the metric's unit.
std::optional<double> unit_scale(std::string_view unit, std::string_view suffix) {
  struct Scale {
    std::string_view metric_unit, suffix;
    double factor;
  };
  static constexpr Scale kScales[] = {{"us", "ns", 1e-3},
                                      {"us", "us", 1},
                                      {"us", "µs", 1},
                                      {"us", "ms", 1e3},
                                      {"us", "s", 1e6},
                                      {"%", "pts", 1},
                                      {"%", "pt", 1},
                                      {"bytes", "B", 1},
                                      {"bytes", "kB", 1e3},
                                      {"bytes", "KB", 1e3},
                                      {"bytes", "MB", 1e6},
                                      {"bytes", "GB", 1e9},
                                      {"bytes", "KiB", 1024.0},
                                      {"bytes", "MiB", 1048576.0},
                                      {"bytes", "GiB", 1073741824.0}};
  for (const Scale& s : kScales)
    if (s.metric_unit == unit && s.suffix == suffix) return s.factor;
  if (!unit.empty() && suffix == unit) return 1;  // "+2 count", "+1e12 flop": the catalog unit written out
  return std::nullopt;
}

// The absolute units a change of a metric in `unit` may be written in: the first, then the others.
std::pair<std::string, std::string> change_units(std::string_view unit) {
  if (unit == "us") return {"ms", " (also ns, us, s)"};
  if (unit == "%") return {"pts", " (percentage points)"};
  if (unit == "bytes") return {"MiB", " (also B, kB, MB, GB, KiB, GiB)"};
  return {std::string(unit), ""};
}

// "'+10%' (relative to the baseline) or '+10 ms' (also ns, us, s)": the accepted forms of a change.
std::string change_forms(char sign, std::string_view amount, std::string_view unit) {
  std::string out = fmt::format("'{}{}%' (relative to the baseline)", sign, amount);
  auto [first, others] = change_units(unit);
  if (!first.empty()) out += fmt::format(" or '{}{} {}'{}", sign, amount, first, others);
  return out;
}

const YAML::Node key_or(const YAML::Node& at, std::string_view key) {
  YAML::Node v = at.IsMap() ? at[std::string(key)] : YAML::Node();
  return v ? v : at;
}

class RuleChecker {
 public:
  RuleChecker(YamlCheck& check, const YAML::Node& at, Rule& rule) : check_(check), at_(at), r_(rule) {}

  bool run() {
    std::size_t before = check_.errors().size();
    check_value_source();
    check_expressions();
    check_thresholds();
    check_test();
    check_offenders();
    check_see();
    check_templates();
    check_families();
    return check_.errors().size() == before;
  }

 private:
  void error(std::string_view key, const std::string& message) {
    check_.error(key_or(at_, key), fmt::format("rule '{}': {}", r_.id, message));
  }

  // A declared family agrees with the metrics the rule's value and conditions read: a Neuron rule
  // reads neuron.* metrics only, a rule of GPU or CPU-only traces none (gain, saves and pass_needs
  // qualify a finding; they do not say what it is about).
  void check_families() {
    if (r_.families.empty()) return;
    bool neuron = false, other = false;
    auto add = [&](std::string_view name) {
      std::optional<Metric> id = metric_id(split_prefix(name).second);
      if (id) (is_neuron_metric(*id) ? neuron : other) = true;
    };
    if (!r_.metric.empty()) add(r_.metric);
    for (const std::string* text : {&r_.value, &r_.condition, &r_.applies_if}) {
      if (text->empty()) continue;
      try {
        Expression e(*text);
        for (const std::string& name : e.variables()) add(name);
      } catch (const std::invalid_argument&) {
        // reported by check_expressions
      }
    }
    bool declares_neuron =
        std::find(r_.families.begin(), r_.families.end(), DeviceFamily::Neuron) != r_.families.end();
    bool declares_other = r_.families.size() > (declares_neuron ? 1u : 0u);
    if (neuron && !declares_neuron)
      error("family",
            "reads neuron.* metrics, which only a Neuron profile has: add 'neuron' to its 'family'");
    if (other && !declares_other)
      error("family",
            "reads metrics of GPU or CPU-only traces, which a Neuron profile does not have: add 'gpu' "
            "or 'cpu-only' to its 'family'");
  }

  void check_value_source() {
    if (r_.title.empty()) error("title", "needs a 'title'");
    if (!r_.metric.empty() && !r_.value.empty()) error("value", "give either 'metric' or 'value', not both");
    if (r_.metric.empty() && r_.value.empty() && r_.condition.empty())
      error("metric", "needs a 'metric', a 'value' expression or a 'condition'");
    if (!r_.metric.empty() && !is_metric_reference(r_.metric))
      error("metric", fmt::format("unknown metric '{}'{}", r_.metric, metric_suggestion(r_.metric)));
  }

  void expression(std::string_view key, const std::string& text) {
    if (text.empty()) return;
    try {
      Expression e(text);
      for (const std::string& name : e.variables())
        if (!is_metric_reference(name))
          error(key, fmt::format("unknown metric '{}' in '{}'{}", name, key, metric_suggestion(name)));
    } catch (const std::invalid_argument& e) {
      error(key, fmt::format("invalid expression in '{}': {}: {}", key, shortened(text), e.what()));
    }
  }

  void check_expressions() {
    expression("value", r_.value);
    expression("condition", r_.condition);
    expression("applies_if", r_.applies_if);
    expression("gain", r_.gain);
    expression("saves", r_.saves);
    expression("on_path", r_.on_path);
    expression("pass_needs", r_.pass_needs);
    for (const auto& r : r_.recommendations)
      if (!r.when.empty()) expression("recommendations", r.when);
    for (const auto& [name, text] : r_.values) {
      if (is_metric_reference(name) || std::string_view(name).find('.') != std::string_view::npos)
        error("values", fmt::format("value name '{}' must not contain '.'", name));
      expression("values", text);
    }
  }

  std::optional<double> absolute(std::string_view key, const std::string& text) {
    if (text.empty()) return std::nullopt;
    auto v = parse_number(text);
    if (!v)
      error(key, fmt::format("'{}' must be a finite number; got '{}' (a change such as '+5%' needs 'compare: "
                             "baseline')",
                             key, text));
    return v;
  }

  std::optional<ChangeLimit> change(std::string_view key, const std::string& text) {
    if (text.empty() || !r_.better) return std::nullopt;
    std::string why;
    auto limit = parse_change(text, reference_unit(r_.metric), *r_.better, why);
    if (!limit) error(key, fmt::format("'{}: {}': {}", key, text, why));
    return limit;
  }

  void check_thresholds() {
    bool has_thresholds = !r_.warn_text.empty() || !r_.fail_text.empty();
    if (!r_.condition.empty() && has_thresholds)
      error("condition", "give either a 'condition' or thresholds ('warn', 'fail', 'threshold'), not both");
    if (r_.condition.empty() && !has_thresholds)
      error("warn", "needs thresholds ('warn', 'fail' or 'threshold') or a 'condition'");
    if (has_thresholds && !r_.better && !(at_.IsMap() && at_["better"]))  // a bad value is reported already
      error("better", "needs 'better: lower' or 'better: higher' to know which side of a threshold is bad");
    r_.warn = r_.fail = std::nullopt;
    r_.warn_change = r_.fail_change = std::nullopt;
    if (r_.compare_baseline) {
      if (r_.metric.empty() || is_baseline_reference(r_.metric))
        error("compare",
              "'compare: baseline' needs a plain catalog 'metric' (it reads the baseline's value itself)");
      r_.warn_change = change("warn", r_.warn_text);
      r_.fail_change = change("fail", r_.fail_text);
      check_change_order();
      return;
    }
    r_.warn = absolute("warn", r_.warn_text);
    r_.fail = absolute("fail", r_.fail_text);
    if (r_.warn && r_.fail && r_.better) {
      bool ordered = *r_.better == Better::Higher ? *r_.fail <= *r_.warn : *r_.fail >= *r_.warn;
      if (!ordered) error("fail", "the 'fail' threshold must be at least as bad as 'warn'");
    }
  }

  // A relative limit and an amount cannot be ordered without the baseline's value, which is not known
  // when the rules load: both limits must be of one kind, so that `fail` is checked to be the larger.
  void check_change_order() {
    if (!r_.warn_change || !r_.fail_change) return;
    const ChangeLimit &warn = *r_.warn_change, &fail = *r_.fail_change;
    if (warn.relative != fail.relative)
      return error("fail", fmt::format("'warn: {}' is {} and 'fail: {}' {}: they cannot be ordered without "
                                       "the baseline; give both in % or both in the metric's unit",
                                       warn.text, warn.relative ? "relative" : "an amount", fail.text,
                                       fail.relative ? "relative" : "an amount"));
    if (fail.amount < warn.amount) error("fail", "the 'fail' limit must be at least the 'warn' limit");
  }

  void check_test() {
    if (r_.test == StepTest::None) return;
    std::optional<Metric> metric = metric_id(r_.metric);
    bool step_metric = metric == Metric::StepsMeanUs || metric == Metric::StepsMedianUs;
    if (!r_.compare_baseline || !step_metric)
      error("test", fmt::format("'test: {}' compares per-step durations: it needs 'compare: baseline' and "
                                "'metric: steps.median_us' or 'steps.mean_us'",
                                r_.test == StepTest::RobustT ? "robust-t" : "mann-whitney"));
  }

  // The columns of the report's tables of that name (common/table_catalog.def: `ranks` is a run's
  // workers or its Neuron profiles), or an error naming the nearest table.
  std::optional<std::vector<std::string_view>> known_table(std::string_view key, const std::string& name) {
    std::optional<std::vector<std::string_view>> columns;
    for (std::size_t t = 0; t < kTableCount; ++t)
      if (kTableNames[t] == name) {
        if (!columns) columns.emplace();
        for (std::string_view column : kTableColumnNames[t])
          if (std::find(columns->begin(), columns->end(), column) == columns->end())
            columns->push_back(column);
      }
    if (!columns)
      error(key, fmt::format("unknown table '{}' in '{}'{}", name, key, did_you_mean(name, kTableNames)));
    return columns;
  }

  void check_see() {
    for (const std::string& name : r_.see) known_table("see", name);
  }

  void check_offenders() {
    if (!r_.offenders) return;
    const OffenderQuery& q = *r_.offenders;
    std::optional<std::vector<std::string_view>> table = known_table("offenders", q.table);
    if (!table) return;
    std::span<const std::string_view> columns = *table;
    auto column = [&](std::string_view what, const std::string& name) {
      if (name.empty() || std::find(columns.begin(), columns.end(), name) != columns.end()) return;
      error("offenders", fmt::format("table '{}' has no column '{}' ('{}'){}", q.table, name, what,
                                     did_you_mean(name, columns)));
    };
    column("sort", q.sort);
    for (const std::string& name : label_columns(q.label)) column("label", name);
    column("show", q.show);
    if (q.where.empty()) return;
    try {
      Expression where(q.where);
      for (const std::string& name : where.variables()) column("where", name);
    } catch (const std::invalid_argument& e) {
      error("offenders", fmt::format("invalid expression in 'where': {}: {}", shortened(q.where), e.what()));
    }
  }

  void check_templates() {
    std::vector<std::string> names = {"value", "threshold", "baseline",  "delta",
                                      "limit", "gain",      "offenders", "step_time"};
    for (const auto& v : r_.values) names.push_back(v.first);
    // The capture's words (vocabulary: words), each also capitalised for the start of a sentence.
    for (std::string_view word : vocabulary_word_names()) {
      names.emplace_back(word);
      names.push_back(std::string(1, static_cast<char>(word.front() - 'a' + 'A')) +
                      std::string(word.substr(1)));
    }
    std::vector<std::pair<std::string_view, const std::string*>> texts = {
        {"problem", &r_.problem}, {"recommendation", &r_.recommendation}};
    for (const auto& r : r_.recommendations) texts.emplace_back("recommendations", &r.text);
    for (const auto& [key, text_ptr] : texts) {
      const std::string& text = *text_ptr;
      std::string why;
      for (const std::string& p : template_placeholders(text, why)) {
        if (p == "offenders" && !r_.offenders)
          error(key, "'{offenders}' needs an 'offenders' query");
        else if (std::find(names.begin(), names.end(), p) == names.end() && !is_metric_reference(p))
          error(key, fmt::format("unknown placeholder '{{{}}}' in '{}'{}", p, key,
                                 placeholder_suggestion(p, names)));
      }
      if (!why.empty()) error(key, fmt::format("'{}': {}", key, why));
    }
  }

  YamlCheck& check_;
  const YAML::Node& at_;
  Rule& r_;
};

}  // namespace

std::string rule_limits_text(const Rule& r) {
  if (!r.condition.empty()) return "when " + r.condition;
  std::string side = r.better == Better::Higher ? "<" : ">";
  std::string out;
  for (const auto& [level, text] : {std::pair{"warn", &r.warn_text}, std::pair{"fail", &r.fail_text}})
    if (!text->empty())
      out += fmt::format("{}{} {}{}", out.empty() ? "" : ", ", level, r.compare_baseline ? "" : side + " ",
                         *text);
  return out + (r.compare_baseline ? " vs baseline" : "");
}

bool valid_rule_id(std::string_view id) {
  if (id.empty() ||
      !(std::islower(static_cast<unsigned char>(id[0])) || std::isdigit(static_cast<unsigned char>(id[0]))))
    return false;
  return std::all_of(id.begin(), id.end(), [](char c) {
    return std::islower(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)) ||
           c == '.' || c == '-';
  });
}

bool check_rule(YamlCheck& check, const YAML::Node& at, Rule& rule) {
  return RuleChecker(check, at, rule).run();
}

std::optional<MetricReference> metric_reference(std::string_view name) {
  auto [prefix, rest] = split_prefix(name);
  std::optional<Metric> metric = metric_id(rest);
  if (!metric) return std::nullopt;
  MetricReference::Of of = prefix == "baseline." ? MetricReference::Of::Baseline
                           : prefix == "delta."  ? MetricReference::Of::Delta
                           : prefix == "ratio."  ? MetricReference::Of::Ratio
                                                 : MetricReference::Of::Current;
  return MetricReference{of, *metric};
}

bool is_metric_reference(std::string_view name) {
  return metric_reference(name).has_value();
}

bool is_baseline_reference(std::string_view name) {
  return !split_prefix(name).first.empty();
}

std::string reference_unit(const MetricReference& reference) {
  if (reference.of == MetricReference::Of::Ratio) return "ratio";
  return std::string(metric_info(reference.metric).unit);
}

std::string reference_unit(std::string_view name) {
  auto [prefix, rest] = split_prefix(name);
  if (prefix == "ratio.") return "ratio";
  std::optional<Metric> metric = metric_id(rest);
  return metric ? std::string(metric_info(*metric).unit) : "";
}

std::optional<ChangeLimit> parse_change(std::string_view text, std::string_view metric_unit, Better better,
                                        std::string& error) {
  std::string_view t = text;
  while (!t.empty() && t.front() == ' ') t.remove_prefix(1);
  while (!t.empty() && t.back() == ' ') t.remove_suffix(1);
  char sign = !t.empty() && (t.front() == '+' || t.front() == '-') ? t.front() : 0;
  if (sign) t.remove_prefix(1);
  std::size_t number_end = 0;
  while (number_end < t.size() &&
         (std::isdigit(static_cast<unsigned char>(t[number_end])) || t[number_end] == '.'))
    ++number_end;
  auto amount = parse_number(t.substr(0, number_end));
  std::string_view suffix = t.substr(number_end);
  while (!suffix.empty() && suffix.front() == ' ') suffix.remove_prefix(1);
  if (!amount) {
    error = "expected a change such as '+5%', '+3 ms' or '-2 pts'";
    return std::nullopt;
  }
  if (suffix.empty()) {
    error =
        fmt::format("a change against the baseline needs a unit: {}",
                    change_forms(better == Better::Lower ? '+' : '-', t.substr(0, number_end), metric_unit));
    return std::nullopt;
  }
  if (sign == '-' && better == Better::Lower) {
    error = "lower is better for this metric, so the limit is an increase: write it with '+'";
    return std::nullopt;
  }
  if (sign == '+' && better == Better::Higher) {
    error = "higher is better for this metric, so the limit is a decrease: write it with '-'";
    return std::nullopt;
  }
  ChangeLimit limit;
  limit.text = std::string(text);
  if (suffix == "%") {
    limit.relative = true;
    limit.amount = *amount / 100.0;
    return limit;
  }
  auto scale = unit_scale(metric_unit, suffix);
  if (!scale) {
    error =
        fmt::format("unit '{}' does not fit a metric in '{}': write {}", suffix,
                    metric_unit.empty() ? "no unit" : metric_unit,
                    change_forms(better == Better::Lower ? '+' : '-', t.substr(0, number_end), metric_unit));
    return std::nullopt;
  }
  limit.amount = *amount * *scale;
  return limit;
}

}  // namespace perfgate
