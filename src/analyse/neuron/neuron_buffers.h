// The Device Viewer's memory lanes (issue 54): the SBUF and PSUM occupancy over time
// (instruction_usage) and the device memory by use (nc_mem_usage); and the semaphore wait that
// holds an engine before its first instruction.
#pragma once

#include <optional>

#include "analyse/neuron/neuron_results.h"
#include "model/profile.h"

namespace perfgate {

// The device timeline's span: the first start and the last end of the instruction and DMA rows;
// first >= last where there are none.
struct NeuronSpan {
  TimeNs first = 0;
  TimeNs last = 0;
};
NeuronSpan neuron_span(const NeuronDevice& n);

// The buffers and memory tables (neuron_results.h).
void neuron_memory_tables(const Profile& profile, NeuronTables& tables);

// A buffer's occupancy over the rows of `buffers` of its kind that have usage_avg: the highest and
// the time-weighted mean (each row weighted by its duration; rows of no duration: the plain mean),
// in %. Empty where it has none.
struct NeuronBufferStats {
  std::optional<double> peak_pct;
  std::optional<double> mean_pct;
};
NeuronBufferStats neuron_buffer_stats(const std::vector<NeuronBufferRow>& buffers, NeuronBuffer buffer);

// The Total rows' bytes summed over the cores; without one, the sum of every row. Empty without rows.
std::optional<double> neuron_device_memory_bytes(const std::vector<NeuronMemoryUse>& uses);

// The longest semaphore wait an engine row starts before its first instruction (or on a row that
// has no other), in ns; 0 where the instruction rows show none, empty without instruction rows.
std::optional<TimeNs> neuron_leading_wait_ns(const NeuronDevice& n);

}  // namespace perfgate
