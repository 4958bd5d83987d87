// Reads one Kineto / Chrome JSON trace (plain or gzip) into a Profile, streaming.
#pragma once

#include <functional>
#include <memory>

#include "load/byte_source.h"
#include "perfgate/profile.h"

namespace perfgate::kineto {

struct ReadOptions {
  bool driver_calls =
      true;  // cuda_driver (*_driver) events as runtime calls (LoadOptions::read_driver_calls)
};

// `on_progress` gets the file bytes consumed so far. Throws InputError naming `path`.
Profile read_trace(std::unique_ptr<ByteSource> source, const std::string& path,
                   const std::function<void(std::uint64_t)>& on_progress, const ReadOptions& options = {});

}  // namespace perfgate::kineto
