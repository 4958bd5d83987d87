// Issue 13: names that are not valid UTF-8 (a raw 0xFF, the overlong C0 AF, an encoded surrogate)
// or that hold characters XML forbids are repaired on input, counted in the report's warnings, and
// every output is valid UTF-8 and, for the XML ones, well-formed.
#include <gtest/gtest.h>

#include <cstdlib>
#include <vector>

#include "common/utf8.h"
#include "gate/gate.h"
#include "render/format.h"
#include "render/render.h"
#include "support/helpers.h"

namespace perfgate::testing {
namespace {

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

// An independent check: RFC 3629 by code point.
bool valid_utf8(const std::string& s) {
  for (std::size_t i = 0; i < s.size();) {
    auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
    std::size_t n = b(i) < 0x80         ? 1
                    : (b(i) >> 5) == 6  ? 2
                    : (b(i) >> 4) == 14 ? 3
                    : (b(i) >> 3) == 30 ? 4
                                        : 0;
    if (n == 0 || i + n > s.size()) return false;
    std::uint32_t cp = n == 1 ? b(i) : b(i) & (0x7F >> n);
    for (std::size_t k = 1; k < n; ++k) {
      if ((b(i + k) & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (b(i + k) & 0x3F);
    }
    static constexpr std::uint32_t kMin[] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < kMin[n] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return false;
    i += n;
  }
  return true;
}

// A small well-formedness check of XML text: tags balance, attribute values are quoted, `&` starts
// a known entity, no `<` inside text or attributes, no control character XML 1.0 forbids.
std::string xml_problem(const std::string& xml) {
  std::vector<std::string> open;
  for (std::size_t i = 0; i < xml.size(); ++i) {
    auto c = static_cast<unsigned char>(xml[i]);
    if (c < 0x20 && c != '\t' && c != '\n' && c != '\r') return "control character at " + std::to_string(i);
    if (c == '&') {
      std::size_t end = xml.find(';', i);
      std::string entity = end == std::string::npos ? "" : xml.substr(i, end - i + 1);
      bool known = entity == "&amp;" || entity == "&lt;" || entity == "&gt;" || entity == "&quot;" ||
                   entity == "&apos;" || (entity.size() > 3 && entity[1] == '#');
      if (!known) return "bad entity at " + std::to_string(i);
      continue;
    }
    if (c != '<') continue;
    std::size_t end = xml.find('>', i);
    if (end == std::string::npos) return "unclosed tag";
    std::string tag = xml.substr(i + 1, end - i - 1);
    std::size_t quotes = 0;
    for (char q : tag) quotes += q == '"';
    if (quotes % 2 || tag.find('<') != std::string::npos) return "bad tag " + tag.substr(0, 40);
    if (tag[0] == '?' || tag[0] == '!' || tag.back() == '/') {
    } else if (tag[0] == '/') {
      if (open.empty() || open.back() != tag.substr(1)) return "mismatched </" + tag.substr(1) + ">";
      open.pop_back();
    } else {
      open.push_back(tag.substr(0, tag.find_first_of(" \t\n")));
    }
    i = end;
  }
  return open.empty() ? "" : "unclosed <" + open.back() + ">";
}

constexpr const char* kBadOp = "op_\xff_raw";

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  for (std::size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
    s.replace(at, from.size(), to);
  return s;
}

ReportModel bad_utf8_report() {
  TraceBuilder t;
  for (int i = 0; i < 3; ++i) {
    double s = 1000.0 * i;
    t.step(i + 1, s, 900);
    t.op("PLACEHOLDER_OP", s + 10, 100, 10 + i);
    t.launch("PLACEHOLDER_KERNEL", s + 20, s + 30, 500, 10 + i);
  }
  std::string json = replace_all(t.json(), "PLACEHOLDER_OP", kBadOp);
  json =
      replace_all(json, "PLACEHOLDER_KERNEL", "kernel_\xc0\xaf_overlong_\xed\xa0\x80_surrogate_\\u0001_ctl");
  RuleBook rules_book = load_rule_book({});
  RuleSet& rules = rules_book.rules;
  ReportModel report = report_of_json(json, rules_book);
  apply_gate(report, rules, nullptr, {});
  return report;
}

TEST(Utf8, ValidatorAndRepair) {
  EXPECT_TRUE(is_valid_utf8("é € 𝄞"));
  for (const char* bad : {"\xff", "\xc0\xaf", "\xed\xa0\x80", "\xf4\x90\x80\x80", "\xe2\x82", "\x80"})
    EXPECT_FALSE(is_valid_utf8(bad)) << bad;
  // Long ASCII runs are checked 32 and 8 bytes at a time, and the last bytes as one word: a bad byte
  // or a sequence anywhere before, after or across such a run is still found.
  for (const std::string ascii : {"aten::convolution_backward",
                                  "void cudnn::winograd_nonfused::winogradForwardData4x4<float, float>"}) {
    for (std::size_t at = 0; at <= ascii.size(); ++at) {
      for (const char* bad : {"\xff", "\xc0\xaf", "\xe2\x82", "\x80"})
        EXPECT_FALSE(is_valid_utf8(ascii.substr(0, at) + bad + ascii.substr(at))) << at << " " << bad;
      EXPECT_TRUE(is_valid_utf8(ascii.substr(0, at) + "é€𝄞" + ascii.substr(at))) << at;
      EXPECT_TRUE(is_valid_utf8(ascii.substr(0, at))) << at;
    }
  }
  // Texts under 8 bytes are checked as two overlapping words: a high byte at any place is seen.
  for (std::size_t size = 1; size < 8; ++size) {
    for (std::size_t at = 0; at < size; ++at) {
      std::string text(size, 'x');
      EXPECT_TRUE(is_valid_utf8(text)) << size;
      text[at] = '\x80';
      EXPECT_FALSE(is_valid_utf8(text)) << size << " " << at;
      if (at + 2 <= size) {
        EXPECT_TRUE(is_valid_utf8(text.replace(at, 2, "\xc3\xa9"))) << size << " " << at;
      }
    }
  }
  std::size_t replaced = 0;
  EXPECT_EQ(repair_utf8("a\xff"
                        "b\xc0\xaf",
                        replaced),
            "a\xEF\xBF\xBD"
            "b\xEF\xBF\xBD\xEF\xBF\xBD");
  EXPECT_EQ(replaced, 3u);
  EXPECT_EQ(xml_safe_text("a\x01\tb\xef\xbf\xbe"), "a\tb");
  EXPECT_EQ(xml_safe_text(" plain ~text!"), " plain ~text!");  // printable ASCII as it is
  EXPECT_EQ(xml_safe_text("del\x7f kept"), "del\x7f kept");    // XML 1.0 allows U+007F
  EXPECT_EQ(xml_safe_text("end\x1f"), "end");
}

TEST(Utf8, BadNamesAreRepairedAndCounted) {
  ReportModel report = bad_utf8_report();
  bool warned = false;
  for (const std::string& w : note_lines(report.warnings)) warned |= contains(w, "not valid UTF-8");
  for (const auto& worker : report.workers)
    for (const std::string& w : note_texts(worker.warnings)) warned |= contains(w, "not valid UTF-8");
  EXPECT_TRUE(warned);
  std::string json = render_json(report);
  EXPECT_TRUE(valid_utf8(json));
  EXPECT_TRUE(contains(json, "op_\xEF\xBF\xBD_raw")) << "U+FFFD in place of the bad byte";
}

TEST(Utf8, EveryOutputIsValidUtf8AndTheXmlIsWellFormed) {
  ReportModel report = bad_utf8_report();
  EXPECT_TRUE(valid_utf8(render_json(report)));
  EXPECT_TRUE(valid_utf8(render_html(report).page));
  EXPECT_TRUE(valid_utf8(render_markdown(report)));
  EXPECT_TRUE(valid_utf8(render_terminal(report)));
  EXPECT_TRUE(valid_utf8(render_github_annotations(report)));
  EXPECT_TRUE(valid_utf8(render_gitlab_code_quality(report)));
  EXPECT_TRUE(valid_utf8(render_openmetrics(report)));
  std::string junit = render_junit(report);
  EXPECT_TRUE(valid_utf8(junit));
  EXPECT_EQ(xml_problem(junit), "");
  if (std::system("command -v unzip >/dev/null 2>&1") != 0) GTEST_SKIP() << "unzip not installed";
  std::string path = temp_dir() + "/bad.xlsx";
  write_xlsx(report, path);
  FILE* pipe = ::popen(("unzip -p '" + path + "' xl/sharedStrings.xml").c_str(), "r");
  std::string strings;
  char buffer[4096];
  while (std::size_t n = std::fread(buffer, 1, sizeof buffer, pipe)) strings.append(buffer, n);
  ::pclose(pipe);
  EXPECT_TRUE(contains(strings, "op_\xEF\xBF\xBD_raw"));
  EXPECT_TRUE(valid_utf8(strings));
  EXPECT_EQ(xml_problem(strings), "");
}

}  // namespace
}  // namespace perfgate::testing
