#include "model/xla_hlo.h"

#include <algorithm>

namespace perfgate {

const XlaOp* XlaHlo::op(std::uint32_t details) const {
  auto it = std::lower_bound(ops.begin(), ops.end(), details,
                             [](const XlaOp& o, std::uint32_t d) { return o.details < d; });
  return it != ops.end() && it->details == details ? &*it : nullptr;
}

std::size_t XlaHlo::memory_bytes() const {
  return computations.capacity() * sizeof(HloComputation) + instructions.capacity() * sizeof(HloInstruction) +
         shapes.capacity() * sizeof(HloShape) + dims.capacity() * sizeof(std::int64_t) +
         operands.capacity() * sizeof(std::uint32_t) + ops.capacity() * sizeof(XlaOp) +
         program_ops.capacity() * sizeof(XlaProgramOp);
}

}  // namespace perfgate
