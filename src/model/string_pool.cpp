#include <cstring>

#include "perfgate/profile.h"

namespace perfgate {
namespace {
constexpr std::size_t kChunkSize = 64 * 1024;
}

StringPool::StringPool() {
  intern("");
}
StringPool::StringPool(StringPool&&) noexcept = default;
StringPool& StringPool::operator=(StringPool&&) noexcept = default;
StringPool::~StringPool() = default;

StringId StringPool::intern(std::string_view text) {
  if (auto it = ids_.find(text); it != ids_.end()) return it->second;
  std::string_view stored = store(text);
  auto id = static_cast<StringId>(views_.size());
  views_.push_back(stored);
  ids_.emplace(stored, id);
  return id;
}

// Short strings are packed into 64 KiB chunks, long ones get their own block: views never move.
std::string_view StringPool::store(std::string_view text) {
  if (text.empty()) return {};
  if (text.size() > kChunkSize / 4) {
    long_strings_.push_back(std::make_unique<char[]>(text.size()));
    std::memcpy(long_strings_.back().get(), text.data(), text.size());
    return {long_strings_.back().get(), text.size()};
  }
  if (chunks_.empty() || chunk_used_ + text.size() > kChunkSize) {
    chunks_.push_back(std::make_unique<char[]>(kChunkSize));
    chunk_used_ = 0;
  }
  char* dest = chunks_.back().get() + chunk_used_;
  std::memcpy(dest, text.data(), text.size());
  chunk_used_ += text.size();
  return {dest, text.size()};
}

const DeviceInfo* Profile::device(std::int32_t id) const {
  for (const auto& d : devices)
    if (d.id == id) return &d;
  return nullptr;
}

}  // namespace perfgate
