// The `rules:` section: defining and overriding rules, checks with file:line:col and suggestions,
// command-line overrides, the effective rule set, and hostile files.
#include <gtest/gtest.h>

#include <algorithm>

#include "common/errors.h"
#include "common/suggest.h"
#include "gate/gate.h"
#include "gate/rules.h"
#include "support/helpers.h"

namespace perfgate::testing {
namespace {

std::string rules_file(const std::string& yaml) {
  return write_text(temp_dir() + "/rules.yaml", yaml);
}

template <typename F>
std::string config_error(F f) {
  try {
    f();
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "no error";
}

std::string load_error(const std::string& yaml) {
  std::string path = rules_file(yaml);
  return config_error([&] { (void)load_rule_book({path}); });
}

const Rule* rule(const RuleSet& set, std::string_view id) {
  for (const Rule& r : set.rules)
    if (r.id == id) return &r;
  return nullptr;
}

const Rule* rule(const RuleBook& book, std::string_view id) {
  return rule(book.rules, id);
}

TEST(RuleSchema, DefineOverrideAndDisable) {
  RuleBook set = load_rule_book({rules_file(R"(
rules:
  - id: gpu.low-utilization
    warn: 40
    fail: 20
  - id: steps.outliers
    enabled: false
  - id: team.step-budget
    title: Step over budget
    metric: steps.median_us
    better: lower
    threshold: 250000
    severity: error
)")});
  const Rule* low = rule(set, "gpu.low-utilization");
  ASSERT_TRUE(low);
  EXPECT_EQ(*low->warn, 40);
  EXPECT_EQ(*low->fail, 20);
  EXPECT_EQ(low->title, "GPU utilization is low");  // kept from the default
  EXPECT_FALSE(rule(set, "steps.outliers")->enabled);
  const Rule* budget = rule(set, "team.step-budget");
  ASSERT_TRUE(budget);
  EXPECT_FALSE(budget->warn);
  EXPECT_EQ(*budget->fail, 250000);  // `threshold` at severity error is the fail threshold
  EXPECT_EQ(set.rules.rules.back().id, "team.step-budget");
}

TEST(RuleSchema, BaselineLimitsInTheMetricsUnit) {
  RuleBook set = load_rule_book({rules_file(R"(
rules:
  - id: t.ms
    title: t
    metric: steps.mean_us
    compare: baseline
    better: lower
    warn: "+3 ms"
    fail: "+0.01 s"
  - id: t.rel
    title: t
    metric: steps.mean_us
    compare: baseline
    better: lower
    warn: "+5%"
    fail: "+10%"
  - id: t.count
    title: t
    metric: host.sync_calls
    compare: baseline
    better: lower
    warn: "+2 count"
  - id: t.pts
    title: t
    metric: gpu.utilization_pct
    compare: baseline
    better: higher
    warn: "-2.5 pts"
  - id: t.bytes
    title: t
    metric: memory.peak_allocated_bytes
    compare: baseline
    better: lower
    warn: "+512 MiB"
)")});
  EXPECT_EQ(rule(set, "t.ms")->warn_change->amount, 3000);
  EXPECT_FALSE(rule(set, "t.ms")->warn_change->relative);
  EXPECT_EQ(rule(set, "t.ms")->fail_change->amount, 10000);  // 0.01 s = 10,000 us
  EXPECT_DOUBLE_EQ(rule(set, "t.rel")->fail_change->amount, 0.1);
  EXPECT_TRUE(rule(set, "t.rel")->fail_change->relative);
  EXPECT_EQ(rule(set, "t.count")->warn_change->amount, 2);  // a unitless catalog unit is written out
  EXPECT_EQ(rule(set, "t.pts")->warn_change->amount, 2.5);
  EXPECT_EQ(rule(set, "t.bytes")->warn_change->amount, 512.0 * 1024 * 1024);
}

// A bare number against the baseline is ambiguous (`fail=10` meant +10 us for a step time): it is
// an error that shows the accepted forms. A relative and an absolute limit cannot be ordered
// without the baseline, so `warn` and `fail` must be of the same kind.
TEST(RuleSchema, BaselineLimitsNeedAUnitAndOneKind) {
  std::string e = load_error(R"(rules:
  - id: t.bare
    title: t
    metric: steps.median_us
    compare: baseline
    better: lower
    warn: 5
  - id: t.mixed
    title: t
    metric: steps.median_us
    compare: baseline
    better: lower
    warn: "+5%"
    fail: "+1 ms"
)");
  EXPECT_NE(e.find(":7:11: error: rule 't.bare': 'warn: 5': a change against the baseline needs a unit: "
                   "'+5%' (relative to the baseline) or '+5 ms' (also ns, us, s)"),
            std::string::npos)
      << e;
  EXPECT_NE(
      e.find(":14:11: error: rule 't.mixed': 'warn: +5%' is relative and 'fail: +1 ms' an amount: "
             "they cannot be ordered without the baseline; give both in % or both in the metric's unit"),
      std::string::npos)
      << e;
  auto set_error = [](const std::vector<std::string>& settings) {
    return config_error([&] {
      RuleBook s_book = load_rule_book({});
      RuleSet& s = s_book.rules;
      apply_rule_overrides(s, settings, {});
    });
  };
  EXPECT_NE(
      set_error({"regression.step-time.fail=10"})
          .find("--set regression.step-time.fail=10: error: rule 'regression.step-time': 'fail: 10': a "
                "change against the baseline needs a unit: '+10%' (relative to the baseline) or '+10 ms'"),
      std::string::npos);
  EXPECT_NE(
      set_error({"regression.gpu-utilization.warn=3"}).find("'-3%' (relative to the baseline) or '-3 pts'"),
      std::string::npos);
  // The default warns at +3%: a fail limit in ms alone mixes kinds; both given together do not.
  EXPECT_NE(set_error({"regression.step-time.fail=+1 ms"}).find("cannot be ordered without the baseline"),
            std::string::npos);
  RuleBook both_book = load_rule_book({});
  RuleSet& both = both_book.rules;
  apply_rule_overrides(both, {"regression.step-time.warn=+0.5 ms", "regression.step-time.fail=+1 ms"}, {});
  EXPECT_EQ(rule(both, "regression.step-time")->fail_change->amount, 1000);
  EXPECT_NE(set_error({"regression.step-time.warn=+0.5 ms", "regression.step-time.fail=+0.2 ms"})
                .find("the 'fail' limit must be at least the 'warn' limit"),
            std::string::npos);
}

TEST(RuleSchema, EveryProblemOfAFileWithPositionAndSuggestion) {
  std::string e = load_error(R"(rules:
  - id: my.rule
    title: Mine
    metric: gpu.utilizaton_pct
    better: up
    warn: 5
    problem: "value {valeu}"
  - id: Bad Id
  - id: expr.rule
    title: Expr
    value: "gpu.idle_pct * (2 +"
    better: lower
    warn: 3
  - id: base.rule
    title: Base
    metric: steps.mean_us
    compare: baseline
    better: lower
    warn: "-5%"
    fail: "+3 parsecs"
  - id: off.rule
    title: Offenders
    metric: gpu.idle_pct
    better: lower
    warn: 3
    offenders: {table: opz}
    colour: red
  - id: no.direction
    title: t
    metric: gpu.idle_pct
    warn: 3
  - id: test.rule
    title: t
    metric: gpu.idle_pct
    better: lower
    warn: 3
    test: mann-whitney
  - id: see.rule
    title: t
    metric: gpu.idle_pct
    better: lower
    warn: 3
    see: [gpu_gaps, gpu_gap]
)");
  for (
      const char* expected : {
          ":5:13: error: 'better' must be one of: lower, higher; got 'up'",
          ":4:13: error: rule 'my.rule': unknown metric 'gpu.utilizaton_pct', did you mean "
          "'gpu.utilization_pct'?",
          ":7:14: error: rule 'my.rule': unknown placeholder '{valeu}' in 'problem', did you mean '{value}'?",
          ":8:9: error: rule id 'Bad Id' must be lower-case letters",
          ":11:12: error: rule 'expr.rule': invalid expression in 'value': gpu.idle_pct * (2 +: unexpected "
          "end "
          "of the expression at position 20",
          ":19:11: error: rule 'base.rule': 'warn: -5%': lower is better for this metric",
          ":20:11: error: rule 'base.rule': 'fail: +3 parsecs': unit 'parsecs' does not fit a metric in 'us'",
          ":27:5: error: unknown key 'colour' in 'rule'",
          ":26:16: error: rule 'off.rule': unknown table 'opz' in 'offenders', did you mean 'ops'?",
          ":28:5: error: rule 'no.direction': needs 'better: lower' or 'better: higher'",
          ":37:11: error: rule 'test.rule': 'test: mann-whitney' compares per-step durations",
          ":43:10: error: rule 'see.rule': unknown table 'gpu_gap' in 'see', did you mean 'gpu_gaps'?",
      })
    EXPECT_NE(e.find(expected), std::string::npos) << "missing: " << expected << "\nin:\n" << e;
}

// "Did you mean" counts a transposition of two neighbouring letters as one edit (optimal string
// alignment). "medain" -> "median" swaps "ai": 1 edit, where plain Levenshtein counted 2 (two
// substitutions) and tied with "mean" (delete "d" and "i": 2), which the catalog lists first.
TEST(RuleSchema, SuggestionsCountATranspositionAsOneEdit) {
  std::vector<std::string_view> names = {"steps.mean_us", "steps.median_us", "steps.max_us"};
  EXPECT_EQ(closest_match("steps.medain_us", names), "steps.median_us");
  EXPECT_EQ(closest_match("steps.mean_su", names), "steps.mean_us");  // "su" -> "us": 1
  EXPECT_EQ(closest_match("steps.men_us", names), "steps.mean_us");   // insert "a": 1
  EXPECT_EQ(closest_match("gpu.idle_pct", names), "");                // nothing near
  // The same in a rule file and on the command line.
  EXPECT_NE(load_error("rules:\n  - id: x\n    title: t\n    metric: steps.medain_us\n    better: lower\n"
                       "    warn: 3\n")
                .find(":4:13: error: rule 'x': unknown metric 'steps.medain_us', did you mean "
                      "'steps.median_us'?"),
            std::string::npos);
  EXPECT_NE(config_error([] {
              RuleBook s_book = load_rule_book({});
              RuleSet& s = s_book.rules;
              apply_rule_overrides(s, {"gpu.idle.metric=steps.medain_us"}, {});
            }).find("unknown metric 'steps.medain_us', did you mean 'steps.median_us'?"),
            std::string::npos);
}

// An entry with an id no rule has, that gives neither a title nor what a rule reads (metric, value,
// condition), cannot be a new rule: it is an override of a misspelt id, reported once at the id.
TEST(RuleSchema, AnOverrideOfAnUnknownIdIsOneErrorWithTheSuggestion) {
  std::string e = load_error("rules:\n  - id: steps.outlier\n    enabled: false\n    warn: 2\n");
  EXPECT_NE(e.find("rules.yaml:2:9: error: unknown rule id 'steps.outlier', did you mean 'steps.outliers'?"),
            std::string::npos)
      << e;
  EXPECT_EQ(e.find('\n'), std::string::npos) << "one error only:\n" << e;
  // Incomplete as a new rule (no metric, no thresholds) and near an existing id: the same.
  std::string titled = load_error("rules:\n  - id: steps.outlier\n    title: Outliers\n");
  EXPECT_TRUE(
      titled.ends_with("rules.yaml:2:9: error: unknown rule id 'steps.outlier', did you mean "
                       "'steps.outliers'?"))
      << titled;
  EXPECT_EQ(titled.find('\n'), std::string::npos) << titled;
  std::string far = load_error("rules:\n  - id: team.budget\n    warn: 2\n");
  EXPECT_NE(far.find(":2:9: error: unknown rule id 'team.budget': a new rule needs a 'title' and a "
                     "'metric', 'value' or 'condition'"),
            std::string::npos)
      << far;
  EXPECT_EQ(far.find('\n'), std::string::npos) << far;
  // An entry with a title is a new rule: what it lacks is reported as such.
  EXPECT_NE(
      load_error("rules:\n  - id: team.budget\n    title: t\n").find("rule 'team.budget': needs a 'metric'"),
      std::string::npos);
}

TEST(RuleSchema, InconsistentRules) {
  EXPECT_NE(load_error("rules:\n  - id: x\n    title: t\n    metric: gpu.idle_pct\n"
                       "    better: lower\n    condition: gpu.idle_pct > 1\n    warn: 3\n")
                .find("give either a 'condition' or thresholds"),
            std::string::npos);
  EXPECT_NE(load_error("rules:\n  - id: x\n    title: t\n    metric: gpu.idle_pct\n    better: lower\n")
                .find("needs thresholds"),
            std::string::npos);
  EXPECT_NE(load_error("rules:\n  - id: x\n    title: t\n    metric: gpu.idle_pct\n    better: lower\n"
                       "    warn: 30\n    fail: 10\n")
                .find("the 'fail' threshold must be at least as bad as 'warn'"),
            std::string::npos);
  EXPECT_NE(load_error("rules:\n  - id: x\n    title: t\n    metric: gpu.idle_pct\n    better: lower\n"
                       "    warn: '+5%'\n")
                .find("needs 'compare: baseline'"),
            std::string::npos);
  EXPECT_NE(load_error("rules:\n  - id: x\n    metric: gpu.idle_pct\n    better: lower\n    warn: 3\n")
                .find("needs a 'title'"),
            std::string::npos);
  EXPECT_NE(load_error("rules:\n  - title: t\n").find("a rule needs an 'id'"), std::string::npos);
  EXPECT_NE(load_error("rules: {}\n").find("'rules' must be a list"), std::string::npos);
  EXPECT_NE(load_error("rules:\n  - id: x\n    title: t\n    condition: 'missing.metric > 1'\n")
                .find("unknown metric 'missing.metric' in 'condition'"),
            std::string::npos);
}

TEST(RuleSchema, CommandLineOverrides) {
  RuleBook set = load_rule_book({});
  apply_rule_overrides(set.rules, {"gpu.low-utilization.warn=40", "tensor-cores.amp.severity=error"},
                       {"steps.outliers"});
  EXPECT_EQ(*rule(set, "gpu.low-utilization")->warn, 40);
  EXPECT_EQ(rule(set, "tensor-cores.amp")->severity, Severity::Error);
  EXPECT_FALSE(rule(set, "steps.outliers")->enabled);
  std::string e = config_error([] {
    RuleBook s_book = load_rule_book({});
    RuleSet& s = s_book.rules;
    apply_rule_overrides(s, {"gpu.low-utilisation.warn=3", "gpu.idle.warn=abc", "nonsense"}, {"nope"});
  });
  EXPECT_NE(e.find("--set gpu.low-utilisation.warn=3: error: no rule 'gpu.low-utilisation', did you mean "
                   "'gpu.low-utilization'?"),
            std::string::npos)
      << e;
  EXPECT_NE(e.find("--set gpu.idle.warn=abc: error: rule 'gpu.idle': 'warn' must be a finite number"),
            std::string::npos);
  EXPECT_NE(e.find("--set nonsense: error: expected ID.KEY=VALUE"), std::string::npos);
  EXPECT_NE(e.find("--disable nope: error: no rule 'nope'"), std::string::npos);
  EXPECT_NE(config_error([] {
              RuleBook s_book = load_rule_book({});
              RuleSet& s = s_book.rules;
              apply_rule_overrides(s, {"gpu.idle.colour=red"}, {});
            }).find("unknown key 'colour'"),
            std::string::npos);
}

// A rule file's capture: section and a rule's frameworks: are printed with the effective rules and
// read back the same (issue 89).
TEST(RuleSchema, EffectiveRulesKeepTheCaptureSection) {
  std::string file = rules_file(R"(capture:
  devices: [{kind: gpu, vendor: amd, model: MI300X, count: 8}]
  frameworks: [pytorch, vllm]
  workload: serving
  phases: {setup_us: 1500}
rules:
  - id: gpu.low-utilization
    frameworks: [pytorch]
)");
  RuleBook set = load_rule_book({file});
  std::string yaml = effective_rules_yaml(set.knowledge, set.rules);
  EXPECT_NE(yaml.find("capture:"), std::string::npos) << yaml;
  RuleBook again = load_rule_book({rules_file(yaml)});
  EXPECT_EQ(again.rules.capture.workload, set.rules.capture.workload);
  ASSERT_TRUE(again.rules.capture.devices && again.rules.capture.frameworks && again.rules.capture.phases);
  ASSERT_EQ(again.rules.capture.devices->size(), 1u);
  EXPECT_EQ(again.rules.capture.devices->front().vendor, DeviceVendor::Amd);
  EXPECT_EQ(again.rules.capture.devices->front().count, 8u);
  EXPECT_EQ(again.rules.capture.frameworks->size(), 2u);
  EXPECT_EQ(again.rules.capture.phases->setup_us, 1500.0);
  EXPECT_EQ(again.rules.rules.front().frameworks, std::vector<std::string>{"pytorch"});
}

TEST(RuleSchema, EffectiveRulesRoundTrip) {
  RuleBook set = load_rule_book({});
  apply_rule_overrides(set.rules, {"gpu.low-utilization.warn=40"}, {"steps.outliers"});
  std::string yaml = effective_rules_yaml(set.knowledge, set.rules);
  RuleBook again = load_rule_book({rules_file(yaml)});
  ASSERT_EQ(again.rules.rules.size(), set.rules.rules.size());
  EXPECT_EQ(again.rules.sources.size(), 1u);  // extends: none
  for (std::size_t i = 0; i < set.rules.rules.size(); ++i) {
    const Rule &a = set.rules.rules[i], &b = again.rules.rules[i];
    EXPECT_EQ(a.id, b.id);
    EXPECT_EQ(a.enabled, b.enabled) << a.id;
    EXPECT_EQ(a.warn, b.warn) << a.id;
    EXPECT_EQ(a.fail, b.fail) << a.id;
    EXPECT_EQ(a.problem, b.problem) << a.id;
    EXPECT_EQ(a.condition, b.condition) << a.id;
    EXPECT_EQ(a.offenders.has_value(), b.offenders.has_value()) << a.id;
  }
  EXPECT_EQ(again.knowledge.tensor_core_kernels, set.knowledge.tensor_core_kernels);
  EXPECT_EQ(again.knowledge.profiler_step_ranges, set.knowledge.profiler_step_ranges);
  EXPECT_EQ(again.knowledge.nvtx_step_ranges, set.knowledge.nvtx_step_ranges);
  EXPECT_EQ(again.knowledge.op_types.size(), set.knowledge.op_types.size());
  EXPECT_EQ(again.knowledge.gpu_peaks.size(), set.knowledge.gpu_peaks.size());
  EXPECT_EQ(*rule(again, "gpu.low-utilization")->warn, 40);
}

TEST(RuleSchema, HostileFilesAreRefusedCleanly) {
  // A "billion laughs": ten levels of ten aliases each.
  std::string bomb = "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n";
  for (int i = 1; i < 10; ++i) {
    bomb += "a" + std::to_string(i) + ": &a" + std::to_string(i) + " [";
    for (int k = 0; k < 10; ++k) bomb += (k ? ", *a" : "*a") + std::to_string(i - 1);
    bomb += "]\n";
  }
  bomb += "rules: [*a9]\n";
  EXPECT_NE(load_error(bomb).find("expands to more than 200000 YAML nodes"), std::string::npos);
  EXPECT_NE(
      load_error("rules: " + std::string(100000, '[') + std::string(100000, ']')).find("nested more than"),
      std::string::npos);
  EXPECT_NE(load_error(std::string(2 << 20, '#')).find("rule file is larger than 1048576 bytes"),
            std::string::npos);
}

// Issue 13: a NaN or infinite threshold never fires, so it silently disabled the rule.
TEST(RuleSchema, NonFiniteThresholdsAreRefused) {
  for (const char* value : {"nan", "inf", "-inf", "infinity", "1e400"}) {
    std::string e = config_error([&] {
      RuleBook s_book = load_rule_book({});
      RuleSet& s = s_book.rules;
      apply_rule_overrides(s, {std::string("gpu.idle.warn=") + value}, {});
    });
    EXPECT_NE(e.find("'warn' must be a finite number"), std::string::npos) << value << ": " << e;
  }
  std::string yaml = load_error(R"(rules:
  - id: gpu.idle
    fail: .nan
  - id: steps.unstable
    alpha: .inf
)");
  EXPECT_NE(yaml.find(":3:"), std::string::npos) << yaml;
  EXPECT_NE(yaml.find("error: rule 'gpu.idle': 'fail' must be a finite number"), std::string::npos) << yaml;
  EXPECT_NE(yaml.find("'alpha' must be a finite number"), std::string::npos) << yaml;
}

// Issue 13: a self-referencing alias made a cyclic node graph that the node count walked forever
// (stack overflow); aliases that deepen a tree beyond any rule file's shape are refused too.
TEST(RuleSchema, CyclicAndDeepAliasesAreRefused) {
  EXPECT_NE(load_error("x: &a [*a]\n").find(":1:8: error: the alias refers to a node that contains it"),
            std::string::npos)
      << load_error("x: &a [*a]\n");
  EXPECT_NE(load_error("x: &a {b: [1, {c: *a}]}\n").find(":1:19: error: the alias refers to a node"),
            std::string::npos);
  // Each line nests the previous anchor 30 levels deeper: linear text, a tree 300 levels deep.
  std::string deep = "a0: &a0 1\n";
  for (int i = 1; i <= 10; ++i)
    deep += "a" + std::to_string(i) + ": &a" + std::to_string(i) + " " + std::string(30, '[') + "*a" +
            std::to_string(i - 1) + std::string(30, ']') + "\n";
  EXPECT_NE(load_error(deep).find("nested more than 64 levels (through aliases)"), std::string::npos)
      << load_error(deep);
  // Rule texts reach every report: bad UTF-8 is refused where it is.
  EXPECT_NE(load_error("# ok\nrules: [\"\xff\"]\n").find(":2:10: error: invalid UTF-8 (byte 0xff)"),
            std::string::npos);
  // A shared (acyclic) alias is still fine.
  EXPECT_EQ(load_error("x: &a [1]\ny: [*a, *a]\n").find("alias"), std::string::npos);
}

// Found by the 30-minute fuzz run: a file starting with ',' made the cycle check loop forever
// (yaml-cpp hands out the same empty document again and again), and YAML::Load read that empty
// document only, ignoring the rules after it. One document per file, else an error, at once.
TEST(RuleSchema, AFileStartingWithACommaIsAnErrorNotAHang) {
  std::string comma = load_error(",\nrules:\n  - id: gpu.idle\n    enabled: false\n");
  EXPECT_NE(comma.find("error: a rule file is one YAML document"), std::string::npos) << comma;
  std::string two = load_error("rules: []\n---\nrules: []\n");
  EXPECT_NE(two.find(":2:1: error: a rule file is one YAML document"), std::string::npos) << two;
  // An explicit start of the one document is fine.
  EXPECT_EQ(load_error("---\nrules: []\n"), "no error");
}

TEST(RuleSchema, ThePluginSetKeepsTheDefaultRules) {
  RuleBook plugin_book = load_rule_book({"tb-plugin"});
  RuleSet& plugin = plugin_book.rules;
  EXPECT_EQ(plugin.rules.size(), load_rule_book({}).rules.rules.size());
}

}  // namespace
}  // namespace perfgate::testing
