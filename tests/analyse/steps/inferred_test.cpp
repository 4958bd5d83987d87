// Inferred iterations (docs/metrics.md, "Inferred iterations"): the longest run of like work, the
// family chosen, --step-pattern inferred, and the gate comparing per inferred iteration.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "analyse/steps/inferred.h"
#include "baseline/baseline.h"
#include "gate/gate.h"
#include "render/render.h"
#include "support/helpers.h"

namespace perfgate::testing {
namespace {

// The definition, written out as research/56/choose_family.py states it: for each start, every end
// from the longest down; the first run whose values all lie within 5% of its median wins, ties to the
// earliest.
std::pair<std::size_t, std::size_t> by_definition(const std::vector<std::uint64_t>& v) {
  std::pair<std::size_t, std::size_t> best{0, 0};
  for (std::size_t i = 0; i < v.size(); ++i)
    for (std::size_t j = v.size(); j > i; --j) {
      if (best.second > best.first && j - i <= best.second - best.first) break;
      std::vector<double> s(v.begin() + static_cast<std::ptrdiff_t>(i),
                            v.begin() + static_cast<std::ptrdiff_t>(j));
      std::sort(s.begin(), s.end());
      double m = s.size() % 2 ? s[s.size() / 2] : (s[s.size() / 2 - 1] + s[s.size() / 2]) / 2;
      bool ok =
          m > 0 && std::all_of(s.begin(), s.end(), [&](double x) { return std::abs(x - m) <= 0.05 * m; });
      if (ok) {
        best = {i, j};
        break;
      }
    }
  return best;
}

TEST(InferredIterations, LongestRunOfLikeWork) {
  using Run = std::pair<std::size_t, std::size_t>;
  EXPECT_EQ(longest_uniform_run({10, 10, 10, 10}), Run(0, 4));
  EXPECT_EQ(longest_uniform_run({5, 10, 10, 10, 10, 30}), Run(1, 5));  // warm-up and tail set aside
  // 100, 104, 96, 100: median 100, each within 5; 110 is 10 from the median of the five (100).
  EXPECT_EQ(longest_uniform_run({100, 104, 96, 100, 110}), Run(0, 4));
  // 95, 105, 100: median 100, each exactly 5 away: like work.
  EXPECT_EQ(longest_uniform_run({95, 105, 100}), Run(0, 3));
  // Alternating work: runs of one; the first wins.
  EXPECT_EQ(longest_uniform_run({48, 30, 48, 30}), Run(0, 1));
  EXPECT_EQ(longest_uniform_run({0, 0, 0}), Run(0, 0));  // no work: no run
  EXPECT_EQ(longest_uniform_run({}), Run(0, 0));
}

TEST(InferredIterations, LongestRunIsTheDefinitions) {
  std::mt19937 random(56);
  for (int trial = 0; trial < 2000; ++trial) {
    std::size_t n = 1 + random() % 24;
    std::vector<std::uint64_t> v(n);
    std::uint64_t base = 1 + random() % 200;
    for (auto& x : v) x = random() % 4 == 0 ? random() % 400 : base + random() % (1 + base / 8);
    ASSERT_EQ(longest_uniform_run(v), by_definition(v)) << "trial " << trial;
  }
}

// Longer runs, as a real family's hundreds of units: repeated blocks of like work with a different
// unit between them (a trace recorded over several iterations), and values that drift. The window's
// order statistics follow each start and end (the earlier search sorted each run anew).
TEST(InferredIterations, LongestRunOfLongFamiliesIsTheDefinitions) {
  std::mt19937 random(58);
  for (int trial = 0; trial < 40; ++trial) {
    std::size_t block = 2 + random() % 20, n = 40 + random() % 80;
    std::uint64_t base = 20 + random() % 300;
    std::vector<std::uint64_t> v(n);
    for (std::size_t k = 0; k < n; ++k) {
      bool odd_one = k % block == block - 1;
      v[k] = odd_one ? base * (random() % 3) / 2 : base + random() % (1 + base / 12);
      if (trial % 3 == 0) base += random() % 2;  // drifts
    }
    ASSERT_EQ(longest_uniform_run(v), by_definition(v)) << "trial " << trial;
  }
}

TEST(InferredIterations, FamilyNamesAndKeyOps) {
  EXPECT_EQ(family_name("FSDP::post_forward (blocks.17._checkpoint_wrapped_module)"),
            "FSDP::post_forward (blocks.#._checkpoint_wrapped_module)");
  EXPECT_EQ(family_name("Torch-Compiled Region: 0/12"), "Torch-Compiled Region: #/#");
}

// Thread 1, without step markers: ops block.0 ... block.6 every 10 ms (2 ms of host time each),
// block.0 launching 1 kernel (a warm-up), the others 4; after each block, at +5 ms, `zero_grad`
// (annotation or op) launching nothing.
// block.# : 7 occurrences, 6 units (block.k to block.k+1) of work 1, 4, 4, 4, 4, 4: the run is units
//           1-5 (5 units of 10 ms, 1 set aside), covering block.1 (10 ms) to block.6 (60 ms) = 50 ms of
//           the thread's top level, 0 to 62 ms: more than half.
// zero_grad: 7 occurrences, 6 units each holding the next block's 4 launches: 6 units of 10 ms.
// The fewest units are block.#'s (5); zero_grad's 6 are within one and its period equal: in the class.
// As an annotation, zero_grad comes first; as an op, "block.#" < "zero_grad" in byte order.
std::string blocks_trace(bool zero_grad_annotation, double spacing_ms = 10, int blocks = 7) {
  TraceBuilder t;
  for (int b = 0; b < blocks; ++b) {
    double s = spacing_ms * 1000 * b;
    t.op("block." + std::to_string(b), s, 2000, 0);
    for (int k = 0; k < (b == 0 ? 1 : 4); ++k) t.launch("gemm", s + 100 + 10 * k, s + 300 + 1000 * k, 900);
    double z = s + spacing_ms * 500;
    if (zero_grad_annotation)
      t.annotation("zero_grad", z, 100);
    else
      t.op("zero_grad", z, 100);
  }
  return t.json();
}

TEST(InferredIterations, TheCoarsestFamilyAnnotationsFirst) {
  WorkerAnalysis ops = analyse_json(blocks_trace(false));
  EXPECT_EQ(ops.steps.source, StepSource::None);
  ASSERT_TRUE(ops.steps.inferred);
  const InferredIterations& i = *ops.steps.inferred;
  EXPECT_EQ(i.family, "block.#");
  EXPECT_EQ(i.kind, InferredKind::Op);
  EXPECT_EQ(i.key_op, "^block\\.\\d+$");
  ASSERT_EQ(i.units.size(), 5u);
  EXPECT_EQ(i.set_aside, 1u);
  EXPECT_EQ(i.work_per_unit, 4);
  EXPECT_FALSE(i.host_work);
  for (std::size_t u = 0; u < 5; ++u) {
    EXPECT_EQ(i.units[u].name, "block." + std::to_string(u + 1));
    EXPECT_EQ(i.units[u].start, static_cast<TimeNs>(u + 1) * 10'000'000);
    EXPECT_EQ(i.units[u].end - i.units[u].start, 10'000'000);
  }
  EXPECT_TRUE(has_line(ops.warnings,
                       "inferred iterations: 5 units of the repeating op 'block.#' (median 10.000 ms, "
                       "4 GPU activities launched a unit, 1 unit of other work set aside)"))
      << note_text(ops.warnings.back());
  WorkerAnalysis annotations = analyse_json(blocks_trace(true));
  ASSERT_TRUE(annotations.steps.inferred);
  EXPECT_EQ(annotations.steps.inferred->family, "zero_grad");
  EXPECT_EQ(annotations.steps.inferred->kind, InferredKind::Annotation);
  EXPECT_EQ(annotations.steps.inferred->units.size(), 6u);
  EXPECT_EQ(annotations.steps.inferred->set_aside, 0u);
}

// Marked steps are never second-guessed; fewer than 4 occurrences find nothing.
TEST(InferredIterations, OnlyWhereNoStepIsMarked) {
  TraceBuilder t;
  for (int s = 0; s < 6; ++s) {
    t.step(s, 10000.0 * s, 9000);
    t.op("block." + std::to_string(s), 10000.0 * s + 10, 2000, 0);
    t.launch("gemm", 10000.0 * s + 100, 10000.0 * s + 300, 900);
  }
  WorkerAnalysis stepped = analyse_json(t.json());
  EXPECT_EQ(stepped.steps.source, StepSource::ProfilerStep);
  EXPECT_FALSE(stepped.steps.inferred);
  WorkerAnalysis three = analyse_json(blocks_trace(false, 10, 3));
  EXPECT_FALSE(three.steps.inferred);
}

// --step-pattern inferred: the 5 units are the window's steps, each 10 ms (its kernels end within
// it: the last of block.k ends at 10k ms + 3.3 ms + 0.9 ms).
TEST(InferredIterations, StepPatternInferredMakesThemSteps) {
  AnalysisOptions options;
  options.step_pattern = "inferred";
  WorkerAnalysis w = analyse_json(blocks_trace(false), options);
  EXPECT_EQ(w.steps.source, StepSource::Inferred);
  ASSERT_EQ(w.steps.steps.size(), 5u);
  EXPECT_EQ(w.steps.steps[0].name, "block.1 (inferred #0)");
  for (const Step& s : w.steps.steps) {
    EXPECT_EQ(s.duration(), 10'000'000) << s.name;
    EXPECT_EQ(s.gpu_activities, 4u);
  }
  EXPECT_EQ(std::string(step_source_name(w.steps.source)), "inferred");
  // Nothing repeats: said, and the whole trace is one window.
  WorkerAnalysis none = analyse_json(blocks_trace(false, 10, 3), options);
  EXPECT_EQ(none.steps.source, StepSource::None);
  EXPECT_TRUE(has_line(none.warnings, "--step-pattern inferred: no repeating top-level range was found"));
}

ReportModel gated(const std::string& before_json, const std::string& after_json) {
  ReportModel before = report_of_json(before_json, default_book());
  Baseline base = baseline_from_report(before, "before.json", "profile");
  ReportModel after = report_of_json(after_json, default_book());
  apply_gate(after, default_rules(), &base, {});
  return after;
}

// The baseline repeats block.# every 10 ms, the run every 11.5 ms (+15%) and holds 2 blocks fewer:
// the windows hold different work (kernels 25 -> 17, -32%), yet per inferred iteration the step
// times compare: the median unit 10 ms -> 11.5 ms, beyond the +5% fail limit.
TEST(InferredIterations, TheGateComparesPerInferredIteration) {
  ReportModel after = gated(blocks_trace(false, 10, 7), blocks_trace(false, 11.5, 5));
  ASSERT_TRUE(after.inferred_iterations);
  EXPECT_EQ(after.inferred_iterations->units_us.size(), 3u);  // 5 blocks: 4 units, 1 set aside
  ASSERT_TRUE(after.baseline);
  EXPECT_TRUE(after.baseline->different_work);
  const ReportFinding* f = find_finding(after, "regression.step-time");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->reason.rfind("compared per inferred iteration: neither run marks steps, both repeat the op "
                            "'block.#' (3 of 5 units in the baseline and 3 in this run matched by name",
                            0),
            0u)
      << f->reason;
  ASSERT_TRUE(f->value && f->baseline);
  EXPECT_DOUBLE_EQ(*f->value, 11500);
  EXPECT_DOUBLE_EQ(*f->baseline, 10000);
  EXPECT_NE(f->status, FindingStatus::Pass);
  EXPECT_NE(f->status, FindingStatus::NotApplicable);
  for (const ReportComparability& c : after.baseline->comparability)
    if (c.factor == "steps") {
      EXPECT_TRUE(c.holds);
      EXPECT_NE(c.text.find("step times compared per inferred iteration (op 'block.#'"), std::string::npos)
          << c.text;
    }
  // The same pair through a JSON report as the baseline: the units are read back.
  std::string report = write_text(temp_dir() + "/before.json",
                                  render_json(report_of_json(blocks_trace(false, 10, 7), default_book())));
  Baseline read = read_baseline_report(report);
  ASSERT_TRUE(read.inferred_iterations);
  EXPECT_EQ(read.inferred_iterations->family, "block.#");
  EXPECT_EQ(read.inferred_iterations->units_us, std::vector<double>(5, 10000));
  // Against itself: compared, and passes.
  ReportModel same = gated(blocks_trace(false), blocks_trace(false));
  EXPECT_EQ(find_finding(same, "regression.step-time")->status, FindingStatus::Pass);
}

// Other families on the two sides: no steps to compare (inconclusive), as without any.
TEST(InferredIterations, OtherFamiliesDoNotCompare) {
  std::string renamed = blocks_trace(false);
  for (std::size_t at = renamed.find("block."); at != std::string::npos; at = renamed.find("block.", at))
    renamed.replace(at, 6, "layer_");
  ReportModel after = gated(blocks_trace(false), renamed);
  const ReportFinding* f = find_finding(after, "regression.step-time");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->status, FindingStatus::Inconclusive);
  EXPECT_EQ(f->reason.rfind("no steps to compare", 0), 0u) << f->reason;
}

}  // namespace
}  // namespace perfgate::testing
