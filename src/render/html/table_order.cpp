#include "render/html/table_order.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string_view>

#include "render/cell_format.h"

namespace perfgate {
namespace {

// The first `n` of `rows` rows ordered by `before`. A column already in that order (an index, a start
// time, the column the table is sorted by) keeps its first rows without sorting, when `before` is a
// strict total order (no NaN): partial_sort would give the same rows.
template <typename Before>
std::vector<std::size_t> first_in_order(std::size_t rows, std::size_t n, bool strict, Before before) {
  std::vector<std::size_t> order(rows);
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  if (!strict || !std::is_sorted(order.begin(), order.end(), before))
    std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(n), order.end(), before);
  order.resize(n);
  return order;
}

// A column's first rows in each order: descending, then ascending.
using FirstRows = std::array<std::vector<std::size_t>, 2>;

// A numeric column's first `n` rows by number, as the page's script compares cells: largest first
// when descending, an empty cell (or none) last either way, ties in the table's order.
FirstRows first_by_number(const ReportTable& t, std::size_t c, std::size_t n) {
  std::vector<std::optional<double>> keys;
  keys.reserve(t.rows.size());
  bool strict = true;
  for (const auto& row : t.rows) {
    keys.push_back(c < row.size() ? cell_number(row[c]) : std::nullopt);
    strict = strict && !(keys.back() && std::isnan(*keys.back()));
  }
  auto in_order = [&](bool descending) {
    return first_in_order(keys.size(), n, strict, [&](std::size_t a, std::size_t b) {
      const std::optional<double>&x = keys[a], &y = keys[b];
      if (x.has_value() != y.has_value()) return x.has_value();
      if (x && *x != *y) return descending ? *x > *y : *x < *y;
      return a < b;
    });
  };
  return {in_order(true), in_order(false)};
}

// ASCII letters only, as std::tolower in the C locale (the program never sets another).
unsigned char lower(char c) {
  return c >= 'A' && c <= 'Z' ? static_cast<unsigned char>(c - 'A' + 'a') : static_cast<unsigned char>(c);
}

// <0, 0 or >0 as the texts in lower case compare (as std::string compares them: bytes unsigned),
// without lower-casing them first: most comparisons end in the first few bytes.
int compare_lowered(std::string_view a, std::string_view b) {
  std::size_t i = 0, n = std::min(a.size(), b.size());
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

// A text's sort key: its first 8 bytes in lower case as one number (zeros past its end), which
// orders two texts as their lower-cased bytes do where the numbers differ; the whole text else.
struct TextKey {
  std::uint64_t head = 0;
  std::string_view text;
};

TextKey text_key(std::string_view text) {
  TextKey key{0, text};
  for (std::size_t i = 0; i < 8; ++i) key.head = key.head << 8 | (i < text.size() ? lower(text[i]) : 0);
  return key;
}

// A text column's first `n` rows by the cell's text in lower case (last in the alphabet first when
// descending), ties in the table's order.
FirstRows first_by_text(const ReportTable& t, std::size_t c, std::size_t n) {
  std::string others;
  std::vector<TextKey> keys;
  keys.reserve(t.rows.size());
  for (std::string_view text : column_texts(t, c, others)) keys.push_back(text_key(text));
  auto in_order = [&](bool descending) {
    return first_in_order(keys.size(), n, true, [&](std::size_t a, std::size_t b) {
      const TextKey &x = keys[a], &y = keys[b];
      int order = x.head != y.head ? (x.head < y.head ? -1 : 1) : compare_lowered(x.text, y.text);
      if (order != 0) return descending ? order > 0 : order < 0;
      return a < b;
    });
  };
  return {in_order(true), in_order(false)};
}

std::string joined(const std::vector<std::size_t>& indices) {
  std::string out;
  char digits[24];
  for (std::size_t i : indices) {
    if (!out.empty()) out += ' ';
    out.append(digits, std::to_chars(digits, digits + sizeof digits, i).ptr);
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
