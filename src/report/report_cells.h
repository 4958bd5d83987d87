// The cells the report stage's tables are made of: times in µs, counts, texts that are empty where
// the trace has none, shares and means that are empty where their denominator is 0.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <fmt/format.h>

#include "common/table_codes.h"

#include "model/profile.h"
#include "report_model/report.h"

namespace perfgate {

inline ReportCell us(TimeNs ns) {
  return static_cast<double>(ns) / 1000.0;
}
inline ReportCell count(std::uint64_t n) {
  return static_cast<std::int64_t>(n);
}
inline ReportCell text(const std::string& s) {
  return s.empty() ? ReportCell{} : ReportCell{s};
}
inline ReportCell bytes(std::uint64_t n) {
  return static_cast<double>(n);
}
inline ReportCell number(std::optional<double> v) {
  return v ? ReportCell{*v} : ReportCell{};
}
// part / whole in %, empty when whole is 0.
inline ReportCell pct(TimeNs part, TimeNs whole) {
  return whole > 0 ? ReportCell{100.0 * static_cast<double>(part) / static_cast<double>(whole)}
                   : ReportCell{};
}
// A total time per item in µs, empty when there is no item.
inline ReportCell mean_us(TimeNs total, std::uint64_t items) {
  return items ? ReportCell{static_cast<double>(total) / 1000.0 / static_cast<double>(items)} : ReportCell{};
}

// A timeline box's lane as the page draws it (issue 93: the workbook showed device -1 and -2): a
// launching thread's ops, its runtime calls, a device's stream. "GPU" is the catalog's word, put in
// the capture's ("TPU 0 · stream 3") with the tables' titles (gate_report.cpp).
inline ReportCell timeline_lane(std::int32_t device, std::int64_t stream) {
  if (device == kHostOpsDevice) return fmt::format("ops · thread {}", stream);
  if (device == kRuntimeDevice) return fmt::format("runtime · thread {}", stream);
  return fmt::format("GPU {} · stream {}", device, stream);
}

}  // namespace perfgate
