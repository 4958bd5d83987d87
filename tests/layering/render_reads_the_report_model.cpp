// Compiled as a renderer's source is (perfgate_render's include paths): what a renderer may
// include. The build fails if a stage it needs stops being visible to it.
#include "common/units.h"
#include "render/escape.h"
#include "render/render.h"
#include "report_model/report.h"

namespace perfgate {
std::size_t layering_probe_breakdown_parts() {
  return kBreakdownParts;
}
}  // namespace perfgate
