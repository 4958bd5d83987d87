// Long names cut for a chart or a table cell so that two different names never read the same:
// cut at the end, "aten::cudnn_convolution_backward_weight" and "..._backward_input" both read
// "aten::cudnn_convolution_backwar…", and demangled kernel names that differ only in their template
// arguments collide the same way.
#pragma once

#include <string>
#include <vector>

#include "report_model/report.h"

namespace perfgate {

// Each text cut to at most `n` bytes (n >= 8), equal texts to equal labels and different texts to
// different labels. A text of `n` bytes or fewer is kept as it is; a longer one keeps its start
// and its end around an ellipsis ("aten::cudnn_con…_backward_weight"); texts that would still read
// the same show the part where each differs from the others ("void k<…float, 128…"), and, where
// even that is the same, a number ("… #2").
std::vector<std::string> distinct_short_labels(const std::vector<std::string>& texts, std::size_t n);

// The text cells of the table's first `rows` rows cut to `n` bytes by distinct_short_labels, column
// by column: per column, the label of each row longer than `n` ("" for the others, shown whole),
// or none where no text cell of the column is longer than `n` (numbers are never that long).
std::vector<std::vector<std::string>> short_text_cells(const ReportTable& t, std::size_t rows, std::size_t n);

}  // namespace perfgate
