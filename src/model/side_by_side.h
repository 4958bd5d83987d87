// Runs independent tasks on a few threads: the stages of a worker's analysis, the report files.
#pragma once

#include <functional>
#include <vector>

namespace perfgate {

// Runs the tasks on up to `threads` threads (this one included), each started in order, all in
// order on this thread when `threads` is 1. Where no more threads can be started, those there are
// do the rest. Once every task is done, rethrows the first task's exception, in task order.
void run_side_by_side(unsigned threads, const std::vector<std::function<void()>>& tasks);

}  // namespace perfgate
