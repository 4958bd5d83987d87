// The memory categories of a PyTorch memory snapshot's stack frames (rules: memory_categories),
// compiled once per snapshot read: each entry's file and function patterns in two RE2 sets, and the
// answer for each distinct frame kept, since a trace repeats the same frames in entry after entry.
#pragma once

#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "knowledge/classification.h"
#include "knowledge/pattern_set.h"

namespace perfgate {

class MemoryCategories {
 public:
  // Throws ConfigError for a pattern that does not compile (the rule files' patterns are checked
  // when they are read).
  explicit MemoryCategories(const std::vector<MemoryCategoryPattern>& entries);

  // The first entry whose patterns a frame of `file` (with '\' already read as '/') and `function`
  // matches, or -1. Not thread-safe: it keeps each frame's answer.
  int entry_of(std::string_view file, std::string_view function);
  const std::string& category(int entry) const { return categories_[static_cast<std::size_t>(entry)]; }

 private:
  std::vector<std::string> categories_;
  std::vector<int> file_entry_, function_entry_;  // each set's patterns' entries (made before the sets)
  PatternSet files_, functions_;
  std::vector<bool> needs_file_, needs_function_;
  std::unordered_map<std::string, int> frames_;  // entry_of by the file's length, file and function
  std::vector<int> hits_;
  std::vector<unsigned char> matched_;
};

}  // namespace perfgate
