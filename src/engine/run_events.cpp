#include "engine/run_events.h"

#include <mutex>

#include "load/load.h"

namespace perfgate {

void for_each_worker_events(
    const PreparedRun& run, const Classification& classification, const EventQuery& query,
    const std::function<bool(const Profile&, std::optional<std::int64_t> rank)>& wanted,
    const std::function<void(const Profile&, std::optional<std::int64_t> rank, const EventRow&)>& each_row) {
  std::mutex one_worker;  // workers arrive on their loading threads; each one's rows go out together
  for_each_profile(run, [&](const Profile& profile) {
    std::lock_guard lock(one_worker);
    std::optional<std::int64_t> rank =
        profile.info.rank ? profile.info.rank : rank_from_file_name(profile.source_path);
    if (!wanted(profile, rank)) return;
    for_each_event_row(profile, classification, run.request.options, query,
                       [&](const EventRow& row) { each_row(profile, rank, row); });
  });
}

}  // namespace perfgate
