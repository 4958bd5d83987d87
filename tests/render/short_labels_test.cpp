// Issue 29, item 2: names cut for a chart or a table cell never read the same. Cut at the end,
// the diff chart showed "aten::cudnn_convolution_backwar…" twice, for backward_weight and
// backward_input.
#include <gtest/gtest.h>

#include <regex>
#include <set>
#include <string>
#include <vector>

#include "render/cell_format.h"
#include "render/html/charts.h"
#include "render/short_labels.h"
#include "report_model/report.h"

namespace perfgate {
namespace {

constexpr const char* kWeight = "aten::cudnn_convolution_backward_weight";  // 39 bytes
constexpr const char* kInput = "aten::cudnn_convolution_backward_input";    // 38 bytes

// Both cut to 34 bytes: 15 bytes of the start and 16 of the end around the 3-byte ellipsis.
TEST(ShortLabels, NamesSharingALongStartKeepTheirEnds) {
  ASSERT_EQ(shorten(kWeight, 34), shorten(kInput, 34));  // the collision, cut at the end
  EXPECT_EQ(
      distinct_short_labels({kWeight, kInput}, 34),
      (std::vector<std::string>{"aten::cudnn_con…_backward_weight", "aten::cudnn_con…n_backward_input"}));
}

TEST(ShortLabels, ShortNamesAndRepeatsAreKept) {
  std::vector<std::string> names = {"aten::mm", kWeight, "aten::mm", "exactly_ten", kWeight};
  std::vector<std::string> labels = distinct_short_labels(names, 11);
  EXPECT_EQ(labels[0], "aten::mm");
  EXPECT_EQ(labels[2], "aten::mm");
  EXPECT_EQ(labels[3], "exactly_ten");
  EXPECT_EQ(labels[1], labels[4]);    // the same name, the same label
  EXPECT_EQ(labels[1], "aten…ight");  // 4 bytes, the ellipsis, 4 bytes
}

// Demangled kernel names that differ only in their template arguments: start and end are the same,
// so each shows where it differs from the other.
TEST(ShortLabels, NamesDifferingInTheMiddleShowTheDifference) {
  std::string args = "(int, int, int, float const*, int, float*, float const*, kernel_grad_params, int)";
  std::string a = "void cudnn::cnn::wgrad_alg0_engine<float, 128, 6, 7, 3, 3, 5, false, 512>" + args;
  std::string b = "void cudnn::cnn::wgrad_alg0_engine<float, 512, 6, 5, 3, 3, 3, false, 512>" + args;
  for (std::size_t n : {34u, 60u, 96u}) {
    std::vector<std::string> labels = distinct_short_labels({a, b}, n);
    EXPECT_NE(labels[0], labels[1]) << n;
    EXPECT_LE(labels[0].size(), n);
    EXPECT_LE(labels[1].size(), n);
    EXPECT_NE(labels[0].find("128"), std::string::npos) << labels[0];
    EXPECT_EQ(labels[1].find("128"), std::string::npos) << labels[1];
  }
}

// A cut name that would read as a name shown whole gets a number; the whole one is kept.
TEST(ShortLabels, ACutNameNeverReadsAsAWholeOne) {
  // 8 bytes: 2 of the start, the ellipsis, 3 of the end.
  std::vector<std::string> labels = distinct_short_labels({"abcdefghijk", "ab…ijk"}, 8);
  EXPECT_EQ(labels[1], "ab…ijk");
  EXPECT_EQ(labels[0], "ab… #1");
}

// True when every multi-byte UTF-8 sequence of `s` is whole: a lead byte followed by as many
// continuation bytes as it announces.
bool whole_utf8(const std::string& s) {
  for (std::size_t i = 0; i < s.size();) {
    auto b = static_cast<unsigned char>(s[i]);
    std::size_t n = b < 0x80 ? 1 : (b >> 5) == 6 ? 2 : (b >> 4) == 14 ? 3 : (b >> 3) == 30 ? 4 : 0;
    if (n == 0 || i + n > s.size()) return false;
    for (std::size_t k = 1; k < n; ++k)
      if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return false;
    i += n;
  }
  return true;
}

// Many names with one start and one end: every label different, none longer than asked, none
// cutting a UTF-8 sequence.
TEST(ShortLabels, ManyNamesAllDiffer) {
  std::vector<std::string> names;
  for (int i = 0; i < 300; ++i)
    names.push_back(std::string(60, 'a') + "é" + std::to_string(i) + std::string(60, 'b') + "é");
  for (std::size_t n : {8u, 20u, 34u, 80u}) {
    std::vector<std::string> labels = distinct_short_labels(names, n);
    EXPECT_EQ(std::set<std::string>(labels.begin(), labels.end()).size(), names.size()) << n;
    for (const std::string& l : labels) {
      EXPECT_LE(l.size(), n);
      EXPECT_TRUE(whole_utf8(l)) << l;
    }
  }
}

// The texts of a chart's bar labels (anchored at their end, at x 224, left of the bars).
std::vector<std::string> bar_labels(const std::string& svg) {
  std::vector<std::string> labels;
  std::regex label(R"re(<text x="224.0" [^>]*text-anchor="end"[^>]*>([^<]*)</text>)re");
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), label); it != std::sregex_iterator(); ++it)
    labels.push_back((*it)[1]);
  return labels;
}

TEST(ShortLabels, TheDiffChartsBarsReadDifferently) {
  std::vector<std::string> labels =
      bar_labels(change_bars_svg({{kWeight, 193.5}, {kInput, -20}, {"aten::mm", 5}}, "changes"));
  ASSERT_EQ(labels.size(), 3u);
  EXPECT_EQ(labels[0], "aten::cudnn_con…_backward_weight");
  EXPECT_EQ(labels[1], "aten::cudnn_con…n_backward_input");
  EXPECT_EQ(labels[2], "aten::mm");
}

}  // namespace
}  // namespace perfgate
