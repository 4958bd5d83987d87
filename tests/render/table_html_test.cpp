#include <gtest/gtest.h>

#include <string>

#include "render/html/table_view.h"
#include "render/short_labels.h"
#include "render/templates.h"

namespace perfgate {
namespace {

ReportTable small_table() {
  ReportTable t;
  t.name = "ops";
  t.title = "Ops";
  t.columns = {{"calls", "count", ""}, {"name", "", ""}, {"call_stack", "", ""}};
  t.rows.push_back({std::int64_t{3}, std::string("a<b & \"c\" 'd'"), std::string("f (x.py:1)")});
  t.rows.push_back({std::int64_t{2}, std::string(120, 'k'), std::string("")});
  return t;
}

std::string page_of(const ReportTable& t, std::size_t max_rows, AsideTexts* texts = nullptr) {
  AsideTexts own;
  return render_template("table.html.mustache", table_view(t, max_rows, "ops", texts ? *texts : own));
}

// The rows are written in code (table_view.cpp), not by the template: the markup and escaping are
// pinned here, as the template wrote them.
TEST(TableHtml, RowsAreTheTemplatesMarkupWithEveryTextEscaped) {
  std::string page = page_of(small_table(), 10);
  EXPECT_NE(page.find("<tbody>\n<tr><td class=\"n\" data-sort=\"3\">3</td>"
                      "<td>a&lt;b &amp; &quot;c&quot; &apos;d&apos;</td>"
                      "<td class=\"line\" title=\"f (x.py:1)\">f (x.py:1)</td></tr>\n"
                      "<tr><td class=\"n\" data-sort=\"2\">2</td><td title=\"" +
                      std::string(120, 'k') + "\">"),
            std::string::npos)
      << page;
  EXPECT_NE(page.find("<td class=\"line\"></td></tr>\n</tbody>"), std::string::npos) << page;
  EXPECT_EQ(page.find("No rows."), std::string::npos);
  EXPECT_EQ(page.find(">" + std::string(120, 'k') + "<"), std::string::npos) << "the cell shows it cut";
}

TEST(TableHtml, ATableWithoutRowsSaysSo) {
  ReportTable t = small_table();
  t.rows.clear();
  EXPECT_NE(page_of(t, 10).find("<tbody>\n<tr><td colspan=\"3\">No rows.</td></tr>\n</tbody>"),
            std::string::npos);
  EXPECT_NE(page_of(small_table(), 0).find("No rows."), std::string::npos);  // none shown
}

// A table cut to its first rows shows them without sort keys (its orders are listed in its
// header), and keeps aside, as data, the rows another order shows first: here the second row, the
// one with fewer calls. Its cells are indices into the page's texts: "2", the long name cut ([its
// cut form, the whole]) and the empty call stack; a text met before (in another table) keeps its
// index, as each text is held once per page.
TEST(TableHtml, ACutTableShowsItsFirstRowsAndKeepsAsideWhatItsOrdersShow) {
  AsideTexts texts;
  EXPECT_EQ(texts.index("k<"), 0u);
  std::string page = page_of(small_table(), 1, &texts);
  EXPECT_EQ(page.find("data-sort="), std::string::npos);
  EXPECT_NE(page.find("<tbody>\n<tr><td class=\"n\">3</td>"), std::string::npos) << page;
  EXPECT_NE(page.find("<script type=\"application/json\" class=\"aside\">[[1,[2,3],4]]</script>"),
            std::string::npos)
      << page;
  EXPECT_NE(page.find("the first 1 of 2 rows"), std::string::npos);
  std::string k = std::string(120, 'k');
  std::string cut = distinct_short_labels({k}, 96).front();  // how a long text is cut: short_labels.h
  EXPECT_EQ(texts.json(), "[\"k\\u003c\",\"2\",\"" + cut + "\",\"" + k + "\",\"\"]");
  EXPECT_EQ(texts.index("2"), 1u);
}

}  // namespace
}  // namespace perfgate
