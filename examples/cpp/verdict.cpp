// perfgate-verdict PROFILE...: a training harness's view of its own profile, through perfgate's
// public C++ API: the verdict, what the capture is, three metrics by typed id, and the findings
// that fired, then the exit code `perfgate analyze` would give (docs/api.md).
#include <perfgate/engine.h>

#include <iostream>
#include <optional>
#include <string_view>

namespace {

std::string_view verdict_name(perfgate::Verdict verdict) {
  switch (verdict) {
    case perfgate::Verdict::Pass:
      return "pass";
    case perfgate::Verdict::Warn:
      return "pass with warnings";
    case perfgate::Verdict::Fail:
      return "fail";
  }
  return "?";
}

void print_metric(const perfgate::Report& report, perfgate::Metric metric) {
  const perfgate::MetricInfo& info = perfgate::metric_info(metric);
  std::cout << "  " << info.label << " (" << info.name << "): ";
  if (std::optional<double> value = report.metric(metric))
    std::cout << *value << ' ' << info.unit << '\n';
  else
    std::cout << "n/a\n";
}

}  // namespace

int main(int argc, char** argv) {
  perfgate::AnalysisRequest request;
  for (int i = 1; i < argc; ++i) request.profiles.emplace_back(argv[i]);
  try {
    perfgate::Report report = perfgate::analyze(request);
    std::cout << "perfgate " << perfgate::version() << ": " << verdict_name(report.verdict()) << '\n'
              << "capture: " << report.capture() << '\n';
    print_metric(report, perfgate::Metric::StepsMedianUs);
    print_metric(report, perfgate::Metric::GpuUtilizationPct);
    print_metric(report, perfgate::Metric::GpuIdlePct);
    for (const perfgate::Finding& finding : report.findings())
      if (finding.fired())
        std::cout << (finding.outcome == perfgate::RuleOutcome::Fail ? "error: " : "warning: ")
                  << finding.rule << ": " << finding.title << '\n';
    for (const std::string& warning : report.warnings()) std::cout << "note: " << warning << '\n';
    return report.exit_code();
  } catch (const perfgate::Error& e) {
    std::cerr << "perfgate-verdict: " << e.what() << '\n';
    return e.exit_code();
  }
}
