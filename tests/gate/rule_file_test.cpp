#include <gtest/gtest.h>

#include <algorithm>

#include <re2/re2.h>

#include "common/errors.h"
#include "gate/rules.h"
#include "rule_files/rule_files.h"
#include "support/helpers.h"

namespace perfgate::testing {
namespace {

std::string rules_file(const std::string& yaml) {
  return write_text(temp_dir() + "/rules.yaml", yaml);
}

std::string config_error(const std::vector<std::string>& files) {
  try {
    (void)load_rule_book(files);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "no error";
}

TEST(RuleFiles, TheShippedSetsLoad) {
  RuleBook d = load_rule_book({});
  EXPECT_EQ(d.rules.sources, std::vector<std::string>{"default"});
  EXPECT_FALSE(d.knowledge.tensor_core_kernels.empty());
  EXPECT_FALSE(d.knowledge.communication_kernels.empty());
  EXPECT_TRUE(d.knowledge.attribute_by_time_containment);
  RuleBook plugin = load_rule_book({"tb-plugin"});
  EXPECT_EQ(plugin.rules.sources, (std::vector<std::string>{"default", "tb-plugin"}));
  EXPECT_FALSE(plugin.knowledge.op_types.empty());  // inherited: the plugin has no op types
  EXPECT_TRUE(plugin.knowledge.communication_kernels.empty());
  EXPECT_FALSE(plugin.knowledge.attribute_by_time_containment);
  auto names = shipped_rule_names();
  EXPECT_NE(std::find(names.begin(), names.end(), "default"), names.end());
}

// The shipped files skip the checks that guard against hostile YAML (UTF-8, a single document, no
// alias cycles, a bounded tree) when they are read, to save their cost on every run; here each one
// is read as a user file, through every check.
TEST(RuleFiles, ShippedFilesPassTheChecksOfUserFiles) {
  std::string dir = temp_dir();
  for (const std::string& name : shipped_rule_names()) {
    SCOPED_TRACE(name);
    std::string copy = write_text(dir + "/" + name + "-copy.yaml", std::string(shipped_rule_text(name)));
    EXPECT_EQ(config_error({copy}), "no error");
    RuleBook shipped_book = load_rule_book({name});
    RuleSet& shipped = shipped_book.rules;
    RuleBook checked_book = load_rule_book({copy});
    RuleSet& checked = checked_book.rules;
    EXPECT_EQ(checked.rules.size(), shipped.rules.size());
  }
}

TEST(RuleFiles, AUserFileAppliesOnTopOfTheDefault) {
  RuleBook base = load_rule_book({});
  RuleBook r = load_rule_book({rules_file(R"(
classification:
  tensor_core_kernels:
    add:
      - pattern: 'my_tc_kernel'
        source: "our own kernels"
  dataloader_ops:
    patterns: ['^my_loader$']
)")});
  EXPECT_EQ(r.rules.sources.size(), 2u);
  EXPECT_EQ(r.rules.sources[0], "default");
  EXPECT_EQ(r.knowledge.tensor_core_kernels.size(), base.knowledge.tensor_core_kernels.size() + 1);
  EXPECT_EQ(r.knowledge.tensor_core_kernels.front(), "my_tc_kernel");  // added entries come first
  EXPECT_EQ(r.knowledge.dataloader_ops, std::vector<std::string>{"^my_loader$"});
}

TEST(RuleFiles, ExtendsNoneStartsEmptyAndExtendsCanNameAFile) {
  std::string dir = temp_dir();
  write_text(dir + "/base.yaml",
             "extends: none\nclassification:\n  communication_ops:\n    patterns: ['^x$']\n");
  std::string child = write_text(
      dir + "/child.yaml", "extends: base.yaml\nclassification:\n  communication_ops:\n    add: ['^y$']\n");
  RuleBook r = load_rule_book({child});
  EXPECT_EQ(r.knowledge.communication_ops, (std::vector<std::string>{"^y$", "^x$"}));
  EXPECT_TRUE(r.knowledge.tensor_core_kernels.empty());
}

TEST(RuleFiles, ErrorsNameFileLineColumnAndSuggestTheKey) {
  std::string path = rules_file("classification:\n  tensor_core_kernel:\n    add: ['x']\n");
  std::string m = config_error({path});
  EXPECT_NE(m.find(path + ":2:3: error: unknown key 'tensor_core_kernel' in 'classification', did you mean "
                          "'tensor_core_kernels'?"),
            std::string::npos)
      << m;
}

TEST(RuleFiles, EveryErrorOfAFileIsReportedAtOnce) {
  std::string path = rules_file(
      "clasification: {}\nclassification:\n  dataloader_ops:\n    add: ['(unclosed']\n    pattern: []\n");
  std::string m = config_error({path});
  EXPECT_NE(m.find(":1:1: error: unknown key 'clasification', did you mean 'classification'?"),
            std::string::npos)
      << m;
  EXPECT_NE(m.find(":4:11: error: invalid regular expression '(unclosed'"), std::string::npos) << m;
  EXPECT_NE(m.find(":5:5: error: unknown key 'pattern' in 'dataloader_ops', did you mean 'patterns'?"),
            std::string::npos)
      << m;
}

// Issue 30, item 7: the step ranges of each format are classification lists: shipped with their
// sources, extended or replaced like the others, and checked the same way.
TEST(RuleFiles, StepRangesAreClassificationLists) {
  RuleBook d = load_rule_book({});
  // Kineto's ProfilerStep#N; XSpace profiles' own list: the "NAME (step N)" ranges the XPlane reader
  // makes of JAX's and TensorFlow's step markers, and a step named without a number (issue 59).
  EXPECT_EQ(d.knowledge.profiler_step_ranges, (std::vector<std::string>{R"(ProfilerStep#(\d+))"}));
  ASSERT_EQ(d.knowledge.xspace_step_ranges.size(), 2u);
  EXPECT_EQ(d.knowledge.xspace_step_ranges[0], R"([^$].* \(step (\d+)\))");
  ASSERT_EQ(d.knowledge.nvtx_step_ranges.size(), 2u);
  EXPECT_EQ(d.knowledge.nvtx_step_ranges[0], R"(ProfilerStep#(\d+))");

  RuleBook r =
      load_rule_book({rules_file("classification:\n  nvtx_step_ranges:\n    add: ['fwd_bwd (\\d+)']\n")});
  ASSERT_EQ(r.knowledge.nvtx_step_ranges.size(), 3u);
  EXPECT_EQ(r.knowledge.nvtx_step_ranges[0], R"(fwd_bwd (\d+))");
  EXPECT_EQ(r.knowledge.profiler_step_ranges, d.knowledge.profiler_step_ranges);

  // Line 4, the pattern's value at column 18.
  std::string path = rules_file(
      "classification:\n  profiler_step_ranges:\n    patterns:\n      - pattern: 'ProfilerStep#(\\d+'\n"
      "        source: \"a typo\"\n");
  std::string m = config_error({path});
  EXPECT_NE(m.find(path + ":4:18: error: invalid regular expression 'ProfilerStep#(\\d+'"), std::string::npos)
      << m;
}

// Two entries of one rule in a file, or one key given twice in a mapping, would be merged silently
// (YAML keeps the first key); both are errors at the second, naming the first's line.
TEST(RuleFiles, ARuleOrAKeyGivenTwiceIsAnError) {
  std::string path = rules_file(R"(rules:
  - id: gpu.idle
    warn: 40
  - id: team.a
    title: A
    metric: gpu.idle_pct
    better: lower
    warn: 3
    warn: 5
  - id: gpu.idle
    warn: 50
classification: {}
classification: {}
)");
  std::string m = config_error({path});
  EXPECT_NE(m.find(path + ":9:5: error: duplicate key 'warn' (first at line 8)"), std::string::npos) << m;
  EXPECT_NE(m.find(path + ":10:9: error: rule 'gpu.idle' is given twice in this file (first at line 2)"),
            std::string::npos)
      << m;
  EXPECT_NE(m.find(path + ":13:1: error: duplicate key 'classification' (first at line 12)"),
            std::string::npos)
      << m;
  // The same rule in two files is an override, as before.
  std::string dir = temp_dir();
  std::string a = write_text(dir + "/a.yaml", "rules:\n  - id: gpu.idle\n    warn: 40\n");
  std::string b = write_text(dir + "/b.yaml", "rules:\n  - id: gpu.idle\n    warn: 50\n");
  RuleBook both_book = load_rule_book({a, b});
  RuleSet& both = both_book.rules;
  auto idle =
      std::find_if(both.rules.begin(), both.rules.end(), [](const Rule& r) { return r.id == "gpu.idle"; });
  ASSERT_NE(idle, both.rules.end());
  EXPECT_EQ(*idle->warn, 50);
}

TEST(RuleFiles, MalformedYamlAndWrongShapes) {
  EXPECT_NE(config_error({rules_file("classification: [unclosed\n")}).find("invalid YAML"),
            std::string::npos);
  EXPECT_NE(config_error({rules_file("- a\n- b\n")}).find("must be a mapping"), std::string::npos);
  EXPECT_NE(config_error({rules_file("classification:\n  dataloader_ops: 5\n")})
                .find("must be a mapping with 'patterns' or 'add'"),
            std::string::npos);
  EXPECT_NE(config_error({rules_file("attribution:\n  by_time_containment: maybe\n")})
                .find("must be true or false"),
            std::string::npos);
  EXPECT_NE(config_error({"/no/such/rules.yaml"}).find("cannot read rule file"), std::string::npos);
}

TEST(RuleFiles, OpTypesAndGpuPeaks) {
  RuleBook r = load_rule_book({rules_file(R"(
classification:
  op_types:
    add:
      - {type: my fused ops, pattern: '^my::'}
gpu_peaks:
  add:
    - {match: 'MyGPU', name: "My GPU", tflops: {bf16: 100, fp32: 10}}
)")});
  EXPECT_EQ(r.knowledge.op_types.front().type, "my fused ops");
  EXPECT_EQ(r.knowledge.gpu_peaks.front().name, "My GPU");
  EXPECT_EQ(r.knowledge.gpu_peaks.front().peak("bf16"), 100);
  EXPECT_FALSE(r.knowledge.gpu_peaks.front().peak("fp8"));
  std::string bad = config_error({rules_file(R"(
classification:
  op_types:
    add: [{pattern: 'x'}]
gpu_peaks:
  add: [{match: 'X', tflops: {fp33: 5, bf16: -1}}]
)")});
  EXPECT_NE(bad.find("an op_types entry needs 'type' and 'pattern'"), std::string::npos) << bad;
  EXPECT_NE(bad.find("unknown key 'fp33' in 'tflops', did you mean 'fp32'?"), std::string::npos) << bad;
  EXPECT_NE(bad.find("a peak must be positive"), std::string::npos) << bad;
  // Untyped ops take a precision the entry has a peak for, with its source.
  std::string untyped = config_error({rules_file(R"(
gpu_peaks:
  add:
    - {match: 'X', tflops: {bf16: 5}, untyped_ops: {precision: fp8, source: "s"}}
    - {match: 'Y', tflops: {bf16: 5}, untyped_ops: {precision: bf16}}
)")});
  EXPECT_NE(untyped.find("untyped_ops: the entry has no tflops for this precision"), std::string::npos)
      << untyped;
  EXPECT_NE(untyped.find("untyped_ops needs 'precision' and 'source'"), std::string::npos) << untyped;
}

// Issue 91, item 4: the host link a GPU's copies cross is data, with its source; a rule file of
// yours names your GPU's (a slower slot, NVLink-C2C), and the effective rules print it back.
TEST(RuleFiles, AGpuPeakNamesItsHostLink) {
  RuleBook r = load_rule_book({rules_file(R"(
gpu_peaks:
  add:
    - {match: 'MyGPU', tflops: {bf16: 100}, host_link: {name: "PCIe 4.0 x8", gbps: 15.75, source: "our board"}}
)")});
  const GpuPeak& mine = r.knowledge.gpu_peaks.front();
  EXPECT_EQ(mine.host_link, "PCIe 4.0 x8");
  EXPECT_EQ(mine.host_link_gbps, 15.75);
  EXPECT_EQ(mine.host_link_source, "our board");
  std::string effective = effective_rules_yaml(r.knowledge, r.rules);
  EXPECT_NE(effective.find("host_link: {name: PCIe 4.0 x8, gbps: 15.75, source: our board}"),
            std::string::npos)
      << effective.substr(effective.find("MyGPU"), 300);
  // The shipped entries name their links: a V100 on PCIe 3.0, an H100 on PCIe 5.0, a GH200 on NVLink-C2C.
  auto link_of = [&](const char* device) {
    for (const GpuPeak& p : default_classification().gpu_peaks)
      if (RE2::PartialMatch(device, p.match))
        return p.host_link + " " + std::to_string(p.host_link_gbps.value_or(0));
    return std::string("none");
  };
  EXPECT_EQ(link_of("Tesla V100-SXM2-16GB"), "PCIe 3.0 x16 15.750000");
  EXPECT_EQ(link_of("NVIDIA H100 80GB HBM3"), "PCIe 5.0 x16 63.000000");
  EXPECT_EQ(link_of("NVIDIA GH200 480GB"), "NVLink-C2C 450.000000");
  std::string bad = config_error({rules_file(R"(
gpu_peaks:
  add:
    - {match: 'X', tflops: {bf16: 5}, host_link: {name: "PCIe", gbps: 10}}
    - {match: 'Y', tflops: {bf16: 5}, host_link: {name: "PCIe", gbps: -1, source: "s"}}
)")});
  EXPECT_NE(bad.find("host_link needs 'name', 'gbps' and 'source'"), std::string::npos) << bad;
  EXPECT_NE(bad.find("a bandwidth must be positive"), std::string::npos) << bad;
}

TEST(RuleFiles, CyclesAndOversizedFilesAreRefused) {
  std::string dir = temp_dir();
  write_text(dir + "/a.yaml", "extends: b.yaml\n");
  write_text(dir + "/b.yaml", "# b\nextends: ./a.yaml\n");
  // The cycle closes at b.yaml's `extends` (line 2, the value at column 10); the chain names each file.
  std::string cycle = config_error({dir + "/a.yaml"});
  EXPECT_NE(cycle.find(dir + "/b.yaml:2:10: error: 'extends: ./a.yaml' forms a cycle: " + dir +
                       "/a.yaml -> " + dir + "/b.yaml -> " + dir + "/a.yaml"),
            std::string::npos)
      << cycle;
  std::string self = write_text(dir + "/self.yaml", "extends: self.yaml\n");
  EXPECT_NE(config_error({self}).find(self + ":1:10: error: 'extends: self.yaml' forms a cycle"),
            std::string::npos);
  std::string big = write_text(dir + "/big.yaml", "# " + std::string(2 * 1024 * 1024, 'x') + "\n");
  EXPECT_NE(config_error({big}).find("larger than"), std::string::npos);
}

TEST(RuleFiles, OnlyTheFirstFileChoosesItsBase) {
  std::string dir = temp_dir();
  std::string a = write_text(dir + "/a.yaml", "classification: {}\n");
  std::string b = write_text(dir + "/b.yaml", "extends: none\n");
  EXPECT_NE(config_error({a, b}).find("only the first --rules file"), std::string::npos);
}

}  // namespace
}  // namespace perfgate::testing
