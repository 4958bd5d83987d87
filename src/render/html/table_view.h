// A report table as the data of templates/table.html.mustache: formatted cells, sort keys, and
// the first rows only.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "render/templates.h"
#include "report_model/report.h"

namespace perfgate {

// The texts of the page's rows kept aside (those a cut table shows only when sorted): each distinct
// text once per page, the rows as lists of its indices. The same kernel names, shapes and numbers
// fill the aside rows of every worker's tables: written as HTML rows they were half of a 128-rank
// page (1.5 of 3.0 MB), held once they are a tenth of it.
class AsideTexts {
 public:
  std::size_t index(std::string_view text);  // the text as shown (visible_text), added if new
  bool empty() const { return texts_.empty(); }
  std::string json() const;  // the texts in index order, a JSON list safe inside <script>

 private:
  // Looked up by a view of the text: a copy is made only of a text not seen before.
  struct TextHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  std::unordered_map<std::string, std::size_t, TextHash, std::equal_to<>> index_;
  std::vector<const std::string*> texts_;
};

// `collapse_over`: a table with more rows starts collapsed (its title stays visible).
// `window_start_us`: the worker's window start, from which trace-clock columns are shown.
// `aside`: the page's texts, where the rows a cut table keeps aside put theirs.
TemplateData table_view(const ReportTable& table, std::size_t max_rows, const std::string& id,
                        AsideTexts& aside, std::size_t collapse_over = SIZE_MAX,
                        std::optional<double> window_start_us = {});

}  // namespace perfgate
