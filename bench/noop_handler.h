// A Boost.JSON handler that accepts every token and keeps nothing: the floor perfgate's reader is
// measured against (perfgate-bench's CPU time, perfgate-bare-parse's instructions).
#pragma once

#include <cstddef>
#include <cstdint>

#include <boost/json/basic_parser.hpp>

struct NoOpHandler {
  static constexpr std::size_t max_object_size = std::size_t(-1);
  static constexpr std::size_t max_array_size = std::size_t(-1);
  static constexpr std::size_t max_key_size = 64 * 1024;
  static constexpr std::size_t max_string_size = 64 * 1024 * 1024;
  using ec = boost::system::error_code;
  using sv = boost::json::string_view;
  bool on_document_begin(ec&) { return true; }
  bool on_document_end(ec&) { return true; }
  bool on_object_begin(ec&) { return true; }
  bool on_object_end(std::size_t, ec&) { return true; }
  bool on_array_begin(ec&) { return true; }
  bool on_array_end(std::size_t, ec&) { return true; }
  bool on_key_part(sv, std::size_t, ec&) { return true; }
  bool on_key(sv, std::size_t, ec&) { return true; }
  bool on_string_part(sv, std::size_t, ec&) { return true; }
  bool on_string(sv, std::size_t, ec&) { return true; }
  bool on_number_part(sv, ec&) { return true; }
  bool on_int64(std::int64_t, sv, ec&) { return true; }
  bool on_uint64(std::uint64_t, sv, ec&) { return true; }
  bool on_double(double, sv, ec&) { return true; }
  bool on_bool(bool, ec&) { return true; }
  bool on_null(ec&) { return true; }
  bool on_comment_part(sv, ec&) { return true; }
  bool on_comment(sv, ec&) { return true; }
};
