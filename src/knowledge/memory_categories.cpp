#include "knowledge/memory_categories.h"

namespace perfgate {
namespace {

// The entries' patterns of one kind, and which entry each came from.
std::vector<std::string> patterns_of(const std::vector<MemoryCategoryPattern>& entries,
                                     std::string MemoryCategoryPattern::*field, std::vector<int>& entry_of) {
  std::vector<std::string> out;
  for (std::size_t e = 0; e < entries.size(); ++e)
    if (!(entries[e].*field).empty()) {
      out.push_back(entries[e].*field);
      entry_of.push_back(static_cast<int>(e));
    }
  return out;
}

}  // namespace

MemoryCategories::MemoryCategories(const std::vector<MemoryCategoryPattern>& entries)
    : files_(patterns_of(entries, &MemoryCategoryPattern::file, file_entry_), "memory_categories file"),
      functions_(patterns_of(entries, &MemoryCategoryPattern::function, function_entry_),
                 "memory_categories function") {
  for (const MemoryCategoryPattern& e : entries) {
    categories_.push_back(e.category);
    needs_file_.push_back(!e.file.empty());
    needs_function_.push_back(!e.function.empty());
  }
}

int MemoryCategories::entry_of(std::string_view file, std::string_view function) {
  if (categories_.empty()) return -1;
  // The file's length first: no file and function make another's key.
  std::string key = std::to_string(file.size());
  key.append(1, ':').append(file).append(function);
  auto [it, added] = frames_.try_emplace(std::move(key), -1);
  if (!added) return it->second;
  // Per entry: bit 1 its file pattern matches (or it has none), bit 2 its function pattern.
  matched_.assign(categories_.size(), 0);
  for (std::size_t e = 0; e < categories_.size(); ++e)
    matched_[e] = static_cast<unsigned char>((needs_file_[e] ? 0 : 1) | (needs_function_[e] ? 0 : 2));
  files_.all_matches(file, hits_);
  for (int h : hits_) matched_[static_cast<std::size_t>(file_entry_[static_cast<std::size_t>(h)])] |= 1;
  functions_.all_matches(function, hits_);
  for (int h : hits_) matched_[static_cast<std::size_t>(function_entry_[static_cast<std::size_t>(h)])] |= 2;
  for (std::size_t e = 0; e < matched_.size(); ++e)
    if (matched_[e] == 3) return it->second = static_cast<int>(e);
  return -1;
}

}  // namespace perfgate
