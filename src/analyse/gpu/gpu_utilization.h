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

// `over_gpu_span`: utilization, busy, idle, SM efficiency and the chunks over each GPU's span in the
// window (its first activity's start to its last one's end), not the whole window: where the host's
// and the GPU's timelines are offset (launch_delay.h).
std::vector<GpuMetrics> gpu_metrics(const Profile& profile, const Window& window, NameClasses& classes,
                                    bool over_gpu_span = false);

}  // namespace perfgate
