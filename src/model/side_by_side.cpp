#include "model/side_by_side.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <system_error>
#include <thread>

namespace perfgate {

void run_side_by_side(unsigned threads, const std::vector<std::function<void()>>& tasks) {
  if (threads <= 1) {
    for (const auto& task : tasks) task();
    return;
  }
  std::vector<std::exception_ptr> errors(tasks.size());
  std::atomic<std::size_t> next{0};
  auto work = [&] {
    for (std::size_t i = next++; i < tasks.size(); i = next++) {
      try {
        tasks[i]();
      } catch (...) {
        errors[i] = std::current_exception();
      }
    }
  };
  std::vector<std::thread> helpers;
  for (unsigned t = 1; t < std::min<std::size_t>(threads, tasks.size()); ++t) {
    try {
      helpers.emplace_back(work);
    } catch (const std::system_error&) {
      break;
    }
  }
  work();
  for (auto& helper : helpers) helper.join();
  for (auto& e : errors)
    if (e) std::rethrow_exception(e);
}

}  // namespace perfgate
