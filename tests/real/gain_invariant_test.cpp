// Issue 29: every estimated gain is bounded by what removing the cause could save. On every shared
// trace, folder and nsys export, each fired finding of the default rules with a gain names that
// time (`saves`), and its gain expression, before the engine caps it, stays within it.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "perfgate/gate.h"
#include "render/format.h"
#include "rules/expression.h"
#include "support/helpers.h"

namespace perfgate::testing {
namespace {

namespace fs = std::filesystem;

// Each shared input analysed as `perfgate analyze` would: the traces, the run folder, the exports.
std::vector<std::string> shared_inputs() {
  std::vector<std::string> inputs;
  std::string dir = shared_traces_dir();
  if (dir.empty()) return inputs;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().string().ends_with(".json.gz") || (e.is_directory() && e.path().filename() != "nsys"))
      inputs.push_back(e.path().string());
  for (const auto& e : fs::directory_iterator(dir + "/nsys"))
    if (e.path().extension() == ".sqlite") inputs.push_back(e.path().string());
  std::sort(inputs.begin(), inputs.end());
  return inputs;
}

const Rule& rule_of(std::string_view id) {
  for (const Rule& r : default_rules().rules)
    if (r.id == id) return r;
  throw std::logic_error("no rule " + std::string(id));
}

TEST(GainInvariant, NoGainExceedsTheTimeItsCauseCanSave) {
  std::vector<std::string> inputs = shared_inputs();
  if (inputs.empty()) GTEST_SKIP() << "../shared/traces not found";
  ASSERT_GE(inputs.size(), 20u) << "the shared traces, the run folder and the nsys exports";
  std::size_t gains = 0;
  for (const std::string& input : inputs) {
    SCOPED_TRACE(input);
    ReportModel report = report_of_files({input}, default_rules());
    apply_gate(report, default_rules(), nullptr, {});
    auto lookup = [&](std::string_view name) { return metric_value(report.metrics, name); };
    for (const ReportFinding& f : report.findings) {
      if (!f.gain_pct) continue;
      const Rule& rule = rule_of(f.id);
      ASSERT_FALSE(rule.saves.empty()) << f.id << " has a gain but no bound";
      std::optional<double> gain = Expression(rule.gain).evaluate(lookup);
      std::optional<double> bound = Expression(rule.saves).evaluate(lookup);
      ASSERT_TRUE(gain && bound) << f.id;
      EXPECT_LE(*gain, *bound + 1e-9) << f.id << ": " << rule.gain << " over " << rule.saves;
      EXPECT_LE(*bound, 100 + 1e-9) << f.id;
      EXPECT_DOUBLE_EQ(*f.gain_pct, *gain) << f.id << ": the engine capped it";
      ++gains;
    }
  }
  EXPECT_GT(gains, 10u) << "findings with a gain on the shared inputs";
}

// A rule file's gain that overstates its cause is capped at what the cause can save.
TEST(GainInvariant, TheEngineCapsAGainAtItsBound) {
  TraceBuilder t;
  t.step(1, 0, 1000);
  t.launch("gemm", 10, 50, 100, 1);
  RuleSet rules = load_rules({write_text(temp_dir() + "/overstated.yaml", R"(rules:
  - id: custom.overstated
    title: An overstated gain
    metric: gpu.idle_pct
    better: lower
    warn: 10
    problem: "idle {value}"
    gain: "gpu.idle_pct * 3"
    saves: "gpu.idle_pct"
)")});
  ReportModel report = report_of_json(t.json(), rules);
  apply_gate(report, rules, nullptr, {});
  const ReportFinding* f = find_finding(report, "custom.overstated");
  ASSERT_NE(f, nullptr);
  ASSERT_EQ(f->status, FindingStatus::Warn);
  EXPECT_DOUBLE_EQ(*f->gain_pct, *f->value);  // 90% idle, not 270%
  EXPECT_NEAR(*f->value, 90, 1e-9);
}

}  // namespace
}  // namespace perfgate::testing
