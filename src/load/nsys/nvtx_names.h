// What an NVTX range's text says: a PyTorch emit_nvtx op ("aten::mm, seq = 3, op_id = 7,
// sizes = [[2, 3], [3, 4]]"), a PyProf marker (a Python dict literal), or a user region.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace perfgate::nsys {

enum class NvtxMeaning { Region, Op, CallStack };

struct NvtxText {
  NvtxMeaning meaning = NvtxMeaning::Region;
  std::string name;            // never with emit_nvtx suffixes or a dict literal in it
  std::int32_t sequence = -1;  // autograd sequence number (seq = N), -1: none
  std::string input_dims;      // compact JSON, e.g. [[2,3],[3,4]]; empty: unknown
  std::string input_types;     // compact JSON, e.g. ["c10::Half","float"]; empty: unknown
  std::string call_stack;      // PyProf traceMarker: frames joined by ';'
};

// Reads one range text. Never throws: text that does not parse as a marker is a region name.
NvtxText read_nvtx_text(std::string_view text);

}  // namespace perfgate::nsys
