// Compiled as a renderer's source is (perfgate_render's include paths): what a renderer may
// include. The build fails if a stage it needs stops being visible to it.
#include "perfgate/render.h"
#include "perfgate/report.h"
#include "perfgate/units.h"
#include "render/escape.h"

namespace perfgate {
std::size_t layering_probe_breakdown_parts() {
  return kBreakdownParts;
}
}  // namespace perfgate
