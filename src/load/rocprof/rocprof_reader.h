// The rocprofv3 JSON reader (`rocprofv3 --output-format json`, plain or gzip): ROCm's profiler
// without PyTorch. Kernel dispatches per agent and queue named from kernel_symbols, memory copies,
// HIP API calls (the launches' correlation) and RCCL API calls, the GPU agents as devices; streamed
// with Boost.JSON's SAX parser (rocprof_handler.h), no DOM (docs/formats.md, "rocprofv3").
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "io/byte_source.h"
#include "model/profile.h"

namespace perfgate::rocprof {

// Whether the start of a JSON object (from its '{') is rocprofv3's document: its first key is
// "rocprofiler-sdk-tool".
bool looks_like_rocprof(std::string_view json_head);

struct ReadOptions {
  std::uint64_t max_memory = 0;  // 0: no limit
};

// Reads the document `source` streams (inflated where the file is gzip) into one profile per process
// of the document. Throws InputError naming `path` (the byte of the JSON text where it is malformed;
// a document with no dispatch, copy or API record is "holds no profiled activity").
void read_document(ByteSource& source, const std::string& path, const ReadOptions& options,
                   const std::function<void(std::uint64_t)>& on_progress,
                   const std::function<void(Profile&&)>& emit);

}  // namespace perfgate::rocprof
