// The orders a page's table of more rows than it shows offers: sorting by a column orders the
// whole table, not the rows shown.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "report_model/report.h"

namespace perfgate {

// Sorting a table cut to its first `shown` rows orders the whole table: for each column and
// direction, the rows the page shows first in that order, as indices into the page's rows (the
// shown ones, then those kept aside for the other orders, in table order). Done here, the page
// stays small (the rows some order shows, not every row) and the order is the whole table's.
struct SortOrders {
  std::vector<std::string> descending, ascending;  // per column: page row indices ("0-49" a run)
  std::vector<std::size_t> aside;                  // table rows kept aside
};

// `shown` < the table's rows.
SortOrders sort_orders(const ReportTable& t, std::size_t shown);

}  // namespace perfgate
