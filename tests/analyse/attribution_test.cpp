#include <gtest/gtest.h>

#include "analyse/attribution.h"
#include "support/helpers.h"

namespace perfgate::testing {
namespace {

std::string owner_of_kernel(const Profile& p, const Attribution& a, const std::string& kernel) {
  for (std::size_t i = 0; i < p.gpu_activities.size(); ++i) {
    if (p.str(p.gpu_activities[i].name) != kernel) continue;
    std::uint32_t owner = a.activity_owner(i);
    return owner == kNone ? "none" : std::string(p.str(p.host_events[owner].name));
  }
  return "kernel not found";
}

std::string attribution_trace() {
  TraceBuilder t;
  t.op("A", 0, 100, 1, 1).op("B", 10, 40, 2, 1);
  t.launch("k_ext_b", 20, 200, 1, 2);               // External id 2 names B, which encloses the call
  t.launch("k_no_ext", 60, 210, 1, 0);              // no External id: innermost enclosing op is A
  t.launch("k_unknown_ext", 70, 220, 1, 99);        // names no op: A by time
  t.launch("k_ext_a", 30, 230, 1, 1);               // names A although B is innermost: External id wins
  t.launch("k_ext_b_late", 80, 240, 1, 2);          // names B, but B does not enclose it: A by time
  t.launch("k_other_thread", 20, 250, 1, 0, 0, 2);  // thread 2 has no ops
  t.kernel("k_orphan", 260, 1, 424242);             // no runtime call with this correlation
  t.python_function("frame", 300, 100, 3).op("C", 310, 10, 0, 3);
  t.launch("k_in_python_only", 305, 400, 1, 0, 0, 3);
  t.launch("k_in_c", 312, 410, 1, 0, 0, 3);
  return t.json();
}

TEST(Attribution, ExternalIdFirstThenInnermostEnclosingOp) {
  Profile p = load_json(attribution_trace());
  Attribution a = attribute(p);
  EXPECT_EQ(owner_of_kernel(p, a, "k_ext_b"), "B");
  EXPECT_EQ(owner_of_kernel(p, a, "k_no_ext"), "A");
  EXPECT_EQ(owner_of_kernel(p, a, "k_unknown_ext"), "A");
  EXPECT_EQ(owner_of_kernel(p, a, "k_ext_a"), "A");
  EXPECT_EQ(owner_of_kernel(p, a, "k_ext_b_late"), "A");
  EXPECT_EQ(owner_of_kernel(p, a, "k_other_thread"), "none");
  EXPECT_EQ(owner_of_kernel(p, a, "k_orphan"), "none");
  EXPECT_EQ(owner_of_kernel(p, a, "k_in_python_only"), "none");  // Python frames own nothing
  EXPECT_EQ(owner_of_kernel(p, a, "k_in_c"), "C");
  EXPECT_EQ(a.owners_by_external_id, 2u);
}

TEST(Attribution, WithoutTimeContainmentOnlyExternalIdsLink) {
  Profile p = load_json(attribution_trace());
  Attribution a = attribute(p, {.by_time_containment = false, .external_id_must_enclose = true});
  EXPECT_EQ(owner_of_kernel(p, a, "k_ext_b"), "B");
  EXPECT_EQ(owner_of_kernel(p, a, "k_ext_a"), "A");
  EXPECT_EQ(owner_of_kernel(p, a, "k_no_ext"), "none");
  EXPECT_EQ(owner_of_kernel(p, a, "k_unknown_ext"), "none");
  EXPECT_EQ(owner_of_kernel(p, a, "k_ext_b_late"), "none");
}

TEST(Attribution, ThePluginTrustsExternalIdsWhereverTheOpIs) {
  Profile p = load_json(attribution_trace());
  Attribution a = attribute(p, {.by_time_containment = false, .external_id_must_enclose = false});
  EXPECT_EQ(owner_of_kernel(p, a, "k_ext_b_late"), "B");  // B ended before the call
}

TEST(Attribution, RuntimeCallsListTheActivitiesTheyLaunched) {
  TraceBuilder t;
  t.runtime("cudaLaunchCooperativeKernelMultiDevice", 0, 1, 5);
  t.kernel("k_gpu0", 10, 1, 5, 0).kernel("k_gpu1", 10, 1, 5, 1);
  Profile p = load_json(t.json());
  Attribution a = attribute(p);
  EXPECT_EQ(a.launched_by(0).size(), 2u);
}

}  // namespace
}  // namespace perfgate::testing
