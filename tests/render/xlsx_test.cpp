// The workbook read back from its XML (unzip): percentages as Excel stores them, findings' values
// rounded by their unit, sheets without rows that say why, and the same cells where the memory
// budget has the rows streamed.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <regex>
#include <string>
#include <vector>

#include "baseline/baseline.h"
#include "gate/gate.h"
#include "render/render.h"
#include "support/helpers.h"
#include "support/slowed_pair.h"
#include "support/training_run.h"

namespace perfgate::testing {
namespace {

std::string unescaped(std::string s) {
  for (const auto& [entity, c] :
       {std::pair{"&lt;", "<"}, {"&gt;", ">"}, {"&quot;", "\""}, {"&apos;", "'"}, {"&amp;", "&"}})
    s = std::regex_replace(s, std::regex(entity), c);
  return s;
}

// A cell as the sheet stores it: its text (a shared string's, or the number as written) and the
// number format of its style.
struct Cell {
  std::string value;
  bool number = false;
  std::string format;
};

// The cells of the workbook's sheets by sheet name and reference ("C2").
class Workbook {
 public:
  explicit Workbook(const std::string& path) {
    std::string xml = unzip(path, "xl/sharedStrings.xml");
    std::regex si(R"(<si>(.*?)</si>)");
    for (auto it = std::sregex_iterator(xml.begin(), xml.end(), si); it != std::sregex_iterator(); ++it) {
      std::string text = std::regex_replace((*it)[1].str(), std::regex("<[^>]*>"), "");
      strings_.push_back(unescaped(text));
    }
    std::string styles = unzip(path, "xl/styles.xml");
    std::map<std::string, std::string> codes = {{"0", "General"}, {"49", "@"}};
    std::regex fmt(R"re(<numFmt numFmtId="(\d+)" formatCode="([^"]*)")re");
    for (auto it = std::sregex_iterator(styles.begin(), styles.end(), fmt); it != std::sregex_iterator();
         ++it)
      codes[(*it)[1]] = unescaped((*it)[2]);
    std::string xfs = styles.substr(styles.find("<cellXfs"));
    xfs = xfs.substr(0, xfs.find("</cellXfs>"));
    std::regex xf(R"re(<xf numFmtId="(\d+)")re");
    for (auto it = std::sregex_iterator(xfs.begin(), xfs.end(), xf); it != std::sregex_iterator(); ++it)
      formats_.push_back(codes.count((*it)[1]) ? codes[(*it)[1]] : "id " + (*it)[1].str());
    std::string book = unzip(path, "xl/workbook.xml");
    std::regex sheet(R"re(<sheet name="([^"]*)")re");
    int n = 0;
    for (auto it = std::sregex_iterator(book.begin(), book.end(), sheet); it != std::sregex_iterator(); ++it)
      sheets_[unescaped((*it)[1])] = unzip(path, "xl/worksheets/sheet" + std::to_string(++n) + ".xml");
  }

  bool has_sheet(const std::string& name) const { return sheets_.count(name) > 0; }

  // The cell, or an empty one.
  Cell cell(const std::string& sheet, const std::string& ref) const {
    auto it = sheets_.find(sheet);
    if (it == sheets_.end()) return {};
    std::smatch m;
    std::regex c("<c r=\"" + ref + R"re("( s="(\d+)")?( t="(\w+)")?>(<v>([^<]*)</v>)?)re");
    if (!std::regex_search(it->second, m, c)) return {};
    Cell out;
    std::size_t style = m[2].matched ? std::stoul(m[2]) : 0;
    out.format = style < formats_.size() ? formats_[style] : "";
    if (m[4] == "s") {
      out.value = strings_.at(std::stoul(m[6]));
    } else {
      out.value = m[6];
      out.number = true;
    }
    return out;
  }

  // The row (its number, from 1) whose column A holds `text` in a sheet; 0 when none does.
  int row_of(const std::string& sheet, const std::string& text) const {
    for (int row = 1; row < 2000; ++row)
      if (cell(sheet, "A" + std::to_string(row)).value == text) return row;
    return 0;
  }

 private:
  std::vector<std::string> strings_;
  std::vector<std::string> formats_;
  std::map<std::string, std::string> sheets_;
};

#define REQUIRE_UNZIP()                                     \
  if (std::system("command -v unzip >/dev/null 2>&1") != 0) \
  GTEST_SKIP() << "unzip not installed (ci/setup.sh --tests installs it)"

// Four 1 ms steps, each with a 500 us kernel: GPU utilization 2000 / 4000 us = 50% of the window,
// and 50% of each step. No user region, collective or half-precision op.
std::string half_busy_trace() {
  TraceBuilder t;
  t.device(0, "NVIDIA A100-SXM4-40GB", 8, 0, 40'000'000'000, 108);
  for (int i = 0; i < 4; ++i) {
    t.step(i + 1, 1000.0 * i, 1000);
    t.op("aten::mm", 1000.0 * i + 5, 100, 1 + i);
    t.launch("gemm", 1000.0 * i + 10, 1000.0 * i + 20, 500, 1 + i);
  }
  return t.json();
}

// The report of the trace with its findings, all passed but the first `fired`, which warn: the
// Findings sheet lists those first, in rule order.
ReportModel report_with_fired(std::size_t fired) {
  ReportModel report = report_of_json(half_busy_trace(), default_book());
  apply_gate(report, default_rules(), nullptr, {});
  for (std::size_t i = 0; i < report.findings.size(); ++i)
    report.findings[i].status = i < fired ? FindingStatus::Warn : FindingStatus::Pass;
  return report;
}

std::string workbook_of(const ReportModel& report) {
  std::string path = temp_dir() + "/report.xlsx";
  write_xlsx(report, path);
  return path;
}

// A percentage is stored as Excel stores one, a fraction (50% is 0.5) in the format 0.0%, so that
// a formula on it works: the Summary's GPU utilization, each iteration's GPU share, a finding's
// gain. (They were 50 with a format that printed a "%" after the number.)
TEST(Xlsx, PercentagesAreFractionsInAPercentFormat) {
  REQUIRE_UNZIP();
  ReportModel report = report_with_fired(1);
  report.findings.front().gain_pct = 12.5;
  Workbook wb(workbook_of(report));
  int row = wb.row_of("Summary", "gpu.utilization_pct");
  ASSERT_GT(row, 0);
  // Issue 76, item 8: the metric's label beside its id (the catalog's label: "GPU utilization").
  EXPECT_EQ(wb.cell("Summary", "B1").value, "label");
  EXPECT_EQ(wb.cell("Summary", "B" + std::to_string(row)).value,
            metric_info(Metric::GpuUtilizationPct).label);
  Cell utilization = wb.cell("Summary", "D" + std::to_string(row));
  EXPECT_TRUE(utilization.number);
  EXPECT_EQ(utilization.value, "0.5");
  EXPECT_EQ(utilization.format, "0.0%");
  // Iterations: the columns up to gpu_pct are name, number, start_us, duration_us, kernels,
  // tc_kernels, gpu_us, gpu_pct (H), headed in words with the unit (issue 93).
  EXPECT_EQ(wb.cell("Iterations", "H1").value, "GPU (%)");
  EXPECT_EQ(wb.cell("Iterations", "H2").value, "0.5");
  EXPECT_EQ(wb.cell("Iterations", "H2").format, "0.0%");
  // Findings: the fired finding first; its gain in column N, 12.5% = 0.125.
  EXPECT_EQ(wb.cell("Findings", "N1").value, "estimated gain (of the step time)");
  EXPECT_EQ(wb.cell("Findings", "N2").value, "0.125");
  EXPECT_EQ(wb.cell("Findings", "N2").format, "0.0%");
}

// A finding's value (and its baseline) is rounded as its unit is shown: a percentage to a tenth of
// a point (55.51408517455256% is stored 0.555), a time to a tenth of a microsecond, a ratio to two
// decimals, a count to a whole number.
TEST(Xlsx, FindingValuesAreRoundedByTheirUnit) {
  REQUIRE_UNZIP();
  ReportModel report = report_with_fired(4);
  ASSERT_GE(report.findings.size(), 4u);
  struct Case {
    std::string unit;
    double value, baseline;
    std::string stored, stored_baseline;
  };
  std::vector<Case> cases = {{"%", 55.51408517455256, 12.34999, "0.555", "0.123"},
                             {"us", 1234.5678, 99.95, "1234.6", "100"},
                             {"ratio", 1.23456, 0.996, "1.23", "1"},
                             {"count", 7.0000000001, 3, "7", "3"}};
  for (std::size_t i = 0; i < cases.size(); ++i) {
    ReportFinding& f = report.findings[i];
    f.unit = cases[i].unit;
    f.value = cases[i].value;
    f.baseline = cases[i].baseline;
  }
  Workbook wb(workbook_of(report));
  EXPECT_EQ(wb.cell("Findings", "F1").value, "value");
  EXPECT_EQ(wb.cell("Findings", "I1").value, "baseline");
  for (std::size_t i = 0; i < cases.size(); ++i) {
    std::string row = std::to_string(i + 2);
    EXPECT_EQ(wb.cell("Findings", "F" + row).value, cases[i].stored) << cases[i].unit;
    EXPECT_EQ(wb.cell("Findings", "I" + row).value, cases[i].stored_baseline) << cases[i].unit;
  }
}

// Issue 76, item 8: the tables without rows are one "No rows" sheet, a row each with why, not a
// sheet each holding a header and a note (10 of 33 sheets on an inference trace). A finding that
// points at one names that sheet.
TEST(Xlsx, TablesWithoutRowsAreListedOnOneSheet) {
  REQUIRE_UNZIP();
  ReportModel report = report_of_json(half_busy_trace(), default_book());
  Workbook wb(workbook_of(report));
  EXPECT_FALSE(wb.has_sheet("Regions"));
  EXPECT_FALSE(wb.has_sheet("TC shapes"));
  EXPECT_TRUE(wb.has_sheet("Ops")) << "a table with rows keeps its sheet";
  EXPECT_EQ(wb.cell("No rows", "A1").value, "table");
  EXPECT_EQ(wb.cell("No rows", "B1").value, "why it has no rows");
  auto why = [&](const std::string& sheet) {
    int row = wb.row_of("No rows", sheet);
    return row > 0 ? wb.cell("No rows", "B" + std::to_string(row)).value : "(not listed)";
  };
  EXPECT_EQ(why("Regions"),
            "No rows: the trace has no record_function or user annotation range in the window other than the "
            "step markers.");
  EXPECT_EQ(
      why("TC shapes"),
      "No rows: no Tensor-Core-eligible op with recorded input shapes ran in FP16 or BF16 without Tensor "
      "Cores (shapes are recorded with record_shapes=True).");
  EXPECT_EQ(why("Collectives"),
            "No rows: no communication op (an NCCL, RCCL or gloo collective) was called during the window's "
            "steps.");
  EXPECT_EQ(why("Ops"), "(not listed)");
}

// Issue 76, item 8: sheet names are cut at a word, without a dangling small word, and a second sheet
// of the same name is numbered. Before: "Critical path on the step timel".
TEST(Xlsx, SheetNamesAreCutAtAWord) {
  REQUIRE_UNZIP();
  ReportModel report = report_of_json(half_busy_trace(), default_book());
  for (ReportTable& t : report.workers.front().tables) {
    if (t.name == table_name(Table::Ops)) t.title = "Ops of every step, by the time of their kernels";
    if (t.name == table_name(Table::OpTypes)) t.title = "Ops of every step, by the time of their calls";
  }
  Workbook wb(workbook_of(report));
  EXPECT_TRUE(wb.has_sheet("Ops of every step, by the time"));
  EXPECT_TRUE(wb.has_sheet("Ops of every step, (2)"));
}

// Issue 76, item 8: native charts beside the roofline, the step breakdown and the critical path, each
// reading its own sheet's cells (before: the iterations' chart only).
TEST(Xlsx, TheRooflineStepBreakdownAndCriticalPathHaveNativeCharts) {
  REQUIRE_UNZIP();
  ReportModel report = report_of_json(half_busy_trace(), default_book());
  std::string path = workbook_of(report);
  std::map<std::string, std::string> charts;  // the chart's kind by the sheet its series read
  for (int i = 1; i < 20; ++i) {
    std::string xml = unzip(path, "xl/charts/chart" + std::to_string(i) + ".xml");
    if (xml.empty()) break;
    std::smatch sheet;
    if (!std::regex_search(xml, sheet, std::regex(R"re(<c:(?:val|yVal)><c:numRef><c:f>'?([^'!<]+)'?!)re")))
      continue;
    for (const char* kind : {"scatterChart", "barChart"})
      if (xml.find(std::string("<c:") + kind) != std::string::npos) charts[sheet[1]] += kind;
    if (xml.find("<c:grouping val=\"stacked\"/>") != std::string::npos) charts[sheet[1]] += " stacked";
    if (xml.find("<c:logBase val=\"10\"/>") != std::string::npos) charts[sheet[1]] += " log";
  }
  EXPECT_EQ(charts["Iterations"], "barChart stacked");
  EXPECT_EQ(charts["Roofline"], "scatterChart log");
  EXPECT_EQ(charts["Step breakdown"], "barChart");
  EXPECT_EQ(charts["Critical path"], "barChart stacked");
}

// Issue 93, item 6: the first sheet states the verdict. A run 2 ms of host work a step slower than
// its baseline fails regression.step-time (tests/gate/path_difference_test.cpp): the Verdict sheet
// says FAIL and exit code 1, lists that rule first with the gate's step-time ratio and confidence
// (its step test's, not worked out again), links it to the Findings sheet and lists the other sheets;
// the waterfall of what grew on the critical path is a native chart (up-down bars between each
// part's from_us and to_us), the columns are headed in words with their units.
TEST(Xlsx, TheFirstSheetStatesTheVerdictAndWhatFailed) {
  REQUIRE_UNZIP();
  SlowedPair pair = host_slowed_pair();
  ReportModel& after = pair.after;
  const ReportFinding* step = find_finding(after, "regression.step-time");
  ASSERT_TRUE(step && step->step_test);
  ASSERT_EQ(step->status, FindingStatus::Fail);
  std::string path = workbook_of(after);
  Workbook wb(path);
  EXPECT_NE(unzip(path, "xl/workbook.xml").find("<sheet name=\"Verdict\" sheetId=\"1\""), std::string::npos);
  EXPECT_EQ(wb.cell("Verdict", "A1").value, "Verdict");
  EXPECT_EQ(wb.cell("Verdict", "B1").value, "FAIL");
  EXPECT_EQ(wb.cell("Verdict", "A2").value, "Exit code");
  EXPECT_EQ(wb.cell("Verdict", "B2").value, "1");
  int header = wb.row_of("Verdict", "Status");
  ASSERT_GT(header, 0);
  std::string first = std::to_string(header + 1);
  EXPECT_EQ(wb.cell("Verdict", "A" + first).value, "fail");
  EXPECT_EQ(wb.cell("Verdict", "B" + first).value, "regression.step-time");
  EXPECT_NEAR(std::stod(wb.cell("Verdict", "G" + first).value), step->step_test->ratio, 1e-9);
  EXPECT_NEAR(std::stod(wb.cell("Verdict", "H" + first).value), step->step_test->confidence, 1e-9)
      << "a percentage, stored as a fraction";
  EXPECT_NE(unzip(path, "xl/worksheets/sheet1.xml").find("location=\"'Findings'!A1\""), std::string::npos);
  int sheets = wb.row_of("Verdict", "Sheets");
  ASSERT_GT(sheets, header);
  EXPECT_EQ(wb.cell("Verdict", "A" + std::to_string(sheets + 1)).value, "Summary");
  // Headers in words and units, not column ids.
  EXPECT_EQ(wb.cell("Baseline path waterfall", "C1").value, "Baseline time (µs)");
  std::string waterfall;
  for (int i = 1; i < 30; ++i) {
    std::string xml = unzip(path, "xl/charts/chart" + std::to_string(i) + ".xml");
    if (xml.find("'Baseline path waterfall'!") != std::string::npos) waterfall = xml;
  }
  EXPECT_NE(waterfall.find("<c:lineChart>"), std::string::npos);
  EXPECT_NE(waterfall.find("<c:upDownBars>"), std::string::npos);
}

// Every cell of every sheet as "sheet!ref style value": a string's text, whether the sheet keeps
// it in the shared strings or inline (a streamed workbook), or the number as written.
std::vector<std::string> all_cells(const std::string& path, bool& inline_strings) {
  std::vector<std::string> strings;
  std::string shared = unzip(path, "xl/sharedStrings.xml");
  std::regex si(R"(<si>([\s\S]*?)</si>)");
  for (auto it = std::sregex_iterator(shared.begin(), shared.end(), si); it != std::sregex_iterator(); ++it)
    strings.push_back(std::regex_replace((*it)[1].str(), std::regex("<[^>]*>"), ""));
  std::string book = unzip(path, "xl/workbook.xml");
  std::regex sheet(R"re(<sheet name="([^"]*)")re");
  std::regex cell(R"re(<c r="(\w+)"( s="\d+")?( t="(\w+)")?(?:/>|>([\s\S]*?)</c>))re");
  std::vector<std::string> out;
  int n = 0;
  for (auto s = std::sregex_iterator(book.begin(), book.end(), sheet); s != std::sregex_iterator(); ++s) {
    std::string xml = unzip(path, "xl/worksheets/sheet" + std::to_string(++n) + ".xml");
    for (auto c = std::sregex_iterator(xml.begin(), xml.end(), cell); c != std::sregex_iterator(); ++c) {
      std::string body = (*c)[5];
      std::string value = std::regex_replace(body, std::regex("<[^>]*>"), "");
      if ((*c)[4] == "s") value = strings.at(std::stoul(value));
      if ((*c)[4] == "inlineStr") inline_strings = true;
      out.push_back((*s)[1].str() + "!" + (*c)[1].str() + (*c)[2].str() + " " + value);
    }
  }
  return out;
}

// Issue 78: libxlsxwriter holds each cell on the C heap (120-180 B) until the workbook is closed,
// which --max-memory cannot spill: a workbook of 99,999 rows of 20 cells took 350 MB whatever the
// budget. Past an eighth of the budget its rows are streamed to disk instead: the same cells, its
// strings inline. Within the budget the workbook is the one written without a budget, byte for byte.
TEST(Xlsx, AWorkbookPastItsShareOfTheMemoryBudgetStreamsTheSameCells) {
  REQUIRE_UNZIP();
  ReportModel report = report_of_json(half_busy_trace(), default_book());
  std::string dir = temp_dir();
  write_xlsx(report, dir + "/free.xlsx");
  XlsxOptions within, streamed_rows;
  within.memory_budget = std::uint64_t{64} << 20;
  streamed_rows.memory_budget = std::uint64_t{64} << 10;
  write_xlsx(report, dir + "/within.xlsx", within);
  write_xlsx(report, dir + "/streamed.xlsx", streamed_rows);
  EXPECT_EQ(read_text(dir + "/within.xlsx"), read_text(dir + "/free.xlsx"));
  bool free_inline = false, streamed_inline = false;
  std::vector<std::string> free = all_cells(dir + "/free.xlsx", free_inline);
  std::vector<std::string> streamed = all_cells(dir + "/streamed.xlsx", streamed_inline);
  EXPECT_FALSE(free_inline);
  EXPECT_TRUE(streamed_inline) << "the rows were not streamed";
  EXPECT_GT(free.size(), 100u);
  EXPECT_EQ(streamed, free);
}

// The zip's central directory entries, each entry's name with its compression method and general
// purpose flags (APPNOTE.TXT 4.3.12: the record starts "PK\1\2"; the flags at offset 8, the method
// at 10, the name's length at 28, the extra field's and comment's at 30 and 32, the name at 46).
struct ZipEntry {
  std::string name;
  unsigned method = 0;
  unsigned flags = 0;
};
std::vector<ZipEntry> zip_entries(const std::string& zip) {
  auto u16 = [&](std::size_t at) {
    return unsigned(static_cast<std::uint8_t>(zip[at])) | unsigned(static_cast<std::uint8_t>(zip[at + 1]))
                                                              << 8;
  };
  auto u32 = [&](std::size_t at) { return std::size_t(u16(at)) | std::size_t(u16(at + 2)) << 16; };
  std::size_t end = zip.rfind(std::string("PK\5\6", 4));
  std::vector<ZipEntry> entries;
  if (end == std::string::npos || end + 22 > zip.size()) return entries;
  for (std::size_t at = u32(end + 16), n = u16(end + 10); n > 0 && at + 46 <= zip.size(); --n) {
    if (zip.compare(at, 4, std::string("PK\1\2", 4)) != 0) break;
    entries.push_back({zip.substr(at + 46, u16(at + 28)), u16(at + 10), u16(at + 8)});
    at += 46 + u16(at + 28) + u16(at + 30) + u16(at + 32);
  }
  return entries;
}

// Issue 96: the workbook's parts are deflated at zlib's level 1, not libxlsxwriter's fixed 6 (the
// test binary exports minizip's entry as perfgate's executable does). Deflate records its level in
// the flags' bits 1 and 2: both set for the fastest ("Defl:S" in unzip -v), neither for the default.
// The same cells are written either way (Xlsx.* above read them back).
TEST(Xlsx, ThePartsAreDeflatedAtTheFastestLevel) {
  ReportModel report = report_of_json(half_busy_trace(), default_book());
  std::vector<ZipEntry> entries = zip_entries(read_text(workbook_of(report)));
  ASSERT_GE(entries.size(), 10u);
  for (const ZipEntry& e : entries) {
    EXPECT_EQ(e.method, 8u) << e.name << ": deflated";
    EXPECT_EQ(e.flags & 6u, 6u) << e.name << ": level 1";
  }
}

}  // namespace
}  // namespace perfgate::testing
