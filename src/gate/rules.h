// The rules of the expert system and the gate, as the rule files (YAML) define them: each rule, and
// the gate's settings (`advice:`, `critical_path: min_coverage_pct`). The files' format is the
// rule-files stage's (rule_files/rule_files.h) and the knowledge the analyses read from them the
// knowledge stage's (knowledge/classification.h); the engine reads both from each file
// (engine/rule_book.h).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/device_family.h"
#include "report_model/report.h"  // ChangeLimit

namespace perfgate {

struct Classification;  // knowledge/classification.h: effective_rules_yaml writes it back

enum class Severity { Warning, Error };
enum class Better { Lower, Higher };  // which way a metric improves
enum class StepTest { None, MannWhitney, RobustT };
enum class InconclusiveAs { Warning, Error, Pass };  // how an inconclusive comparison counts

// Which rows of a report table a finding lists as its offenders.
struct OffenderQuery {
  std::string table;           // a worker table ("ops", "tc_shapes", ...)
  std::string where;           // expression over the row's numeric and true/false columns; empty: every row
  std::string sort;            // numeric column, largest first; empty: table order
  std::string label = "name";  // a column, or several: "op, input_shapes"
  std::string show;            // numeric column quoted next to the label; empty: none
  std::size_t limit = 5;
};

struct Rule {
  std::string id;  // stable, [a-z0-9.-]
  std::string title;
  std::string metric;     // a catalog name, or baseline./delta./ratio. of one
  std::string value;      // an expression over metrics, instead of `metric`
  std::string unit;       // of `value` (a metric has its catalog unit)
  std::string condition;  // fires when true (with `severity`), instead of thresholds
  std::string applies_if;
  bool compare_baseline = false;  // thresholds are changes against the baseline
  std::optional<Better> better;
  std::string warn_text, fail_text;  // the thresholds as written; empty: none
  // Derived from the texts: absolute thresholds, or changes against the baseline.
  std::optional<double> warn, fail;
  std::optional<ChangeLimit> warn_change, fail_change;
  Severity severity = Severity::Warning;  // of a condition rule, or of `threshold`
  StepTest test = StepTest::None;
  double alpha = 0.05;
  double confidence = 0.95;
  InconclusiveAs inconclusive = InconclusiveAs::Warning;
  std::string problem, recommendation, docs, source;
  // `recommendations:` the first entry whose `when` holds replaces `recommendation` (e.g. by the
  // main cause of the GPUs' idle time).
  struct ConditionalText {
    std::string when;  // expression; empty: wherever the entry is worded for the capture
    std::string text;  // message template
    // `formats:` the input formats it is worded for ("xplane": JAX and TensorFlow), each input of the
    // run being one of them; empty: any run.
    std::vector<std::string> formats = {};
    // `vendors:` the device vendors it is worded for ("nvidia", "amd", "tpu", "neuron"), every GPU
    // of the run being of one of them (gate/run_context.h); empty: any run.
    std::vector<std::string> vendors = {};
    // `workload:` "training" or "inference": the run must be known to be that one
    // (gate/run_context.h); empty: any run.
    std::string workload = {};
    // `claims:` the cause this entry's advice answers, where it is not the rule's (`claims`).
    std::string claims = {};
    // The captures it is worded for (issue 89; gate/capture_words.h), each key empty for any:
    // `devices:` device kinds or vendors, every device of the capture being one of them;
    // `frameworks:` one of them is in the capture; `workloads:` the capture's workload is one of
    // them ("inference" stands for serving and offline-inference).
    std::vector<std::string> devices = {};
    std::vector<std::string> frameworks = {};
    std::vector<std::string> workloads = {};
    // `phases:` the window's phase is one of them ("steady", "setup", "teardown", "profiler";
    // gate/capture_words.h's window_phase): advice to profile a later window is for a window of
    // one-offs, launch advice for the steady state. Empty: any window.
    std::vector<std::string> phases = {};
    // `docs:` the link for this advice, in place of the rule's `docs` (a JAX capture's profiler
    // page, not PyTorch's). Empty: the rule's, where it fits the capture (gate/capture_words.h).
    std::string docs = {};
  };
  std::vector<ConditionalText> recommendations;
  // Tables the finding points at ("gpu_gaps", "ops"): each output names them where it has them, and
  // says where they are where it does not, so the recommendation text never names a table.
  std::vector<std::string> see;
  std::string gain;  // expression: estimated recoverable share of the step time, in %
  // Expression: the most that removing the cause could save, in % of the step time (the GPU idle
  // time, the exposed communication, ...). The gain never exceeds it, and findings whose `saves`
  // is the same text claim the same time: "What to fix first" ranks them once.
  std::string saves;
  // Expression: the time the cause spends on the step's critical path, in % of the step time (the
  // critical path's GPU compute, communication, host or data-loading time). Where the trace has a
  // critical path the gain never exceeds it: shortening work off the path does not shorten the
  // step. Where the expression has no value (no critical path: a Neuron profile, no host range) it
  // bounds nothing.
  std::string on_path;
  // Expression: without it a pass is no evidence (ranks missing from the run): the rule is then
  // not applicable instead of passing; a rule that fires still fires.
  std::string pass_needs;
  // `claims:` the cause of the GPUs' idle time the rule's advice answers (one of `advice: causes`);
  // empty: none. Findings that claim opposed causes are made to agree after every rule has run
  // (gate/agreement.h).
  std::string claims;
  std::vector<std::pair<std::string, std::string>> values;  // named expressions for messages
  std::optional<OffenderQuery> offenders;
  // `family:` the device families whose profiles the rule is about (SPEC 2, "device family"): it is
  // evaluated, listed and counted only in a run with a profile of one of them. Empty: every run.
  std::vector<DeviceFamily> families;
  // `frameworks:` the frameworks whose users the rule is about ("pytorch" for DistributedDataParallel):
  // a run whose capture names its frameworks and none of these does not list it (issue 89: no
  // report names another framework's terms). Empty: every framework.
  std::vector<std::string> frameworks;
  bool enabled = true;
  std::string defined_at;  // "file:line" of the rule's last definition or override
};

// A cause of the GPUs' idle time that a rule may claim (`advice: causes`): whether its remedy is
// the host's, and its evidence, an expression of the share of the window it explains. A host cause
// and a cause that is not the host's oppose: where two fired findings claim such a pair, the one
// with the stronger evidence speaks and the other defers to it.
struct ClaimedCause {
  std::string name;
  bool host = true;
  std::string evidence;
  std::string source;
};

// `vocabulary: words`: the words the findings use for what the capture ran on and what it did
// (`{device}`, `{matrix_units}`, ...), for captures of one device kind, vendor or workload
// (`for:`), or for any ("default"). The entries that fit a capture apply in order, a later one's
// word replacing an earlier one's.
struct VocabularyWords {
  std::string for_capture;
  std::vector<std::pair<std::string, std::string>> words;  // placeholder name, word
  std::string source;
};

// `vocabulary: framework_terms`: names in advice that only the users of some frameworks, devices or
// workloads can act on (DataLoader, trtexec, "convergence"). A `recommendations` entry whose text
// names one declares one of the group's frameworks, devices, workloads or formats, and a rule's
// `recommendation`, which declares none, names none (rules check).
struct FrameworkTerms {
  std::vector<std::string> terms;
  std::vector<std::string> frameworks, devices, workloads, formats;
  std::string source;
};

struct RuleSet {
  std::vector<Rule> rules;
  std::vector<VocabularyWords> words;
  std::vector<FrameworkTerms> framework_terms;
  std::vector<ClaimedCause> idle_causes;
  // "What to fix first" lists only findings whose gain is at least this share of the step
  // (`advice: fix_first_min_gain_pct`); the others stay in the findings list.
  double fix_first_min_gain_pct = 1;
  // A rule's gain is bounded by its cause's time on the critical path (`on_path`) only where the
  // paths cover at least this share of the steps (`critical_path: min_coverage_pct`,
  // critical_path.coverage_pct): elsewhere the path leaves too much of the step unexplained to
  // bound anything.
  double critical_path_min_coverage_pct = 80;
  // FLOPs measure a run's work (the kernel time a TFLOP, the step time per FLOP) only where both
  // runs count them for at least this share of their matrix work: the knowledge's
  // compute.mfu_min_flops_coverage_pct, copied by load_rule_book, as MFU reads it.
  double min_flops_coverage_pct = 50;
  std::vector<std::string> sources;  // the files applied, base first ("default" for the shipped set)
  // `capture:` the fields of the capture profile the files set in place of the analysis' (a later
  // file's field replaces an earlier one's); the engine applies them before the gate runs.
  CaptureOverride capture;
};

// Command-line overrides: "ID.KEY=VALUE" (--set) and rule ids to disable (--disable), checked
// like a rule file. Throws ConfigError.
void apply_rule_overrides(RuleSet& rules, const std::vector<std::string>& settings,
                          const std::vector<std::string>& disabled);

// When a rule fires, in words: "warn < 50, fail < 30", "warn +3%, fail +5% vs baseline", or
// "when <condition>".
std::string rule_limits_text(const Rule& rule);

// The knowledge and the rules as one self-contained rule file (extends: none), for
// --print-effective-rules.
std::string effective_rules_yaml(const Classification& knowledge, const RuleSet& rules);

}  // namespace perfgate
