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

// One 1 ms step: an aten::add of two [4096, 4096] BF16 tensors (100,663,296 bytes moved) whose
// kernel runs 900 us, tens of times its memory roofline on any GPU: ops.far-from-roofline fires
// whatever the device.
inline std::string slow_add_trace(const std::string& gpu, int major, int minor, std::int64_t memory,
                                  int units) {
  TraceBuilder t;
  t.device(0, gpu, major, minor, memory, units);
  t.step(1, 0, 1000);
  t.op("aten::add", 10, 30, 1, 1,
       R"("Input Dims": [[4096, 4096], [4096, 4096], []], )"
       R"("Input type": ["c10::BFloat16", "c10::BFloat16", "Scalar"])");
  t.launch("vectorized_elementwise_kernel", 12, 50, 900, 1);
  return t.json();
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
