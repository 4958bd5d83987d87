// A map's entry looked up again only when the key changes: the activities of a trace come a
// device or a stream at a time, and a flat_map's look-up per activity (a call and a binary search)
// cost more than the tree's it replaced (issue 78).
#pragma once

namespace perfgate {

template <class Map>
class LastEntry {
 public:
  explicit LastEntry(Map& map) : map_(map) {}
  // map[key]; the reference lasts until the next call (an insertion moves a flat_map's entries,
  // and happens only in a call with another key, which looks the entry up again).
  typename Map::mapped_type& operator[](const typename Map::key_type& key) {
    if (!last_ || !(key == key_)) {
      last_ = &map_[key];
      key_ = key;
    }
    return *last_;
  }

 private:
  Map& map_;
  typename Map::key_type key_{};
  typename Map::mapped_type* last_ = nullptr;
};

}  // namespace perfgate
