// The capture-advice tests' shared set-up (issue 89): a capture profile set by hand on the report of
// a hand-built trace, and the one finding the gate gives it.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gate/gate.h"
#include "gate/rules.h"
#include "support/helpers.h"

namespace perfgate::testing {

inline bool says(const std::string& text, std::string_view what) {
  return text.find(what) != std::string::npos;
}

inline CaptureProfile profile(DeviceKind kind, DeviceVendor vendor, CaptureWorkload workload,
                              std::vector<std::string> frameworks = {}) {
  CaptureProfile p;
  p.devices.push_back({kind, vendor, "", 1, "set by the test"});
  for (std::string& f : frameworks) p.frameworks.push_back({std::move(f), "set by the test"});
  p.workload = workload;
  return p;
}

// The finding `id` of the gated report of `json` under `capture`, as though read from an input of
// `format` ("" keeps the trace's own).
inline ReportFinding gated_finding(const std::string& json, const CaptureProfile& capture,
                                   std::string_view id, const std::string& format,
                                   const RuleSet& rules = default_rules()) {
  ReportModel report = report_of_json(json, default_book());
  report.capture = capture;
  if (!format.empty()) {
    ReportInput input;
    input.path = "trace";
    input.format = format;
    report.inputs = {input};
  }
  apply_gate(report, rules, nullptr, {});
  const ReportFinding* f = find_finding(report, id);
  EXPECT_TRUE(f) << id;
  return f ? *f : ReportFinding{};
}
inline ReportFinding gated_finding(const std::string& json, const CaptureProfile& capture,
                                   std::string_view id, const RuleSet& rules = default_rules()) {
  return gated_finding(json, capture, id, "", rules);
}

}  // namespace perfgate::testing
