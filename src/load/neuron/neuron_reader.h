// The AWS Neuron device profile reader: `neuron-profile view --output-format json` (the full JSON:
// summary, instruction and DMA rows, layer_summary, warnings) and `--output-format summary-json`
// (summary metrics keyed by node id), streamed with Boost.JSON's SAX parser (docs/formats.md).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "io/byte_source.h"
#include "model/profile.h"

namespace perfgate::neuron {

// Which Neuron profile the start of a JSON object (`head`, from its '{') is, if any: the full JSON
// begins with one of its sections (summary, instruction, dma, ...); summary-json with a node id
// ("n_...") whose value is an object, or an object whose first key is a summary metric's.
enum class ProfileJson : unsigned char { None, Full, Summary };
ProfileJson detect_json(std::string_view head);

struct ReadOptions {
  bool summary_json = false;     // the file is summary-json
  std::uint64_t max_memory = 0;  // 0: no limit
};

// Reads one file and hands each profile in it to `emit`: one for the full JSON, one per node of a
// summary-json. Throws InputError naming the file (NotAProfileError for a JSON document that holds
// no Neuron summary or instruction rows).
void read_profile(std::unique_ptr<ByteSource> source, const std::string& path,
                  const std::function<void(std::uint64_t)>& on_progress, const ReadOptions& options,
                  const std::function<void(Profile&&)>& emit);

// The Device Viewer row ("Tensor", "TensorMatrix", "Vector", "Scalar", "GpSimd", "Sync",
// "CC-core 0") as an engine: by its name's start, case aside; anything else is Other.
NeuronEngine engine_of_lane(std::string_view label);

}  // namespace perfgate::neuron
