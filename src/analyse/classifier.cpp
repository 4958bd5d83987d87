#include "analyse/classifier.h"

namespace perfgate {

CompiledClassification::CompiledClassification(const Classification& c)
    : tensor_core_kernels(c.tensor_core_kernels, "tensor_core_kernels"),
      eligible_ops(c.tensor_core_eligible_ops, "tensor_core_eligible_ops"),
      communication_kernels(c.communication_kernels, "communication_kernels"),
      communication_ops(c.communication_ops, "communication_ops"),
      dataloader_ops(c.dataloader_ops, "dataloader_ops"),
      attribute_by_time_containment(c.attribute_by_time_containment) {}

}  // namespace perfgate
