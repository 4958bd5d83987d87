// The colours of the report's charts, shared by the HTML page and the workbook's chart so that a
// part looks the same in both.
#pragma once

#include <array>
#include <optional>
#include <string_view>

#include "report_model/report.h"

namespace perfgate {

// The plugin's breakdown parts, in its priority order, and DLProf's resources.
inline constexpr std::array<const char*, kBreakdownParts> kBreakdownColors = {
    "#2f6fde", "#16a2a2", "#7bc6c6", "#8d5bd6", "#e0a100", "#d9534f", "#f08c3a", "#9aa3b2"};
inline constexpr std::array<const char*, kResourceParts> kResourceColors = {"#1f8a4c", "#2f6fde", "#16a2a2",
                                                                            "#f08c3a", "#9aa3b2"};
inline constexpr const char* kUtilizationColor = "#2f6fde";
inline constexpr const char* kTensorCoreColor = "#1f8a4c";
inline constexpr const char* kPlainColor = "#c3c9d4";

// The colour of a breakdown part by name ("kernel", "dataloader"), as 0xRRGGBB.
std::optional<unsigned> breakdown_color(std::string_view part);

}  // namespace perfgate
