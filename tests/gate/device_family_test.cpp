// Rules of the other device family are neither evaluated, listed nor counted (SPEC 2, "device
// family"; docs/rules.md, "Device family"): a GPU trace's outputs name no Neuron rule, a Neuron
// profile's no GPU rule.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <string>
#include <vector>

#include "common/errors.h"
#include "engine/analyse_profiles.h"
#include "gate/rules.h"
#include "gate/rules_for_run.h"
#include "neuron/neuron_fixture.h"
#include "render/render.h"
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
  ReportModel r = gated(report_of_json(training_trace(TrainingRun{}), default_book()));
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
  ReportModel r = gated(report_of_json(neuron_full_json(), default_book()));
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

// The reader sets each profile's family once; the report model keeps the run's.
TEST(DeviceFamily, TheReaderSetsTheFamilyAndTheReportKeepsIt) {
  TraceBuilder gpu;
  gpu.step(1, 0, 10'000).launch("volta_sgemm_128x64_nn", 100, 1'000, 8'000);
  DeviceFamilies families = report_of_json(gpu.json(), default_book()).families;
  EXPECT_TRUE(families.only(DeviceFamily::Gpu));
  TraceBuilder host;
  host.step(1, 0, 10'000).op("aten::add", 100, 1'000);
  EXPECT_TRUE(report_of_json(host.json(), default_book()).families.only(DeviceFamily::CpuOnly));
  EXPECT_TRUE(report_of_json(neuron_full_json(), default_book()).families.only(DeviceFamily::Neuron));
}

// A CPU-only trace keeps the trace rules (a GPU job recorded without its device activities: its GPU
// rules say n/a) and lists no Neuron rule.
TEST(DeviceFamily, ACpuOnlyTraceListsTheTraceRulesAndNoNeuronRule) {
  TraceBuilder host;
  host.step(1, 0, 10'000).op("aten::add", 100, 1'000);
  ReportModel r = gated(report_of_json(host.json(), default_book()));
  std::size_t trace_rules = 0;
  for (const Rule& rule : default_rules().rules) trace_rules += !neuron_rule(rule.id);
  EXPECT_EQ(r.rules.size(), trace_rules);
  for (const ReportRule& rule : r.rules) EXPECT_FALSE(neuron_rule(rule.id)) << rule.id;
}

// Which rule applies to which run, from the families the rule declares and the run has.
TEST(DeviceFamily, ARuleAppliesWhereTheRunHasAProfileOfItsFamily) {
  Rule gpu_rule, neuron_rule_, any_rule;
  gpu_rule.families = {DeviceFamily::Gpu, DeviceFamily::CpuOnly};
  neuron_rule_.families = {DeviceFamily::Neuron};
  DeviceFamilies gpu, neuron, mixed, unknown;
  gpu.add(DeviceFamily::Gpu);
  neuron.add(DeviceFamily::Neuron);
  mixed.add(DeviceFamily::Neuron);
  mixed.add(DeviceFamily::CpuOnly);
  EXPECT_TRUE(rule_applies(gpu_rule, gpu));
  EXPECT_FALSE(rule_applies(gpu_rule, neuron));
  EXPECT_TRUE(rule_applies(gpu_rule, mixed));
  EXPECT_FALSE(rule_applies(neuron_rule_, gpu));
  EXPECT_TRUE(rule_applies(neuron_rule_, neuron));
  EXPECT_TRUE(rule_applies(neuron_rule_, mixed));
  for (const DeviceFamilies& run : {gpu, neuron, mixed}) EXPECT_TRUE(rule_applies(any_rule, run));
  // A report whose families are not known (built by hand) keeps every rule.
  EXPECT_TRUE(rule_applies(neuron_rule_, unknown));
}

// Every shipped rule says which profiles it is about, and agrees with the metrics it reads.
TEST(DeviceFamily, EveryDefaultRuleDeclaresItsFamily) {
  for (const Rule& rule : default_rules().rules) {
    ASSERT_FALSE(rule.families.empty()) << rule.id;
    bool neuron =
        std::find(rule.families.begin(), rule.families.end(), DeviceFamily::Neuron) != rule.families.end();
    EXPECT_EQ(neuron, neuron_rule(rule.id)) << rule.id;
  }
}

std::string rule_file_error(const std::string& rule) {
  std::string path = write_text(temp_dir() + "/family.yaml", "rules:\n" + rule);
  try {
    (void)load_rule_book({path});
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "no error";
}

TEST(DeviceFamily, ARuleFileNamesAFamilyThatFitsWhatTheRuleReads) {
  std::string wrong = rule_file_error(
      "  - {id: my.rule, title: T, family: neuron, metric: gpu.utilization_pct, better: higher, warn: 50}\n");
  EXPECT_NE(wrong.find("rule 'my.rule': reads metrics of GPU or CPU-only traces"), std::string::npos)
      << wrong;
  std::string neuron = rule_file_error(
      "  - {id: my.rule, title: T, family: gpu, metric: neuron.total_time_us, better: lower, warn: 5}\n");
  EXPECT_NE(neuron.find("rule 'my.rule': reads neuron.* metrics"), std::string::npos) << neuron;
  std::string unknown = rule_file_error(
      "  - {id: my.rule, title: T, family: gpus, metric: gpu.utilization_pct, better: higher, warn: 50}\n");
  EXPECT_NE(unknown.find("'family' must be one or a list of: gpu, neuron, cpu-only; got 'gpus', did you mean "
                         "'gpu'?"),
            std::string::npos)
      << unknown;
  EXPECT_EQ(
      rule_file_error("  - {id: my.rule, title: T, family: [gpu, cpu-only], metric: gpu.utilization_pct, "
                      "better: higher, warn: 50}\n"),
      "no error");
}

// The sections that depend on the run's families, from the one table every renderer reads.
TEST(DeviceFamily, TheSectionsFollowTheRunsFamilies) {
  ReportModel neuron, gpu, neuron_and_host, neuron_and_gpu;
  neuron.families.add(DeviceFamily::Neuron);
  gpu.families.add(DeviceFamily::Gpu);
  neuron_and_host.families = neuron.families;
  neuron_and_host.families.add(DeviceFamily::CpuOnly);
  neuron_and_gpu.families = neuron.families;
  neuron_and_gpu.families.add(DeviceFamily::Gpu);
  EXPECT_TRUE(shows(neuron, FamilySection::NeuronWindow));
  EXPECT_TRUE(shows(neuron, FamilySection::NeuronFirst));
  EXPECT_TRUE(shows(neuron, FamilySection::NeuronKeyMetrics));
  EXPECT_FALSE(shows(neuron, FamilySection::GpuSummary));
  EXPECT_FALSE(shows(neuron, FamilySection::WorkerLines));
  EXPECT_FALSE(shows(gpu, FamilySection::NeuronWindow));
  EXPECT_TRUE(shows(gpu, FamilySection::GpuSummary));
  EXPECT_TRUE(shows(gpu, FamilySection::WorkerLines));
  EXPECT_FALSE(shows(gpu, FamilySection::NeuronKeyMetrics));
  // Neuron profiles beside a CPU-only trace: no GPU to summarise, every worker listed.
  EXPECT_TRUE(shows(neuron_and_host, FamilySection::NeuronKeyMetrics));
  EXPECT_FALSE(shows(neuron_and_host, FamilySection::GpuSummary));
  EXPECT_TRUE(shows(neuron_and_host, FamilySection::WorkerLines));
  EXPECT_FALSE(shows(neuron_and_host, FamilySection::NeuronFirst));
  EXPECT_TRUE(shows(neuron_and_gpu, FamilySection::GpuSummary));
  EXPECT_FALSE(shows(neuron_and_gpu, FamilySection::NeuronKeyMetrics));
}

}  // namespace
}  // namespace perfgate::testing
