// Rows of hand-built Nsight Systems exports (the tables of nsys_builder.h) for one thread of one
// process: a runtime call, a kernel on device 0, stream 7, and a push/pop NVTX range.
#pragma once

#include <cstdint>
#include <string>

namespace perfgate::testing {

struct NsysThread {
  std::int64_t pid = 10;
  std::int64_t tid = 10;
  // INSERT statements; `name_id` is a StringIds id.
  std::string call(std::int64_t start, std::int64_t end, std::int64_t correlation, int name_id) const;
  std::string kernel(std::int64_t start, std::int64_t end, std::int64_t correlation, int name_id) const;
  std::string range(std::int64_t start, std::int64_t end, const std::string& text) const;
};

}  // namespace perfgate::testing
