// Which of a set's literal pieces occur in a name, found in one pass over it. A set of literal
// patterns holds dozens of pieces ('h884|s884|h1688|...'); a substring search each read a long
// kernel name (NCCL and CUTLASS templates of 1-2 kB) once a piece.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace perfgate {

class NeedleIndex {
 public:
  // The id of a piece to look for: in the name, or in its lower case where `folded`. Not empty.
  int add(std::string_view needle, bool folded);
  // Call once every piece is added.
  void finish();
  std::size_t size() const { return needles_.size(); }
  // found[id] is 1 where piece id occurs (in `lowered` for the folded pieces), else 0.
  void find_all(std::string_view text, std::string_view lowered, std::vector<unsigned char>& found) const;

 private:
  // The pieces of one kind (exact or folded), by their first two bytes; one-byte pieces apart.
  struct Pieces {
    std::vector<std::uint64_t> pair_bits;  // 65,536 bits once a piece of two bytes or more is added
    std::vector<std::pair<std::uint16_t, int>> by_pair;  // sorted by first two bytes
    std::vector<int> single;                             // ids of one-byte pieces
    bool any = false;
  };
  void find(const Pieces& pieces, std::string_view text, std::vector<unsigned char>& found) const;
  std::vector<std::string> needles_;
  Pieces exact_, folded_;
};

}  // namespace perfgate
