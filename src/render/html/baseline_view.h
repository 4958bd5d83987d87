// The HTML page's baseline section: every gated metric now and in the baseline, a diff chart of the
// ops that changed most, what the step time grew by, and the op, region and kernel changes per step.
#pragma once

#include <array>
#include <string_view>

#include "render/html/table_view.h"
#include "render/render.h"
#include "render/templates.h"
#include "report_model/report.h"

namespace perfgate {

// "changes" first: the largest regressions and improvements, both ways, always open.
inline constexpr std::array<std::string_view, 6> kDeltaTables = {
    table_name(Table::Changes),  table_name(Table::CriticalPathChanges), table_name(Table::StepTimeDeltas),
    table_name(Table::OpDeltas), table_name(Table::RegionDeltas),        table_name(Table::KernelDeltas)};
// Tables longer than this start collapsed in the page.
inline constexpr std::size_t kCollapsedTableRows = 20;

// Sets "baseline" in the page's view when the report has one.
void add_baseline(const ReportModel& r, const HtmlOptions& o, TemplateData& view, AsideTexts& aside);

}  // namespace perfgate
