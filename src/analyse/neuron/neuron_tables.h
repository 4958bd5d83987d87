// The tables of a Neuron device profile (docs/metrics.md, "Neuron tables"): per HLO op, per engine,
// per DMA queue, layer_summary, the profile's warnings, and the device timeline.
#pragma once

#include "analyse/neuron/neuron_results.h"
#include "model/profile.h"

namespace perfgate {

// Empty tables for a profile of another format.
NeuronTables neuron_tables(const Profile& profile);

// The device timeline: each engine row and DMA queue cut into `buckets` equal stretches of the
// capture, each shown as one box named by the HLO op with the most time in it (adjacent boxes of
// one op joined), so its size does not grow with the instruction count.
void neuron_timeline(const Profile& profile, std::size_t buckets, NeuronTables& tables);

}  // namespace perfgate
