// Top-level facts of a Kineto trace: device properties, distributed info, schema version.
#pragma once

#include "load/kineto/trace_handler.h"
#include "model/profile.h"

namespace perfgate::kineto {

// Fills profile.info and profile.devices. Returns an empty string or the problem found.
std::string apply_metadata(const TraceMetadataText& text, Profile& profile);

}  // namespace perfgate::kineto
