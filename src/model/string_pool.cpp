#include <algorithm>
#include <cstdint>
#include <cstring>
#include <utility>

#include <boost/unordered/unordered_flat_map.hpp>

#include "common/utf8.h"
#include "model/profile.h"

namespace perfgate {
namespace {
// Short strings are packed into chunks of 64 KiB, and from the 17th on of 1 MiB: the --max-memory
// budget moves blocks of 1 MiB or more into its spill file (io/spill_arena.h, kMinSpillBlock), and a
// million steps' names ("ProfilerStep#N", unique) held 19 MB of 64 KiB chunks on the heap (issue
// 92). A pool of under 1 MiB of short strings keeps its small chunks.
constexpr std::size_t kChunkSize = 64 * 1024;
constexpr std::size_t kLargeChunkSize = 1024 * 1024;
constexpr std::size_t kSmallChunks = 16;
constexpr std::size_t chunk_size(std::size_t index) {
  return index < kSmallChunks ? kChunkSize : kLargeChunkSize;
}
}  // namespace

std::size_t TextHash::operator()(std::string_view text) const noexcept {
  constexpr std::uint64_t kMultiplier = 0x9E3779B97F4A7C15ULL;
  auto mix = [](std::uint64_t h, std::uint64_t word) {
    h = (h ^ word) * kMultiplier;
    return h ^ (h >> 32);
  };
  const char* p = text.data();
  std::size_t n = text.size();
  std::uint64_t h = mix(0, n);
  std::uint64_t word = 0;
  for (; n >= 8; p += 8, n -= 8) {
    std::memcpy(&word, p, 8);
    h = mix(h, word);
  }
  if (n > 0) {  // the last 1 to 7 bytes: the final 8 bytes of a longer text, else the bytes alone
    word = 0;
    if (text.size() >= 8)
      std::memcpy(&word, text.data() + text.size() - 8, 8);
    else
      std::memcpy(&word, p, n);
    h = mix(h, word);
  }
  return h ^ (h >> 29);
}

// boost::unordered_flat_map: one probe of a metadata group per look-up and no allocation per string
// (std::unordered_map allocated a node for each and rehashed them as the table grew, per piece of a
// trace read on several threads). Each piece interns its names, shapes and call stacks, and the
// merge interns each piece's strings into the profile's pool: ResNet-50 on 2 threads, 16,300 calls.
struct StringPool::Index {
  boost::unordered_flat_map<std::string_view, StringId, TextHash> map;
};

StringPool::StringPool() : ids_(std::make_unique<Index>()) {
  intern("");
}
StringPool::StringPool(StringPool&&) noexcept = default;
StringPool& StringPool::operator=(StringPool&&) noexcept = default;
StringPool::~StringPool() = default;

StringId StringPool::intern(std::string_view text) {
  if (!ids_) ids_ = std::make_unique<Index>();
  auto& ids = ids_->map;
  if (auto it = ids.find(text); it != ids.end()) return it->second;
  // Invalid UTF-8 (raw bytes, overlong forms, encoded surrogates) is repaired once, on first sight:
  // the repaired text is interned and the original text maps to it. Readers count what they repair
  // (the Kineto reader as it parses); this is the net under every reader.
  if (!is_valid_utf8(text)) {
    std::size_t replaced = 0;
    std::string repaired = repair_utf8(text, replaced);
    StringId id = intern(repaired);
    ids.emplace(store(text), id);
    return id;
  }
  std::string_view stored = store(text);
  auto id = static_cast<StringId>(views_.size());
  views_.push_back(stored);
  ids.emplace(stored, id);
  return id;
}

// Short strings are packed into chunks (chunk_size), long ones get their own block: views never move.
std::string_view StringPool::store(std::string_view text) {
  if (text.empty()) return {};
  if (text.size() > kChunkSize / 4) {
    long_strings_.push_back(std::make_unique_for_overwrite<char[]>(text.size()));
    long_bytes_ += text.size();
    std::memcpy(long_strings_.back().get(), text.data(), text.size());
    return {long_strings_.back().get(), text.size()};
  }
  if (chunks_.empty() || chunk_used_ + text.size() > chunk_size(chunks_.size() - 1)) {
    chunks_.push_back(std::make_unique_for_overwrite<char[]>(chunk_size(chunks_.size())));
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

std::size_t StringPool::memory_bytes() const {
  constexpr std::size_t kIndexSlot = sizeof(std::pair<std::string_view, StringId>) + 1;  // and its tag byte
  std::size_t small = std::min(chunks_.size(), kSmallChunks);
  return small * kChunkSize + (chunks_.size() - small) * kLargeChunkSize + long_bytes_ +
         views_.capacity() * sizeof(std::string_view) + (ids_ ? ids_->map.bucket_count() * kIndexSlot : 0);
}

}  // namespace perfgate
