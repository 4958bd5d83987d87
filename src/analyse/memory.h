// Peak GPU memory from the allocator samples ([memory] events of profile_memory=True).
#pragma once

#include "perfgate/analysis.h"

namespace perfgate {

MemorySums memory_sums(const Profile& profile);

}  // namespace perfgate
