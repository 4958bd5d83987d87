#include "analyse/communication/parallelism.h"

namespace perfgate {

ParallelismSums parallelism(const Profile& p, const OpStats& stats, NameClasses& classes) {
  ParallelismSums s;
  for (std::size_t i = 0; i < p.host_events.size(); ++i) {
    const HostEvent& e = p.host_events[i];
    if (e.kind == HostKind::PythonFunction || !stats.in_window(i)) continue;
    s.data_parallel_calls += classes.data_parallel_op(e.name);
    s.ddp_calls += classes.distributed_data_parallel_op(e.name);
    s.nccl_calls += classes.nccl_op(e.name);
  }
  return s;
}

ParallelismSums& ParallelismSums::operator+=(const ParallelismSums& from) {
  data_parallel_calls += from.data_parallel_calls;
  ddp_calls += from.ddp_calls;
  nccl_calls += from.nccl_calls;
  return *this;
}

}  // namespace perfgate
