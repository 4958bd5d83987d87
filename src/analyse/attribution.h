// Who launched what. A GPU activity links to its runtime call by correlation id; the call
// belongs to the op named by its External id when that op encloses it in time, else to the
// innermost op or annotation enclosing it on its thread.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "perfgate/profile.h"

namespace perfgate {

struct Attribution {
  std::vector<std::uint32_t> activity_runtime;  // per GPU activity: runtime call index or kNone
  std::vector<std::uint32_t> runtime_owner;     // per runtime call: host event index or kNone
  std::vector<std::uint32_t> activity_offsets;  // CSR: activities of runtime r are
  std::vector<std::uint32_t> activities;        //   activities[activity_offsets[r] .. activity_offsets[r+1])
  std::size_t owners_by_external_id = 0;
  std::size_t owners_by_containment = 0;

  std::uint32_t activity_owner(std::size_t activity) const {
    std::uint32_t r = activity_runtime[activity];
    return r == kNone ? kNone : runtime_owner[r];
  }
  std::span<const std::uint32_t> launched_by(std::size_t runtime) const {
    return {activities.data() + activity_offsets[runtime], activities.data() + activity_offsets[runtime + 1]};
  }
};

struct AttributionRules {
  bool by_time_containment = true;
  bool external_id_must_enclose = true;
};
// On up to `threads` threads; the same at any count.
Attribution attribute(const Profile& profile, AttributionRules rules = {}, unsigned threads = 1);

}  // namespace perfgate
