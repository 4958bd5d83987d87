// Per host event: what it launched, alone and with its callees. Built once per worker for the
// op-level analyses (ops, op types, regions, FLOPs, Tensor Core shapes) and freed after them.
// Device time here is the full duration of each activity launched by a call made during the
// window's steps (the DLProf and plugin op views), not clipped to the window.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "analyse/attribution.h"
#include "analyse/classifier.h"
#include "analyse/steps/step_results.h"

namespace perfgate {

class OpStats {
 public:
  OpStats(const Profile& profile, const Attribution& attribution, NameClasses& classes, const Window& window,
          const std::vector<std::uint32_t>& step_markers);

  std::size_t size() const { return flags_.size(); }
  // Activities launched by the event's own runtime calls.
  std::span<const std::uint32_t> launched(std::size_t e) const {
    return {launches_.data() + offsets_[e], launches_.data() + offsets_[e + 1]};
  }
  std::size_t subtree_end(std::size_t e) const { return subtree_end_[e]; }  // one past the last callee
  TimeNs self_device(std::size_t e) const { return range_sum(device_prefix_, e, e + 1); }
  TimeNs self_tc(std::size_t e) const { return range_sum(tc_prefix_, e, e + 1); }
  std::uint32_t self_kernels(std::size_t e) const;
  // With callees: a subtree is a contiguous index range, so its total is the difference of two
  // prefix sums, O(1) however deep the nesting (a chain of N ops was O(N^2) summed per op).
  TimeNs total_device(std::size_t e) const { return range_sum(device_prefix_, e, subtree_end_[e]); }
  TimeNs total_tc(std::size_t e) const { return range_sum(tc_prefix_, e, subtree_end_[e]); }
  // The precision the op's matrix kernels ran in: the kernel_precisions entry of most of the kernel
  // time, among its and its callees' kernels whose names state one (the first met, in event and
  // launch order, among equals); nullptr where none does.
  const KernelPrecisionPattern* kernel_precision(std::size_t e) const;

  // Started during the window's steps on the host (Window::host_start to host_end).
  bool in_window(std::size_t e) const { return flags_[e] & kInWindow; }
  bool backward(std::size_t e) const { return flags_[e] & kBackward; }
  bool eligible(std::size_t e) const { return flags_[e] & kEligible; }
  bool bottom_eligible(std::size_t e) const { return flags_[e] & kBottomEligible; }
  bool top_level_op(std::size_t e) const { return flags_[e] & kTopLevelOp; }  // no op encloses it
  // An op of the op tables: an Op-kind range that is not a step marker (PyTorch 1.8 wrote
  // ProfilerStep#N as an op).
  bool is_op(std::size_t e) const { return flags_[e] & kOp; }

 private:
  static constexpr std::uint8_t kInWindow = 1, kBackward = 2, kEligible = 4, kBottomEligible = 8,
                                kTopLevelOp = 16, kOp = 32;

  // Sums modulo 2^64: a difference of two is the exact sum of the range wherever that fits.
  using Prefix = std::vector<std::uint64_t>;
  static TimeNs range_sum(const Prefix& prefix, std::size_t from, std::size_t to) {
    return static_cast<TimeNs>(prefix[to] - prefix[from]);
  }
  // Per precision entry met among the launched kernels: the launch positions (launches_ order, so a
  // subtree is the range offsets_[e] to offsets_[subtree_end(e)]) of its kernels, ascending, and
  // their time summed along them (one more). Built at the first kernel_precision call.
  struct PrecisionIndex {
    const KernelPrecisionPattern* precision = nullptr;
    std::vector<std::uint32_t> positions;
    Prefix time{0};
  };

  void index_launches(const Attribution& a);
  void sum_device_time();
  void index_precisions() const;
  void mark_window_and_direction(const Window& window, const std::vector<std::uint32_t>& step_markers);
  void mark_eligible(NameClasses& classes);

  const Profile& p_;
  NameClasses& classes_;
  std::vector<std::uint32_t> offsets_;
  std::vector<std::uint32_t> launches_;
  std::vector<std::uint32_t> subtree_end_;
  std::vector<std::uint8_t> flags_;
  Prefix device_prefix_;  // n + 1: the device time launched by the events before each
  Prefix tc_prefix_;      // the same for Tensor Core kernels
  mutable std::vector<PrecisionIndex> precisions_;
  mutable bool precisions_indexed_ = false;
};

// The autograd engine runs backward ops inside "autograd::engine::evaluate_function: X" ranges.
bool is_autograd_wrapper(std::string_view name);

}  // namespace perfgate
