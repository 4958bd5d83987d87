// Reads one Kineto / Chrome JSON trace (plain or gzip) into a Profile, streaming.
#pragma once

#include <functional>
#include <memory>

#include "io/byte_source.h"
#include "load/load.h"
#include "model/profile.h"

namespace perfgate::kineto {

struct ReadOptions {
  bool driver_calls =
      true;  // cuda_driver (*_driver) events as runtime calls (ReadSettings::count_driver_api_calls)
  // Threads that parse pieces of the trace at once (1: one pass on the calling thread). The
  // profile is the same either way.
  unsigned threads = 1;
  // Text per piece when threads > 1: small pieces keep the buffers in flight (threads + 2 of them)
  // small; each piece costs a merge, and interns its names, shapes and call stacks afresh. 1 MiB:
  // on 2 threads against 256 KiB, ResNet-50 709.3 M -> 693.8 M instructions and 0.97x the CPU
  // time (the x20 trace 0.97x), the same peak RSS (19-20 MiB; 112 MiB at x20), issue 58. (256 KiB
  // had been chosen when it saved 1.3 MiB at the same instruction count, before the per-piece
  // interning caches.)
  std::size_t piece_bytes = std::size_t{1} << 20;
  // The most memory the trace may make the reader hold (LoadOptions::max_input_memory); 0: no limit.
  std::uint64_t max_memory = kDefaultMaxInputMemory;
};

// `on_progress` gets the file bytes consumed so far. Throws InputError naming `path`
// (InputMemoryError past options.max_memory, checked after each chunk of text).
Profile read_trace(std::unique_ptr<ByteSource> source, const std::string& path,
                   const std::function<void(std::uint64_t)>& on_progress, const ReadOptions& options = {});

// As read_trace, from a source `open` gives, parsed on options.threads threads where the trace
// can be split into pieces of events. Bad input is read again in one pass (`open` is called a
// second time), so that messages are those of read_trace.
using SourceOpener = std::function<std::unique_ptr<ByteSource>()>;
Profile read_trace(const SourceOpener& open, const std::string& path,
                   const std::function<void(std::uint64_t)>& on_progress, const ReadOptions& options = {});

class BlockMerger;
struct TraceMetadataText;

// What both readers do once the events are in: the merger's records and notes, the top-level
// metadata, the invalid-UTF-8 note, time order and the host tree (on up to `threads` threads).
void complete_profile(Profile& profile, BlockMerger& merger, const TraceMetadataText& metadata,
                      std::uint64_t invalid_utf8, const std::string& path, unsigned threads);

}  // namespace perfgate::kineto
