// Every finding has a headline and details (issue 93, item 1): the gate writes one line of at most
// 160 characters (what, how much, the gain) with long symbol names folded; the HTML page and the
// Markdown and PR comment show it and fold the evidence and the remedy under it in <details>.
#include <gtest/gtest.h>

#include "common/utf8.h"
#include "gate/headline.h"
#include "render/escape.h"
#include "render/render.h"
#include "support/helpers.h"
#include "support/training_run.h"

namespace perfgate::testing {
namespace {

// The ResNet-50 step-time finding's shape: a regression against the baseline whose first offender
// is a cuDNN kernel's whole signature.
ReportFinding step_time_regression() {
  ReportFinding f;
  f.id = "regression.step-time";
  f.title = "Step time regressed";
  f.status = FindingStatus::Fail;
  f.metric = "steps.median_us";
  f.unit = "us";
  f.value = 177443;
  f.baseline = 126682;
  f.threshold = 133016.1;
  f.threshold_text = "+5% vs the baseline (> 133.02 ms)";
  f.offenders = {
      {"void cudnn::detail::dgrad_engine<float, 512, 6, 5, 3, 3, 3, false>(int, int, int, float const*, "
       "int, float const*, int, float*, kernel_grad_params, unsigned long long, int, unsigned long long, "
       "int, float, int, int, int) (GPU compute)",
       2330, "2.33 ms"}};
  return f;
}

TEST(FindingHeadline, SaysWhatHowMuchAndTheFirstOffenderFolded) {
  ReportFinding f = step_time_regression();
  set_headline(f, {}, true);
  // 177,443 - 126,682 = 50,761 us = +50.76 ms; the limit is the first words of the rule's text.
  EXPECT_EQ(f.headline,
            "Step time regressed: median step 177.44 ms vs 126.68 ms in the baseline (+50.76 ms, limit +5%); "
            "top: cudnn::…::dgrad_engine<…> (GPU compute) (2.33 ms)");
  // The tooltip's line has the name whole.
  EXPECT_EQ(f.headline_whole,
            "Step time regressed: median step 177.44 ms vs 126.68 ms in the baseline (+50.76 ms, "
            "limit +5%); top: " +
                f.offenders[0].label + " (2.33 ms)");
}

TEST(FindingHeadline, AThresholdAGainAndAShareOfTheWindow) {
  ReportFinding f;
  f.title = "The GPU is idle for much of the window";
  f.status = FindingStatus::Warn;
  f.metric = "gpu.idle_pct";
  f.unit = "%";
  f.value = 43.357299;
  f.threshold = 30;
  f.threshold_text = "> 30.0%";
  f.gain_pct = 43.357299;
  set_headline(f, {}, true);
  EXPECT_EQ(f.headline,
            "The GPU is idle for much of the window: GPU idle 43.4% (limit > 30.0%) · gain up to 43.4% of "
            "the step time");
  EXPECT_EQ(f.headline_whole, "");           // nothing folded, nothing cut
  set_headline(f, {{"GPU", "TPU"}}, false);  // a TPU capture without steps: its words, the window
  EXPECT_EQ(f.headline,
            "The GPU is idle for much of the window: TPU idle 43.4% (limit > 30.0%) · gain up to 43.4% of "
            "the window");
}

TEST(FindingHeadline, AtMost160CharactersTheOffendersNameCutOrLeftOut) {
  ReportFinding f = step_time_regression();
  f.offenders[0].label = "rank-0: " + std::string(300, 'x');  // a name nothing folds
  set_headline(f, {}, true);
  // The head is 94 characters; "; top: " 7 and " (2.33 ms)" 10 leave the name 49: cut to 48 and "…".
  EXPECT_EQ(code_points(f.headline), kHeadlineChars) << f.headline;
  EXPECT_TRUE(f.headline.ends_with("; top: rank-0: " + std::string(40, 'x') + "… (2.33 ms)")) << f.headline;
  // With " · gain up to 12.5% of the step time" (36) only 13 are left, under the 24 a name keeps:
  // the offender goes, the gain stays.
  f.gain_pct = 12.5;
  set_headline(f, {}, true);
  EXPECT_EQ(f.headline,
            "Step time regressed: median step 177.44 ms vs 126.68 ms in the baseline (+50.76 ms, limit "
            "+5%) · gain up to 12.5% of the step time");
  EXPECT_NE(f.headline_whole.find("; top: rank-0: xxx"), std::string::npos);  // the tooltip has it whole
}

TEST(FindingHeadline, OnlyAFindingThatFiredOrIsInconclusiveHasOne) {
  ReportFinding f = step_time_regression();
  f.status = FindingStatus::Pass;
  set_headline(f, {}, true);
  EXPECT_EQ(f.headline, "");
  f.status = FindingStatus::Inconclusive;
  set_headline(f, {}, true);
  EXPECT_TRUE(f.headline.starts_with("Step time regressed: median step 177.44 ms")) << f.headline;
}

// A run whose DataLoader takes a third of the step: the data-loader finding fires.
ReportModel slow_loader_run() {
  TrainingRun run;
  run.dataloader_us = 500;
  ReportModel report = report_of_json(training_trace(run), default_book());
  apply_gate(report, default_rules(), nullptr, {});
  return report;
}

TEST(FindingHeadline, TheHtmlPageShowsTheHeadlineAndFoldsTheEvidence) {
  ReportModel report = slow_loader_run();
  const ReportFinding* f = find_finding(report, "dataloader.bottleneck");
  ASSERT_NE(f, nullptr);
  ASSERT_FALSE(f->headline.empty());
  std::string page = render_html(report).page;
  std::size_t article = page.find("<article class=\"finding warn\" id=\"finding-dataloader.bottleneck\">");
  ASSERT_NE(article, std::string::npos);
  std::size_t end = page.find("</article>", article);
  std::string html = page.substr(article, end - article);
  std::size_t headline = html.find("<strong class=\"headline\">" + html_escape(f->headline) + "</strong>");
  std::size_t fold = html.find("<details class=\"evidence\"><summary>Evidence and remedy</summary>");
  std::size_t problem = html.find(f->problem.substr(0, 30));
  std::size_t remedy = html.find("<p class=\"rec\">");
  std::size_t close = html.find("</details>");
  ASSERT_NE(headline, std::string::npos) << html;
  ASSERT_NE(fold, std::string::npos) << html;
  EXPECT_LT(headline, fold);
  EXPECT_LT(fold, problem);  // the evidence and the remedy are inside the fold
  EXPECT_LT(problem, remedy);
  EXPECT_LT(remedy, close);
}

TEST(FindingHeadline, AFoldedNamesWholeTextIsTheTooltipEscaped) {
  ReportModel report = slow_loader_run();
  ReportFinding* f = nullptr;
  for (ReportFinding& g : report.findings)
    if (g.id == "dataloader.bottleneck") f = &g;
  ASSERT_NE(f, nullptr);
  f->offenders = {{"void cudnn::detail::dgrad_engine<float, 512>(int, float const*)", 1.0, "1.0 ms"}};
  set_headline(*f, {}, true);
  std::string page = render_html(report).page;
  EXPECT_NE(page.find("title=\"The data loader holds up the step: data loader"), std::string::npos);
  EXPECT_NE(page.find("cudnn::detail::dgrad_engine&lt;float, 512&gt;(int, float const*) (1.0 ms)"),
            std::string::npos);
  EXPECT_NE(page.find("; top: cudnn::…::dgrad_engine&lt;…&gt; (1.0 ms)"), std::string::npos);
}

TEST(FindingHeadline, TheMarkdownAndPrCommentFoldTheEvidence) {
  ReportModel report = slow_loader_run();
  const ReportFinding* f = find_finding(report, "dataloader.bottleneck");
  ASSERT_NE(f, nullptr);
  for (bool compact : {false, true}) {
    std::string md =
        render_markdown(report, MarkdownOptions{compact, compact ? kPrCommentBudget : kJobSummaryBudget});
    std::string item =
        "- ⚠️ **" + markdown_escape(f->headline) +
        "** (`dataloader.bottleneck`)\n  <details><summary>Evidence and remedy</summary>\n\n  ";
    std::size_t at = md.find(item);
    ASSERT_NE(at, std::string::npos) << md;
    std::size_t close = md.find("\n\n  </details>\n\n", at);
    ASSERT_NE(close, std::string::npos) << md.substr(at);
    std::string folded = md.substr(at + item.size(), close - at - item.size());
    EXPECT_NE(folded.find(markdown_escape(f->problem)), std::string::npos) << folded;
    EXPECT_NE(folded.find("→ " + markdown_escape(f->recommendation)), std::string::npos) << folded;
    EXPECT_EQ(folded.find('\n'), std::string::npos) << "one paragraph inside the fold: " << folded;
  }
}

}  // namespace
}  // namespace perfgate::testing
