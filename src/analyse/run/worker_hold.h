// How a run holds what it keeps of each worker until its report (RunCombiner: each worker's summary
// once its tables are let go, its collectives for the matching across ranks). A run folder of many
// ranks keeps that for every rank, so the engine has it packed into the spill file under
// --max-memory (io/spill_arena.h, PackScope; issue 78), where the process's resident memory need
// not hold it. Without a maker it is made on the heap.
#pragma once

#include <cstddef>
#include <functional>
#include <utility>
#include <vector>

namespace perfgate {

// Runs `make`, which copies what is kept, under the scope that holds it. `packing`: whether the
// scope packs what is made now (the spill file's pack, past a quarter of the budget); where it does
// not, the copy would be one more on the heap, and `make` may keep what it has (issue 78: a copy
// of each of a run folder's tiny ranks, 4.9 k instructions a rank).
using HoldScope = std::function<void(const std::function<void(bool packing)>& make)>;
using HoldScopeMaker = HoldScope (*)();

// Each RunCombiner made after this takes its own scope from `maker` (a scope is used by one thread
// at a time: the combiner's, under its lock). Set before runs start (the engine's memory budget).
void set_worker_hold(HoldScopeMaker maker);
HoldScope worker_hold();  // a new scope from the maker; empty where none is set

// What a worker keeps of each step until its report (the step's name in its steps, iterations and
// critical path, and in the report's steps list; a critical-path step's top ops): a few small
// blocks a step, ~165 B that the spill file did not take (issue 92: a million steps peaked at
// 224 MiB of anonymous memory at --max-memory 64M). A list of `rows` calls added() after each row
// and finish() after the last: each kRowHoldBatch rows made, `repack` makes the heap parts of each
// again under a scope of worker_hold(), which packs them where the budget calls for it (one scope a
// batch: a scope looks at the resident set). A list of fewer rows takes no scope and copies nothing.
inline constexpr std::size_t kRowHoldBatch = 4096;
template <class Row, class Repack>
class RowHold {
 public:
  RowHold(std::vector<Row>& rows, Repack repack) : rows_(rows), repack_(std::move(repack)) {}
  RowHold(const RowHold&) = delete;
  RowHold& operator=(const RowHold&) = delete;
  void added() {
    if (rows_.size() - held_ >= kRowHoldBatch) hold();
  }
  void finish() {
    if (started_ && held_ < rows_.size()) hold();
  }

 private:
  void hold() {
    if (!started_) {
      scope_ = worker_hold();
      started_ = true;
    }
    if (scope_)
      scope_([this](bool packing) {
        if (packing)
          for (std::size_t i = held_; i < rows_.size(); ++i) repack_(rows_[i]);
      });
    held_ = rows_.size();
  }
  std::vector<Row>& rows_;
  Repack repack_;
  HoldScope scope_;
  std::size_t held_ = 0;
  bool started_ = false;
};

// A pass over every worker of a run (the run's metrics, its warnings, its report) reads each held
// worker back, and under --max-memory their pages are the spill file's, mapped again as they are
// read: tens of thousands of ranks map hundreds of MB in a few milliseconds, faster than the
// engine's resident guard looks on a loaded machine (issue 78: 65,536 tiny ranks peaked at
// 436 MiB at --max-memory 256M). Such a pass calls look_after_worker(i) for each worker i; every
// 64th calls the engine's look (io/spill_arena.h, trim_if_spilled), set before runs start.
using WorkerLook = void (*)();
void set_worker_look(WorkerLook look);
void call_worker_look();
inline void look_after_worker(std::size_t i) {
  if ((i & 63U) == 63U) call_worker_look();
}

// `workers` for a range-for that calls look_after_worker for each: `for (auto& w : looked(workers))`.
template <class Workers>
class LookedWorkers {
 public:
  explicit LookedWorkers(const Workers& workers) : workers_(workers) {}
  class iterator {
   public:
    using Inner = typename Workers::const_iterator;
    iterator(Inner at, std::size_t index) : at_(at), index_(index) {}
    const auto& operator*() const { return *at_; }
    iterator& operator++() {
      look_after_worker(index_++);
      ++at_;
      return *this;
    }
    bool operator!=(const iterator& other) const { return at_ != other.at_; }

   private:
    Inner at_;
    std::size_t index_;
  };
  iterator begin() const { return {workers_.begin(), 0}; }
  iterator end() const { return {workers_.end(), workers_.size()}; }

 private:
  const Workers& workers_;
};
template <class Workers>
LookedWorkers<Workers> looked(const Workers& workers) {
  return LookedWorkers<Workers>(workers);
}

}  // namespace perfgate
