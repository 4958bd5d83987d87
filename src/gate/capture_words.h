// The capture as the advice and the words of a finding need it (issue 89): its devices' kinds and
// vendors, its frameworks and its workload, from the report's capture profile
// (common/capture_profile.h). Where the profile leaves a field unknown, what the run itself shows
// stands in: the vendors and the training/inference split of gate/run_context.h, and PyTorch for a
// run with an input of PyTorch's own traces.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "common/capture_profile.h"
#include "gate/rules.h"
#include "report_model/report.h"

namespace perfgate {

struct Baseline;

struct CaptureView {
  struct Device {
    std::string_view kind, vendor;  // kDeviceKindNames, kDeviceVendorNames
  };
  std::vector<Device> devices;  // most devices first; empty: unknown
  std::vector<std::string> frameworks;
  CaptureWorkload workload = CaptureWorkload::Unknown;
  // The run serves or infers, and the profile does not say which (gate/run_context.h's Inference).
  bool inference = false;
  std::string_view phase;  // window_phase's; empty: unknown
};

CaptureView capture_view(const ReportModel& report);

// The window's phase: "steady" where the steady state is more than half of the window, else the
// one-off phase that holds the most of it ("setup", "teardown", "profiler"); empty where the
// capture has no phases (no window steps).
std::string_view window_phase(const CapturePhases& phases);
// The names `phases:` may list.
const std::vector<std::string_view>& capture_phase_names();

// Whether a `recommendations` entry is worded for the capture by its `devices`, `frameworks`,
// `workloads`, `phases`, `vendors` and `workload` keys (each empty: any capture; each set: unknown
// matches none). Its `formats` are the evaluation's to check.
bool worded_for_capture(const Rule::ConditionalText& entry, const CaptureView& capture);

// The words of `vocabulary: words` that fit the capture, by placeholder name.
struct CaptureWords {
  std::vector<std::pair<std::string, std::string>> words;
  // The word for `name` ("device" -> "GPU"); "Device" capitalises it. Empty where `name` is no word.
  std::string word(std::string_view name) const;
};
CaptureWords capture_words(const std::vector<VocabularyWords>& vocabulary, const CaptureView& capture);

// "serving on AMD GPUs", "an unknown workload on unknown devices": what the capture is, for a
// finding that gives no remedy because every entry of its rule is worded for other captures.
std::string capture_phrase(const CaptureView& capture, const CaptureWords& words);

// The capture's words for the fixed terms of the outputs and the rules' titles ("GPU", "Tensor
// Cores", "CUDA runtime"; report_model's in_capture_terms): the device words where the capture's
// devices are not GPUs, the matrix units' and runtime's where they are not NVIDIA's; none where the
// devices are unknown or NVIDIA GPUs, whose words the fixed terms are.
CaptureTerms capture_terms(const CaptureWords& words, const CaptureView& capture);

// Whether a rule's `docs` link fits the capture: it names no term of a `framework_terms` group
// (pytorch.org names "torch.") whose frameworks, devices or workloads the capture has none of. A
// JAX capture is not sent to PyTorch's profiler page; a capture that cannot tell keeps no such link.
bool link_fits_capture(std::string_view url, const std::vector<FrameworkTerms>& groups,
                       const CaptureView& capture);

// The capture, its words and its terms, decided once per gate run: every rule's text and the
// outputs' titles read the same.
struct CaptureWording {
  CaptureView view;
  CaptureWords words;
  CaptureTerms terms;
};
CaptureWording capture_wording(const std::vector<VocabularyWords>& vocabulary, const ReportModel& report);

// gate.h's evaluate_rules in the wording the caller decided (evaluate_gate's, for the titles too).
std::vector<ReportFinding> evaluate_rules(const RuleSet& rules, const ReportModel& report,
                                          const Baseline* baseline, std::string_view no_baseline_reason,
                                          const CaptureWording& wording);

// The placeholder names a vocabulary may fill (rules check accepts each, and capitalised).
const std::vector<std::string_view>& vocabulary_word_names();

// The frameworks a `words` entry may be `for` (the capture profile's names: capture_frameworks in
// rules/default.yaml), besides device kinds and vendors and workloads.
const std::vector<std::string_view>& vocabulary_framework_names();

}  // namespace perfgate
