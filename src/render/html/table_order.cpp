#include "render/html/table_order.h"

#include <algorithm>
#include <array>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string_view>

#include "render/cell_format.h"

namespace perfgate {
namespace {

// A column's first rows in each order: descending, then ascending.
using FirstRows = std::array<std::vector<std::size_t>, 2>;

// A row and its sort key in one direction: rows order by key, and rows of equal keys by a tie-break.
struct Ranked {
  std::uint64_t key = 0;
  std::size_t row = 0;
};

// The first `n` rows of `ranked` by key, equal keys by `tie` (a strict order of rows): with keys
// and rows side by side most comparisons are of two integers. Rows already in that order (an index,
// a start time, the column the table is sorted by) stay as they are: partial_sort gives the same.
template <typename Tie>
std::vector<std::size_t> first_ranked(std::vector<Ranked> ranked, std::size_t n, Tie tie) {
  auto before = [&](const Ranked& a, const Ranked& b) {
    return a.key != b.key ? a.key < b.key : tie(a.row, b.row);
  };
  if (!std::is_sorted(ranked.begin(), ranked.end(), before))
    std::partial_sort(ranked.begin(), ranked.begin() + static_cast<std::ptrdiff_t>(n), ranked.end(), before);
  std::vector<std::size_t> rows(n);
  for (std::size_t i = 0; i < n; ++i) rows[i] = ranked[i].row;
  return rows;
}

bool row_before(std::size_t a, std::size_t b) {
  return a < b;
}

// A number as a key whose unsigned order is the numbers' order, 0 and -0 equal; none for NaN.
std::uint64_t number_key(double x) {
  auto bits = std::bit_cast<std::uint64_t>(x + 0.0);  // -0 + 0 is +0
  return bits >> 63 ? ~bits : bits | std::uint64_t{1} << 63;
}

// A numeric column's first `n` rows by number, as the page's script compares cells: largest first
// when descending, an empty cell (or none) last either way, ties in the table's order.
FirstRows first_by_number(const std::vector<std::optional<double>>& numbers, std::size_t n) {
  constexpr std::uint64_t kEmpty = UINT64_MAX;  // past any number's key, in both directions
  std::vector<Ranked> descending(numbers.size()), ascending(numbers.size());
  for (std::size_t r = 0; r < numbers.size(); ++r) {
    std::uint64_t key = numbers[r] ? number_key(*numbers[r]) : kEmpty;
    descending[r] = {numbers[r] ? ~key : kEmpty, r};
    ascending[r] = {key, r};
  }
  return {first_ranked(std::move(descending), n, row_before),
          first_ranked(std::move(ascending), n, row_before)};
}

// The same with NaN among the numbers, which no key orders: the page's comparison as it was, by
// partial_sort over row indices (whatever it makes of NaN, it makes the same as before).
FirstRows first_by_number_with_nan(const std::vector<std::optional<double>>& numbers, std::size_t n) {
  auto in_order = [&](bool descending) {
    std::vector<std::size_t> order(numbers.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(n), order.end(),
                      [&](std::size_t a, std::size_t b) {
                        const std::optional<double>&x = numbers[a], &y = numbers[b];
                        if (x.has_value() != y.has_value()) return x.has_value();
                        if (x && *x != *y) return descending ? *x > *y : *x < *y;
                        return a < b;
                      });
    order.resize(n);
    return order;
  };
  return {in_order(true), in_order(false)};
}

FirstRows first_by_number(const ReportTable& t, std::size_t c, std::size_t n) {
  std::vector<std::optional<double>> numbers;
  numbers.reserve(t.rows.size());
  for (const auto& row : t.rows) numbers.push_back(c < row.size() ? cell_number(row[c]) : std::nullopt);
  bool nan = std::any_of(numbers.begin(), numbers.end(), [](const auto& x) { return x && std::isnan(*x); });
  return nan ? first_by_number_with_nan(numbers, n) : first_by_number(numbers, n);
}

// ASCII letters only, as std::tolower in the C locale (the program never sets another).
unsigned char lower(char c) {
  return c >= 'A' && c <= 'Z' ? static_cast<unsigned char>(c - 'A' + 'a') : static_cast<unsigned char>(c);
}

// <0, 0 or >0 as the texts in lower case compare (as std::string compares them: bytes unsigned),
// without lower-casing them first: most comparisons end in the first few bytes. The first `from`
// bytes are known to be equal in lower case.
int compare_lowered(std::string_view a, std::string_view b, std::size_t from = 0) {
  std::size_t n = std::min(a.size(), b.size()), i = std::min(from, n);
  // Equal bytes are equal in lower case: a common prefix (of call stacks, kernel names) 8 at a time.
  while (i + 8 <= n && std::memcmp(a.data() + i, b.data() + i, 8) == 0) i += 8;
  for (; i < n; ++i)
    if (unsigned char x = lower(a[i]), y = lower(b[i]); x != y) return x < y ? -1 : 1;
  return a.size() < b.size() ? -1 : a.size() > b.size() ? 1 : 0;
}

// A text column's cells as text: a view of a text cell, the others' texts (numbers, "–", "yes")
// written into `others`.
std::vector<std::string_view> column_texts(const ReportTable& t, std::size_t c, std::string& others) {
  std::vector<std::string_view> texts(t.rows.size());
  std::vector<std::pair<std::size_t, std::size_t>> written;  // row, end of its text in `others`
  for (std::size_t r = 0; r < t.rows.size(); ++r) {
    if (c >= t.rows[r].size()) continue;  // no cell: ""
    if (const auto* s = std::get_if<std::string>(&t.rows[r][c])) {
      texts[r] = *s;
    } else {
      append_cell_text(others, t.rows[r][c], t.columns[c].unit);
      written.emplace_back(r, others.size());
    }
  }
  for (std::size_t i = 0, begin = 0; i < written.size(); begin = written[i++].second)
    texts[written[i].first] = std::string_view(others).substr(begin, written[i].second - begin);
  return texts;
}

// A text's first 8 bytes in lower case as one number (zeros past its end): where two differ, they
// order the texts as their lower-cased bytes do.
std::uint64_t text_head(std::string_view text) {
  std::uint64_t head = 0;
  for (std::size_t i = 0; i < 8; ++i) head = head << 8 | (i < text.size() ? lower(text[i]) : 0);
  return head;
}

// A text column's first `n` rows by the cell's text in lower case (last in the alphabet first when
// descending), ties in the table's order.
FirstRows first_by_text(const ReportTable& t, std::size_t c, std::size_t n) {
  std::string others;
  std::vector<std::string_view> texts = column_texts(t, c, others);
  std::vector<Ranked> descending(texts.size()), ascending(texts.size());
  for (std::size_t r = 0; r < texts.size(); ++r) {
    std::uint64_t head = text_head(texts[r]);
    descending[r] = {~head, r};
    ascending[r] = {head, r};
  }
  auto whole_text = [&texts](bool last_first) {  // for texts of the same first 8 bytes (heads)
    return [&texts, last_first](std::size_t a, std::size_t b) {
      int order = compare_lowered(texts[a], texts[b], 8);
      if (order != 0) return last_first ? order > 0 : order < 0;
      return a < b;
    };
  };
  return {first_ranked(std::move(descending), n, whole_text(true)),
          first_ranked(std::move(ascending), n, whole_text(false))};
}

// The indices, a run of three or more consecutive ones as "first-last": a table is often in the
// order of one of its columns, and its index and start-time columns list 0 to 49 (the orders of a
// 128-rank page's headers took 144 kB written one by one, 99 kB so).
std::string joined(const std::vector<std::size_t>& indices) {
  std::string out;
  char digits[24];
  auto add = [&](std::size_t i) { out.append(digits, std::to_chars(digits, digits + sizeof digits, i).ptr); };
  for (std::size_t k = 0; k < indices.size();) {
    std::size_t end = k + 1;
    while (end < indices.size() && indices[end] == indices[end - 1] + 1) ++end;
    if (!out.empty()) out += ' ';
    add(indices[k]);
    if (end - k >= 3) {
      out += '-';
      add(indices[end - 1]);
    } else {
      end = k + 1;
    }
    k = end;
  }
  return out;
}

}  // namespace

SortOrders sort_orders(const ReportTable& t, std::size_t shown) {
  std::vector<std::vector<std::size_t>> orders;  // per column: descending, then ascending
  std::vector<bool> needed(t.rows.size(), false);
  for (std::size_t c = 0; c < t.columns.size(); ++c) {
    bool numeric = !t.columns[c].unit.empty();  // as the page's script (and table_view) take it
    FirstRows first = numeric ? first_by_number(t, c, shown) : first_by_text(t, c, shown);
    for (std::vector<std::size_t>& rows : first) {
      for (std::size_t r : rows) needed[r] = true;
      orders.push_back(std::move(rows));
    }
  }
  SortOrders out;
  std::vector<std::size_t> page_index(t.rows.size(), 0);
  for (std::size_t r = 0; r < t.rows.size(); ++r) {
    if (r < shown) {
      page_index[r] = r;
    } else if (needed[r]) {
      page_index[r] = shown + out.aside.size();
      out.aside.push_back(r);
    }
  }
  for (std::size_t k = 0; k < orders.size(); ++k) {
    for (std::size_t& r : orders[k]) r = page_index[r];
    (k % 2 == 0 ? out.descending : out.ascending).push_back(joined(orders[k]));
  }
  return out;
}

}  // namespace perfgate
