// The reader of PyTorch's legacy autograd-profiler traces: what torch.profiler and
// torch.autograd.profiler write in a PyTorch built without Kineto (Debian's python3-torch), a bare
// JSON array of "ph": "X" events with "pid": "CPU functions", no "cat" and ProfilerStep#N ranges.
// They become CPU ops and annotations; streamed with Boost.JSON's SAX parser (docs/formats.md).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "io/byte_source.h"
#include "model/profile.h"

namespace perfgate::legacy {

// True when the start of a JSON document (`head`, from its '[') is a legacy trace's: parsed up to
// the end of its first element, that element is an object whose "pid" is "CPU functions" and which
// has no "cat". A head that ends before the first event does is not a legacy trace's (a bare
// array's head is kArrayHeadBytes long, load/reader.h).
bool detect(std::string_view head);

// Reads one trace. Throws InputError naming `path` (invalid JSON, absurd times, past
// `max_memory`), NotAProfileError for an array without a complete event.
Profile read_trace(std::unique_ptr<ByteSource> source, const std::string& path,
                   const std::function<void(std::uint64_t)>& on_progress, std::uint64_t max_memory);

}  // namespace perfgate::legacy
