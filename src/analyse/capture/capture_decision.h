// The capture profile (common/capture_profile.h), decided once per worker after its analyses and
// before any rule runs, and combined for a run: what the devices are, which frameworks and
// runtimes the capture shows, what it does, and how its window splits into phases. Each field says
// what decided it, and stays unknown where the trace cannot tell (docs/metrics.md, "The capture
// profile").
#pragma once

#include <vector>

#include "analyse/classifier.h"
#include "analyse/worker_analysis.h"
#include "common/capture_profile.h"
#include "model/profile.h"

namespace perfgate {

// From what the readers recorded (the device family, GPU names and architectures, TPU planes), the
// names the rules mark (classification: capture_frameworks, capture_workloads), the backward ops
// and serving steps the analyses counted, and the one-offs of the window (host.warmup).
CaptureProfile decide_capture(const Profile& profile, const CompiledClassification& compiled,
                              const WorkerAnalysis& w);

// A run's profile from its workers' (in worker order): devices summed by kind, vendor and model,
// frameworks united, the workload where every worker that shows one agrees (else unknown, its
// evidence naming each), the phases summed.
class CaptureCombiner {
 public:
  void add(const CaptureProfile& worker);
  CaptureProfile finish() const;

 private:
  CaptureProfile run_;
  std::vector<std::size_t> workload_workers_ = std::vector<std::size_t>(kCaptureWorkloadNames.size());
  std::size_t workers_ = 0;
};

}  // namespace perfgate
