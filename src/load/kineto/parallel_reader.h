// Reads one trace's events on several threads. The text is cut into pieces at event starts
// ("}," then "{"); each piece is parsed as an array of events into an EventBlock on a thread of a
// small pool, and the blocks are merged in order as they finish, so that memory holds a few
// pieces, not the trace. A cut inside an event leaves its piece unparsable (it ends inside an
// object or a string), so a trace whose every piece parses was cut only between events.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "io/byte_source.h"
#include "load/kineto/kineto_reader.h"
#include "model/profile.h"

namespace perfgate::kineto {

// The profile read_trace would give, or nullopt where the trace is not read this way: bad input of
// any kind (read_trace then says what is wrong), a traceEvents key it does not find by its bytes,
// or pieces that cannot be joined exactly.
std::optional<Profile> read_trace_in_pieces(ByteSource& source, const std::string& path,
                                            const std::function<void(std::uint64_t)>& on_progress,
                                            const ReadOptions& options);

}  // namespace perfgate::kineto
