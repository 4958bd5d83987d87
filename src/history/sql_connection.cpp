#include "history/sql_connection.h"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <limits>
#include <random>
#include <thread>
#include <type_traits>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "common/errors.h"

namespace perfgate::history {
namespace {

// The most parameters one INSERT carries: well under SQLite's 32766 and PostgreSQL's 65535.
constexpr std::size_t kMaxParameters = 4000;

template <typename Number>
Number parse_number(const std::string& text) {
  Number n{};
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (ec != std::errc() || end != text.data() + text.size())
    throw ValueError(
        fmt::format("'{}', not a {}number", text.substr(0, 40), std::is_integral_v<Number> ? "whole " : ""));
  return n;
}

}  // namespace

std::int64_t as_integer(const SqlValue& v) {
  if (const auto* i = std::get_if<std::int64_t>(&v)) return *i;
  if (const auto* d = std::get_if<double>(&v)) {
    // 2^63 is the first double past the range; a NaN fails both tests.
    if (!(*d >= -0x1p63 && *d < 0x1p63) || *d != std::trunc(*d))
      throw ValueError(fmt::format("{}, not a whole number", *d));
    return static_cast<std::int64_t>(*d);
  }
  if (const auto* s = std::get_if<std::string>(&v)) return parse_number<std::int64_t>(*s);
  return 0;
}

double as_real(const SqlValue& v) {
  if (const auto* d = std::get_if<double>(&v)) return *d;
  if (const auto* i = std::get_if<std::int64_t>(&v)) return static_cast<double>(*i);
  if (const auto* s = std::get_if<std::string>(&v)) {
    // PostgreSQL writes these words for the IEEE specials; from_chars reads "inf" and "nan" only.
    if (*s == "Infinity") return std::numeric_limits<double>::infinity();
    if (*s == "-Infinity") return -std::numeric_limits<double>::infinity();
    if (*s == "NaN") return std::numeric_limits<double>::quiet_NaN();
    return parse_number<double>(*s);
  }
  return 0;
}

std::optional<double> as_optional_real(const SqlValue& v) {
  if (std::holds_alternative<std::monostate>(v)) return std::nullopt;
  return as_real(v);
}

std::string as_text(const SqlValue& v) {
  if (const auto* s = std::get_if<std::string>(&v)) return *s;
  if (const auto* i = std::get_if<std::int64_t>(&v)) return std::to_string(*i);
  if (const auto* d = std::get_if<double>(&v)) return fmt::format("{}", *d);
  return "";
}

void SqlConnection::insert_rows(std::string_view table, const std::vector<std::string_view>& columns,
                                const std::vector<SqlRow>& rows) {
  std::string row_marks = "(";
  for (std::size_t c = 0; c < columns.size(); ++c) row_marks += c ? ", ?" : "?";
  row_marks += ")";
  std::string head = fmt::format("INSERT INTO {} ({}) VALUES ", table, fmt::join(columns, ", "));
  std::size_t per_statement = std::max<std::size_t>(1, kMaxParameters / columns.size());
  for (std::size_t first = 0; first < rows.size(); first += per_statement) {
    std::size_t end = std::min(rows.size(), first + per_statement);
    std::string sql = head;
    std::vector<SqlValue> params;
    params.reserve((end - first) * columns.size());
    for (std::size_t r = first; r < end; ++r) {
      sql += r == first ? row_marks : ", " + row_marks;
      params.insert(params.end(), rows[r].begin(), rows[r].end());
    }
    execute(sql, params);
  }
}

void SqlConnection::run_transaction(std::string_view begin, const std::function<void()>& work) {
  for (int attempt = 1;; ++attempt) {
    try {
      execute(begin);
      try {
        work();
        execute("COMMIT");
      } catch (...) {
        rollback();
        throw;
      }
      return;
    } catch (const RetryableError& e) {
      if (attempt == kTransactionAttempts)
        throw InputError(fmt::format("{}: still locked by other writers after {} attempts: {}", where(),
                                     attempt, e.what()));
      back_off(attempt);
    }
  }
}

void back_off(int attempt) {
  thread_local std::minstd_rand random{std::random_device{}()};
  int ceiling_ms = std::min(1000, 10 << std::min(attempt, 6));
  std::uniform_int_distribution<int> pick(ceiling_ms / 2, ceiling_ms);
  std::this_thread::sleep_for(std::chrono::milliseconds(pick(random)));
}

}  // namespace perfgate::history
