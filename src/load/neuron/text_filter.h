// Older neuron-profile releases wrote NaN (and infinities) as bare words, which JSON does not allow.
// NonFiniteFilter rewrites them to null between the file and the parser, tracking strings so that
// text inside them is left alone; text without such a word passes through uncopied.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace perfgate::neuron {

class NonFiniteFilter {
 public:
  // Filters the start of `in`: returns the text to parse and sets `used` to the bytes of `in` it
  // stands for. A word cut off at the end of `in` is left for the next call (used < in.size())
  // unless `last`. The result views `in` or a buffer of the filter's own, valid until the next call.
  std::string_view filter(std::string_view in, bool last, std::size_t& used);
  std::size_t replaced() const { return replaced_; }

 private:
  std::size_t scan(std::string_view in, std::size_t from);
  bool in_string_ = false;
  bool escape_ = false;
  std::size_t replaced_ = 0;
  std::string out_;
};

}  // namespace perfgate::neuron
