// Rules of the other device family are neither evaluated, listed nor counted (SPEC 2, "device
// family"; docs/rules.md, "Device family"): a GPU trace's outputs name no Neuron rule, a Neuron
// profile's no GPU rule.
#include <gtest/gtest.h>

#include <cctype>
#include <string>
#include <vector>

#include "cli/pipeline.h"
#include "neuron/neuron_fixture.h"
#include "perfgate/render.h"
#include "support/helpers.h"
#include "support/training_run.h"

namespace perfgate::testing {
namespace {

bool neuron_rule(const std::string& id) {
  return id.starts_with("neuron.") || id.starts_with("regression.neuron-");
}

ReportModel gated(ReportModel r) {
  apply_gate(r, default_rules(), nullptr, {});
  return r;
}

// Every output of `r`, as text.
std::vector<std::pair<std::string, std::string>> outputs(const ReportModel& r) {
  return {{"terminal", render_terminal(r)},
          {"markdown", render_markdown(r)},
          {"junit", render_junit(r)},
          {"json", render_json(r)},
          {"html", render_html(r).page}};
}

// Whether `text` names the rule `id` (not a metric that starts with it: gpu.idle_pct is not gpu.idle;
// the JSON report and the page's data name a rule as "id": "...", where steps.outliers is also a
// metric).
bool mentions(const std::string& text, const std::string& id) {
  if (text.starts_with("{") || text.starts_with("<!DOCTYPE"))
    return text.find("\"id\": \"" + id + "\"") != std::string::npos ||
           text.find("\"id\":\"" + id + "\"") != std::string::npos ||
           text.find(">" + id + "<") != std::string::npos;
  for (std::size_t at = text.find(id); at != std::string::npos; at = text.find(id, at + 1)) {
    char next = at + id.size() < text.size() ? text[at + id.size()] : ' ';
    bool continues = std::isalnum(static_cast<unsigned char>(next)) || next == '_' || next == '-' ||
                     (next == '.' && at + id.size() + 1 < text.size() &&
                      std::isalnum(static_cast<unsigned char>(text[at + id.size() + 1])));
    if (!continues) return true;
  }
  return false;
}

// The verdict counts the findings listed, and nothing else.
void expect_counts_match(const ReportModel& r) {
  ASSERT_TRUE(r.verdict);
  const ReportVerdict& v = *r.verdict;
  EXPECT_EQ(v.passed + v.warnings + v.failures + v.not_applicable + v.skipped + v.inconclusive,
            r.findings.size());
}

TEST(DeviceFamily, AGpuTraceListsNoNeuronRule) {
  ReportModel r = gated(report_of_json(training_trace(TrainingRun{}), default_rules()));
  ASSERT_FALSE(r.findings.empty());
  for (const ReportFinding& f : r.findings) EXPECT_FALSE(neuron_rule(f.id)) << f.id;
  for (const ReportRule& rule : r.rules) EXPECT_FALSE(neuron_rule(rule.id)) << rule.id;
  expect_counts_match(r);
  // 10 Neuron rules in the default set: none in any output (their ids are no metric's name).
  for (const Rule& rule : default_rules().rules) {
    if (!neuron_rule(rule.id)) continue;
    for (const auto& [name, text] : outputs(r))
      EXPECT_FALSE(mentions(text, rule.id)) << rule.id << " in " << name;
  }
}

TEST(DeviceFamily, ANeuronProfileListsNoGpuRule) {
  ReportModel r = gated(report_of_json(neuron_full_json(), default_rules()));
  std::size_t neuron_rules = 0;
  for (const Rule& rule : default_rules().rules) neuron_rules += neuron_rule(rule.id);
  EXPECT_EQ(neuron_rules, 10u);
  ASSERT_EQ(r.findings.size(), neuron_rules);
  for (const ReportFinding& f : r.findings) EXPECT_TRUE(neuron_rule(f.id)) << f.id;
  EXPECT_EQ(r.rules.size(), neuron_rules);
  expect_counts_match(r);
  for (const Rule& rule : default_rules().rules) {
    if (neuron_rule(rule.id)) continue;
    for (const auto& [name, text] : outputs(r))
      EXPECT_FALSE(mentions(text, rule.id)) << rule.id << " in " << name;
  }
}

}  // namespace
}  // namespace perfgate::testing
