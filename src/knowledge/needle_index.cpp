#include "knowledge/needle_index.h"

#include <algorithm>
#include <cstring>

namespace perfgate {
namespace {
// The two bytes at p as one 16-bit load, in the machine's order (the same for pieces and names).
std::uint16_t pair_at(const char* p) {
  std::uint16_t key;
  std::memcpy(&key, p, sizeof key);
  return key;
}
}  // namespace

int NeedleIndex::add(std::string_view needle, bool folded) {
  int id = static_cast<int>(needles_.size());
  needles_.emplace_back(needle);
  Pieces& pieces = folded ? folded_ : exact_;
  pieces.any = true;
  if (needle.size() == 1) {
    pieces.single.push_back(id);
    return id;
  }
  std::uint16_t key = pair_at(needle.data());
  if (pieces.pair_bits.empty()) pieces.pair_bits.assign(65536 / 64, 0);
  pieces.pair_bits[key / 64] |= std::uint64_t{1} << (key % 64);
  pieces.by_pair.emplace_back(key, id);
  return id;
}

void NeedleIndex::finish() {
  std::sort(exact_.by_pair.begin(), exact_.by_pair.end());
  std::sort(folded_.by_pair.begin(), folded_.by_pair.end());
}

void NeedleIndex::find_all(std::string_view text, std::string_view lowered,
                           std::vector<unsigned char>& found) const {
  found.assign(needles_.size(), 0);
  if (exact_.any) find(exact_, text, found);
  if (folded_.any) find(folded_, lowered, found);
}

void NeedleIndex::find(const Pieces& pieces, std::string_view text, std::vector<unsigned char>& found) const {
  for (int id : pieces.single)
    found[static_cast<std::size_t>(id)] =
        std::memchr(text.data(), needles_[static_cast<std::size_t>(id)][0], text.size()) != nullptr;
  if (pieces.by_pair.empty() || text.size() < 2) return;
  const char* data = text.data();
  const std::uint64_t* bits = pieces.pair_bits.data();
  const std::size_t last = text.size() - 1;
  for (std::size_t i = 0; i < last; ++i) {
    std::uint16_t key = pair_at(data + i);
    if ((bits[key >> 6] >> (key & 63) & 1) == 0) continue;
    auto it = std::lower_bound(pieces.by_pair.begin(), pieces.by_pair.end(), std::make_pair(key, 0));
    for (; it != pieces.by_pair.end() && it->first == key; ++it) {
      const std::string& needle = needles_[static_cast<std::size_t>(it->second)];
      if (needle.size() <= text.size() - i && std::memcmp(data + i, needle.data(), needle.size()) == 0)
        found[static_cast<std::size_t>(it->second)] = 1;
    }
  }
}

}  // namespace perfgate
