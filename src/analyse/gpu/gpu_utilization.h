// Per-GPU activity over the window, with the TensorBoard plugin's definitions:
// utilization = union of kernel intervals / window; busy adds memcpy and memset; est. SM
// efficiency = time integral of min(sum of active kernels' blocks per SM, 1) / window;
// achieved occupancy = kernel occupancy weighted by kernel time in the window. And each GPU's busy
// time over the whole capture, against the window's capture and GPU spans (set_capture_spans).
#pragma once

#include "analyse/classifier.h"
#include "analyse/gpu/gpu_results.h"
#include "analyse/steps/step_results.h"

namespace perfgate {

// Copies what the trace says about a device (name, compute capability, SMs, memory) into `g`.
void describe_device(const DeviceInfo& d, GpuMetrics& g);

std::vector<GpuMetrics> gpu_metrics(const Profile& profile, const Window& window, NameClasses& classes);

}  // namespace perfgate
