// A binary encoding of the analysis' plain structs, field by field in declaration order, for
// partial reports. Aggregates are walked by Boost.PFR, so a field added to a struct is encoded
// without a line here, and changes the layout signature, which refuses files of another build.
//   bool, integers, enums: little-endian, their own width; double: its IEEE-754 bits (exact)
//   string: u64 length, then the bytes; optional: u8 0/1, then the value; vector: u64 count, then
//   the items; map: u64 count, then each key and value; array, pair, aggregate: the items in order;
//   variant: u8 index, then the value; MetricValues: u64 count, then each value as an optional
//   double; NoteId: u16, a note of the catalog (its ids are in the layout signature).
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <cstring>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include <boost/pfr.hpp>

#include "common/metrics.h"
#include "common/notes.h"

static_assert(std::endian::native == std::endian::little, "partial reports are written little-endian");

namespace perfgate::binary_codec {

template <class T>
struct is_vector : std::false_type {};
template <class T>
struct is_vector<std::vector<T>> : std::true_type {};
template <class T>
struct is_map : std::false_type {};
template <class K, class V, class C>
struct is_map<std::map<K, V, C>> : std::true_type {};
template <class T>
struct is_optional : std::false_type {};
template <class T>
struct is_optional<std::optional<T>> : std::true_type {};
template <class T>
struct is_array : std::false_type {};
template <class T, std::size_t N>
struct is_array<std::array<T, N>> : std::true_type {};
template <class T>
struct is_pair : std::false_type {};
template <class A, class B>
struct is_pair<std::pair<A, B>> : std::true_type {};
template <class T>
struct is_variant : std::false_type {};
template <class... A>
struct is_variant<std::variant<A...>> : std::true_type {};

// Thrown for bytes that do not decode: the caller names the file.
struct DecodeError {
  const char* what;
};

class Writer {
 public:
  template <class T>
  void put(const T& v) {
    if constexpr (std::is_same_v<T, std::string>) {
      put_raw(static_cast<std::uint64_t>(v.size()));
      out_.append(v);
    } else if constexpr (std::is_same_v<T, MetricValues>) {
      put_raw(static_cast<std::uint64_t>(v.size()));
      for (std::size_t i = 0; i < v.size(); ++i) put(v.at(i));
    } else if constexpr (std::is_enum_v<T> || std::is_arithmetic_v<T>) {
      put_raw(v);
    } else if constexpr (is_optional<T>::value) {
      put_raw(static_cast<std::uint8_t>(v.has_value()));
      if (v) put(*v);
    } else if constexpr (is_vector<T>::value) {
      put_raw(static_cast<std::uint64_t>(v.size()));
      for (const auto& item : v) put(item);
    } else if constexpr (is_map<T>::value) {
      put_raw(static_cast<std::uint64_t>(v.size()));
      for (const auto& [key, value] : v) {
        put(key);
        put(value);
      }
    } else if constexpr (is_array<T>::value) {
      for (const auto& item : v) put(item);
    } else if constexpr (is_pair<T>::value) {
      put(v.first);
      put(v.second);
    } else if constexpr (is_variant<T>::value) {
      put_raw(static_cast<std::uint8_t>(v.index()));
      std::visit([&](const auto& value) { put(value); }, v);
    } else {
      static_assert(std::is_aggregate_v<T>, "encode only plain structs");
      boost::pfr::for_each_field(v, [&](const auto& field) { put(field); });
    }
  }
  std::string& bytes() { return out_; }

 private:
  template <class T>
  void put_raw(T v) {
    char b[sizeof(T)];
    std::memcpy(b, &v, sizeof(T));
    out_.append(b, sizeof(T));
  }
  std::string out_;
};

// The fewest bytes one value of T takes in the encoding: a count of items that cannot fit in the
// bytes left is refused before anything is allocated for them.
template <class T>
constexpr std::size_t min_encoded_size() {
  if constexpr (std::is_same_v<T, std::string> || std::is_same_v<T, MetricValues> || is_vector<T>::value ||
                is_map<T>::value) {
    return sizeof(std::uint64_t);
  } else if constexpr (std::is_enum_v<T> || std::is_arithmetic_v<T>) {
    return sizeof(T);
  } else if constexpr (is_optional<T>::value || is_variant<T>::value) {
    return 1;
  } else if constexpr (is_array<T>::value) {
    return std::tuple_size_v<T> * min_encoded_size<typename T::value_type>();
  } else if constexpr (is_pair<T>::value) {
    return min_encoded_size<typename T::first_type>() + min_encoded_size<typename T::second_type>();
  } else {
    return []<std::size_t... I>(std::index_sequence<I...>) {
      return (std::size_t{0} + ... + min_encoded_size<boost::pfr::tuple_element_t<I, T>>());
    }
    (std::make_index_sequence<boost::pfr::tuple_size_v<T>>{});
  }
}

class Reader {
 public:
  // `max_memory`: the most the decoded values may allocate (strings' bytes and vectors' items,
  // counted as allocated; 0: no limit). Past it, MemoryLimit is thrown before the allocation.
  explicit Reader(std::string_view bytes, std::uint64_t max_memory = 0) : in_(bytes), budget_(max_memory) {}
  struct MemoryLimit {};

  template <class T>
  void get(T& v) {
    if constexpr (std::is_same_v<T, std::string>) {
      std::uint64_t n = count(1);
      spend(n, 1);
      // Made, not assigned: assign() into an empty string goes through _M_replace, 0.06 M
      // instructions more for the rule book's strings at every start (issue 96).
      v = std::string(in_.data() + at_, n);
      at_ += n;
    } else if constexpr (std::is_same_v<T, MetricValues>) {
      if (count(1) != v.size()) throw DecodeError{"its metrics are not this build's"};
      for (std::size_t i = 0; i < v.size(); ++i) {
        std::optional<double> value;
        get(value);
        v.set_at(i, value);
      }
    } else if constexpr (std::is_same_v<T, bool>) {
      std::uint8_t b = get_raw<std::uint8_t>();
      if (b > 1) throw DecodeError{"a flag is neither 0 nor 1"};
      v = b == 1;
    } else if constexpr (std::is_same_v<T, NoteId>) {
      v = get_raw<NoteId>();
      if (note_position(v) >= kNoteCount) throw DecodeError{"a note is not this build's"};
    } else if constexpr (std::is_enum_v<T> || std::is_arithmetic_v<T>) {
      v = get_raw<T>();
    } else if constexpr (is_optional<T>::value) {
      bool present = false;
      get(present);
      v.reset();
      if (present) get(v.emplace());
    } else if constexpr (is_vector<T>::value) {
      // Every item takes at least min_encoded_size bytes: a count beyond the bytes left is corrupt,
      // not an allocation to attempt; and the items' memory counts against the limit before they
      // are made.
      using Item = typename T::value_type;
      std::uint64_t n = count(std::max<std::size_t>(1, min_encoded_size<Item>()));
      spend(n, sizeof(Item));
      v.clear();
      v.resize(n);
      for (auto& item : v) get(item);
    } else if constexpr (is_map<T>::value) {
      using Key = typename T::key_type;
      using Value = typename T::mapped_type;
      std::uint64_t n = count(std::max<std::size_t>(1, min_encoded_size<Key>() + min_encoded_size<Value>()));
      spend(n, sizeof(Key) + sizeof(Value));
      v.clear();
      for (std::uint64_t i = 0; i < n; ++i) {
        Key key{};
        get(key);
        get(v[key]);
      }
    } else if constexpr (is_array<T>::value) {
      for (auto& item : v) get(item);
    } else if constexpr (is_pair<T>::value) {
      get(v.first);
      get(v.second);
    } else if constexpr (is_variant<T>::value) {
      get_alternative(v, get_raw<std::uint8_t>(), std::make_index_sequence<std::variant_size_v<T>>{});
    } else {
      static_assert(std::is_aggregate_v<T>, "decode only plain structs");
      boost::pfr::for_each_field(v, [&](auto& field) { get(field); });
    }
  }
  bool done() const { return at_ == in_.size(); }

 private:
  template <class T, std::size_t... I>
  void get_alternative(T& v, std::uint8_t index, std::index_sequence<I...>) {
    if (index >= sizeof...(I)) throw DecodeError{"a value of no known kind"};
    ((index == I ? get(v.template emplace<I>()) : void()), ...);
  }
  template <class T>
  T get_raw() {
    need(sizeof(T));
    T v;
    std::memcpy(&v, in_.data() + at_, sizeof(T));
    at_ += sizeof(T);
    return v;
  }
  std::uint64_t count(std::size_t item_bytes) {
    auto n = get_raw<std::uint64_t>();
    if (n > (in_.size() - at_) / item_bytes) throw DecodeError{"a length runs past its end"};
    return n;
  }
  void need(std::size_t n) const {
    if (in_.size() - at_ < n) throw DecodeError{"it ends early"};
  }
  void spend(std::uint64_t items, std::size_t item_bytes) {
    if (budget_ == 0) return;
    if (items > (budget_ - spent_) / item_bytes) throw MemoryLimit{};
    spent_ += items * item_bytes;
  }
  std::string_view in_;
  std::size_t at_ = 0;
  std::uint64_t budget_ = 0;
  std::uint64_t spent_ = 0;
};

// The shape of a type as the encoding sees it: kinds, widths and fields, nested. Two builds whose
// structs differ have different signatures.
template <class T>
void signature(std::string& out) {
  if constexpr (std::is_same_v<T, std::string>) {
    out += 's';
  } else if constexpr (std::is_same_v<T, MetricValues>) {
    out += "m" + std::to_string(MetricValues{}.size());
  } else if constexpr (std::is_same_v<T, bool>) {
    out += 'b';
  } else if constexpr (std::is_same_v<T, NoteId>) {
    // The notes by name: a build whose catalog differs reads another note under the same number.
    out += 'n';
    for (const NoteInfo& note : note_catalog()) (out += note.id) += ',';
  } else if constexpr (std::is_enum_v<T> || std::is_arithmetic_v<T>) {
    out += std::is_floating_point_v<T> ? 'f' : std::is_signed_v<T> ? 'i' : 'u';
    out += std::to_string(sizeof(T));
  } else if constexpr (is_optional<T>::value) {
    out += '?';
    signature<typename T::value_type>(out);
  } else if constexpr (is_vector<T>::value) {
    out += '*';
    signature<typename T::value_type>(out);
  } else if constexpr (is_map<T>::value) {
    out += '<';
    signature<typename T::key_type>(out);
    signature<typename T::mapped_type>(out);
    out += '>';
  } else if constexpr (is_array<T>::value) {
    out += '[' + std::to_string(std::tuple_size_v<T>);
    signature<typename T::value_type>(out);
    out += ']';
  } else if constexpr (is_pair<T>::value) {
    out += '(';
    signature<typename T::first_type>(out);
    signature<typename T::second_type>(out);
    out += ')';
  } else if constexpr (is_variant<T>::value) {
    out += '|';
    [&]<std::size_t... I>(std::index_sequence<I...>) {
      (signature<std::variant_alternative_t<I, T>>(out), ...);
    }
    (std::make_index_sequence<std::variant_size_v<T>>{});
    out += '|';
  } else {
    out += '{';
    [&]<std::size_t... I>(std::index_sequence<I...>) {
      (signature<boost::pfr::tuple_element_t<I, T>>(out), ...);
    }
    (std::make_index_sequence<boost::pfr::tuple_size_v<T>>{});
    out += '}';
  }
}

}  // namespace perfgate::binary_codec
