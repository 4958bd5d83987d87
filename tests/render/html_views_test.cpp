// What the HTML page says about what it shows: which step the timeline is of, what a run without
// steps can and cannot show, and how its tables are sorted.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "perfgate/render.h"
#include "support/helpers.h"

namespace perfgate::testing {
namespace {

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

// Steps of the given lengths (us), one after the other, each launching a 100 us kernel.
std::string steps_of(const std::vector<double>& durations) {
  TraceBuilder t;
  t.device(0, "NVIDIA A100-SXM4-40GB", 8, 0, 40'000'000'000, 108);
  double start = 0;
  for (std::size_t i = 0; i < durations.size(); ++i) {
    t.step(static_cast<int>(i) + 1, start, durations[i]);
    t.launch("gemm", start + 10, start + 20, 100);
    start += durations[i];
  }
  return t.json();
}

// Of an odd count of steps the timeline shows the median one; of an even count the median is the
// mean of the two middle steps, which no step is: the timeline shows the shorter of the two and
// says so. Steps of 1.00, 1.10, 1.30 and 1.60 ms: the median is (1.10 + 1.30) / 2 = 1.20 ms, and
// the timeline is of ProfilerStep#2 (1.10 ms).
TEST(HtmlViews, TheTimelineSaysWhichMiddleStepItShows) {
  std::string even = render_html(report_of_json(steps_of({1000, 1100, 1300, 1600}), default_rules())).page;
  EXPECT_TRUE(contains(even, "<h2 id=\"timeline-title\">Timeline of ProfilerStep#2</h2>"));
  EXPECT_TRUE(contains(even,
                       "<figcaption>ProfilerStep#2, 1.10 ms, the shorter of the two middle steps "
                       "(the median, 1.20 ms, is their mean):"))
      << even.substr(even.find("id=\"timeline\""), 4000);
  EXPECT_FALSE(contains(even, "<figcaption>The median step"));

  // 1.00, 1.10 and 1.30 ms: the median is ProfilerStep#2's 1.10 ms.
  std::string odd = render_html(report_of_json(steps_of({1000, 1100, 1300}), default_rules())).page;
  EXPECT_TRUE(contains(odd, "<figcaption>The median step, ProfilerStep#2, 1.10 ms:"))
      << odd.substr(odd.find("id=\"timeline\""), 4000);
}

}  // namespace
}  // namespace perfgate::testing
