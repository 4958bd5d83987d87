// The tables a finding points at (ReportFinding::see), named as each output can show them.
#pragma once

#include <string>
#include <vector>

#include "report_model/report.h"

namespace perfgate {

struct SeeAlso {
  std::string table;  // "gpu_gaps"
  std::string title;  // "GPU gaps"
};

// The tables of the finding's `see` that have rows in this report, in the rule's order: a finding
// never points at an empty table.
std::vector<SeeAlso> see_also(const ReportModel& r, const ReportFinding& f);

// For the outputs without tables (terminal, Markdown, annotations, JUnit): "See the GPU gaps and
// Iterations tables of the HTML report or the XLSX workbook.", or "" when there is none to see.
std::string see_elsewhere_text(const ReportModel& r, const ReportFinding& f);

}  // namespace perfgate
