// The HTML page's Neuron device section (the Neuron Device Viewer's core): summary cards, the
// engines' active shares, and the device timeline with a lane per engine row and DMA queue, its
// boxes coloured by HLO op.
#pragma once

#include "render/templates.h"
#include "report_model/report.h"

namespace perfgate {

// Sets "neuron" in the page's view when the first worker is a Neuron device profile.
void add_neuron(const ReportModel& r, TemplateData& view);

}  // namespace perfgate
