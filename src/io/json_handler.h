// The streaming JSON handlers' common part. Boost.JSON's basic_parser<Handler> calls a handler's
// members by name (no virtual call): its limits, a callback per token. JsonHandler holds what every
// handler of perfgate's says alike (the limits, the callbacks nobody reads, one way to stop the
// parse with a reason); a handler derives from it and declares the callbacks it reads. The Kineto
// handler does so on its per-event path. The handlers that read scalars as one kind of value (the
// legacy trace's, the Neuron profile's, a baseline report's) derive from ScalarJsonHandler<Derived>
// instead, which joins keys and strings that arrive in parts, makes every number, flag and null one
// JsonScalar, and calls four members of Derived's (CRTP: a call the compiler sees through).
#pragma once

#include <boost/json/basic_parser.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace perfgate {

class JsonHandler {
 public:
  using error_code = boost::system::error_code;
  using string_view = boost::json::string_view;

  // Boost.JSON's limits; a handler that needs others declares its own.
  static constexpr std::size_t max_object_size = std::size_t(-1);
  static constexpr std::size_t max_array_size = std::size_t(-1);
  static constexpr std::size_t max_key_size = 64 * 1024;
  static constexpr std::size_t max_string_size = 1024 * 1024;

  // Why the handler stopped the parse; empty when it did not (then the parser's reason stands).
  const std::string& error() const { return error_; }

  bool on_document_begin(error_code&) { return true; }
  bool on_document_end(error_code&) { return true; }
  bool on_number_part(string_view, error_code&) { return true; }
  bool on_comment_part(string_view, error_code&) { return true; }
  bool on_comment(string_view, error_code&) { return true; }

 protected:
  // Stops the parse with `message` (the first one given is kept); returns false, for the callback
  // to return.
  bool fail(error_code& ec, std::string message);

 private:
  std::string error_;
};

// A scalar as the document wrote it.
struct JsonScalar {
  enum class Kind : std::uint8_t { Null, Int, UInt, Double, Bool, String };
  Kind kind = Kind::Null;
  std::int64_t i = 0;
  std::uint64_t u = 0;
  double d = 0;
  bool b = false;
  std::string_view text;  // String: the text, valid until the callback returns
};

// Derived declares:
//   bool open(bool array, error_code&);              an object (or array) begins
//   bool close(bool array, error_code&);             the innermost one ends
//   bool key(std::string_view key, error_code&);     whole; valid until it returns
//   bool scalar(const JsonScalar& value, error_code&);
// and, where it passes over values it does not read, `bool skipping() const`: while it is true,
// keys and scalars are neither joined nor handed on, so a skipped value costs no memory.
template <typename Derived>
class ScalarJsonHandler : public JsonHandler {
 public:
  bool on_object_begin(error_code& ec) { return self().open(false, ec); }
  bool on_object_end(std::size_t, error_code& ec) { return self().close(false, ec); }
  bool on_array_begin(error_code& ec) { return self().open(true, ec); }
  bool on_array_end(std::size_t, error_code& ec) { return self().close(true, ec); }

  bool on_key_part(string_view s, std::size_t, error_code&) { return part(s); }
  bool on_key(string_view s, std::size_t, error_code& ec) {
    return self().skipping() || whole(s, [&](std::string_view key) { return self().key(key, ec); });
  }
  bool on_string_part(string_view s, std::size_t, error_code&) { return part(s); }
  bool on_string(string_view s, std::size_t, error_code& ec) {
    return self().skipping() || whole(s, [&](std::string_view text) {
             JsonScalar v;
             v.kind = JsonScalar::Kind::String;
             v.text = text;
             return self().scalar(v, ec);
           });
  }
  bool on_int64(std::int64_t i, string_view, error_code& ec) {
    JsonScalar v;
    v.kind = JsonScalar::Kind::Int;
    v.i = i;
    return self().skipping() || self().scalar(v, ec);
  }
  bool on_uint64(std::uint64_t u, string_view, error_code& ec) {
    JsonScalar v;
    v.kind = JsonScalar::Kind::UInt;
    v.u = u;
    return self().skipping() || self().scalar(v, ec);
  }
  bool on_double(double d, string_view, error_code& ec) {
    JsonScalar v;
    v.kind = JsonScalar::Kind::Double;
    v.d = d;
    return self().skipping() || self().scalar(v, ec);
  }
  bool on_bool(bool b, error_code& ec) {
    JsonScalar v;
    v.kind = JsonScalar::Kind::Bool;
    v.b = b;
    return self().skipping() || self().scalar(v, ec);
  }
  bool on_null(error_code& ec) { return self().skipping() || self().scalar(JsonScalar{}, ec); }

  // Unless Derived declares its own: every value is read.
  bool skipping() const { return false; }

 private:
  Derived& self() { return static_cast<Derived&>(*this); }

  bool part(string_view s) {
    if (!self().skipping()) parts_.append(s.data(), s.size());
    return true;
  }
  // Hands `take` the whole text whose last part is `last`.
  template <typename Take>
  bool whole(string_view last, Take&& take) {
    if (parts_.empty()) return take(std::string_view(last.data(), last.size()));
    parts_.append(last.data(), last.size());
    bool ok = take(std::string_view(parts_));
    parts_.clear();
    return ok;
  }

  std::string parts_;  // a key or a string arriving in parts
};

}  // namespace perfgate
