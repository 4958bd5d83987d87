// Every kind of activity of one profile as merged interval lists, classified once and shared by
// the breakdown, resource and communication analysers.
#pragma once

#include "analyse/attribution.h"
#include "analyse/classifier.h"
#include "analyse/intervals.h"

namespace perfgate {

// Unions of these (all kernels, memory, communication, the host side) are Layers of the lists,
// never built: a union of hundreds of thousands of host ranges would double the memory.
struct ActivityIntervals {
  IntervalList compute_kernels;        // kernels that are not communication
  IntervalList communication_kernels;  // NCCL/RCCL kernels, or kernels launched by communication ops
  IntervalList tensor_core_kernels;
  IntervalList memcpy;
  IntervalList memset;
  IntervalList communication_ops;  // host ranges of communication ops, where they communicate (below)
  IntervalList runtime;
  IntervalList dataloader;
  IntervalList cpu_ops;  // other ops and annotations (not step markers, not Python frames)

  Layer all_kernels() const { return {&compute_kernels, &communication_kernels}; }
  Layer memory() const { return {&memcpy, &memset}; }
  Layer communication() const { return {&communication_kernels, &communication_ops}; }
  Layer host() const { return {&cpu_ops, &communication_ops, &dataloader, &runtime}; }
};

// `communication_host_time` (rules: attribution): every communication op's host range is
// communication; else only in a profile without GPU activities (CPU collectives), and elsewhere a
// communication op's host time is that of any other op (issue 72, item 6).
ActivityIntervals classify_intervals(const Profile& profile, const Attribution& attribution,
                                     NameClasses& classes, const std::vector<std::uint32_t>& step_markers,
                                     bool communication_host_time = false);

// True for a kernel that belongs to communication (by name, or by the op that launched it).
bool is_communication_kernel(const Profile& profile, const Attribution& attribution, NameClasses& classes,
                             std::size_t activity);

}  // namespace perfgate
