// A memory snapshot's traces replayed (snapshot_reader.h). The final state seeds the live blocks;
// walking each trace backwards, an `alloc` takes its block out of the live set (with the size the
// set holds: the block's own size for blocks alive at the end, else the size the trace recorded,
// the size requested; its site from the alloc's frames) and a `free_completed` puts its block back
// (with the free's frames: the only ones of a block allocated before the recording), so that the totals
// entering the trace count what was allocated before the recording (torch/cuda/_memory_viz.py and MemoryViz's
// process_alloc_data seed theirs the same way). Forwards again, each allocation and completed free
// is a sample with the totals after it, and the live set at the first highest total is the peak's.
#include <fmt/format.h>

#include <algorithm>

#include "load/snapshot/snapshot_reader.h"
#include "perfgate/errors.h"

namespace perfgate::snapshot {
namespace {

constexpr std::int64_t kBound = std::int64_t{1} << 62;
constexpr std::size_t kSitesNamed = 5;  // in the note of what is live at the peak

bool moves_allocated(Action a) {
  return a == Action::Alloc || a == Action::FreeCompleted;
}
std::int64_t reserved_change(const TraceStep& s) {
  if (s.action == Action::SegmentAlloc || s.action == Action::SegmentMap) return s.size;
  if (s.action == Action::SegmentFree || s.action == Action::SegmentUnmap) return -s.size;
  return 0;
}

// What is live after the first `count` steps, from the live set entering the trace, by site.
std::vector<std::pair<std::string, std::uint64_t>> live_by_site(
    std::unordered_map<std::uint64_t, LiveBlock> live, const DeviceData& d,
    const std::vector<LiveBlock>& block, std::size_t count, const std::vector<std::string>& sites) {
  for (std::size_t i = 0; i < count; ++i) {
    if (d.steps[i].action == Action::Alloc) live[d.steps[i].address] = block[i];
    if (d.steps[i].action == Action::FreeCompleted) live.erase(d.steps[i].address);
  }
  std::vector<std::uint64_t> bytes(sites.size(), 0);
  for (const auto& [address, b] : live)
    if (__builtin_add_overflow(bytes[b.site], b.size, &bytes[b.site])) bytes[b.site] = UINT64_MAX;
  std::vector<std::pair<std::string, std::uint64_t>> out;
  for (std::size_t s = 0; s < sites.size(); ++s)
    if (bytes[s] > 0) out.emplace_back(sites[s], bytes[s]);
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
    return a.second != b.second ? a.second > b.second : a.first < b.first;
  });
  return out;
}

DeviceState replay(const DeviceData& d, const std::vector<std::string>& sites, Profile& profile) {
  DeviceState out;
  out.device = d.device;
  out.reserved = d.reserved;
  out.allocated = d.allocated;
  out.segments = d.segments;
  out.actions = d.steps.size();
  std::unordered_map<std::uint64_t, LiveBlock> live = d.live;
  auto allocated = static_cast<std::int64_t>(d.allocated);  // both at most 2^62 (read_snapshot)
  auto reserved = static_cast<std::int64_t>(d.reserved);
  std::vector<LiveBlock> block(d.steps.size());
  for (std::size_t i = d.steps.size(); i-- > 0;) {
    const TraceStep& s = d.steps[i];
    if (s.action == Action::Alloc) {
      auto at = live.find(s.address);
      // The block's size as the live set holds it; its site the allocation's own frames.
      block[i] = {at != live.end() ? at->second.size : static_cast<std::uint64_t>(s.size), s.site};
      if (at != live.end()) live.erase(at);
      allocated -= static_cast<std::int64_t>(block[i].size);
    } else if (s.action == Action::FreeCompleted) {
      block[i] = {static_cast<std::uint64_t>(s.size), s.site};
      live[s.address] = block[i];
      allocated += s.size;
    }
    reserved -= reserved_change(s);
    if (allocated > kBound || allocated < -kBound || reserved > kBound || reserved < -kBound)
      throw InputError(
          fmt::format("{}: not a PyTorch memory snapshot: device {}'s trace moves its totals past 2^62 bytes",
                      profile.source_path, d.device));
  }
  out.entering_allocated = allocated;
  out.entering_reserved = reserved;
  // Forwards: the totals entering (at the first action's time), then one sample per change.
  TimeNs start = d.steps.empty() ? 0 : d.steps.front().time;
  auto sample = [&](TimeNs time, std::int64_t bytes) {
    profile.memory_samples.push_back({time, bytes, std::max<std::int64_t>(allocated, 0),
                                      std::max<std::int64_t>(reserved, 0), d.device, kNone});
  };
  sample(start, 0);
  out.peak_allocated = allocated;
  for (std::size_t i = 0; i < d.steps.size(); ++i) {
    const TraceStep& s = d.steps[i];
    std::int64_t change = reserved_change(s);
    if (!moves_allocated(s.action) && change == 0) continue;
    std::int64_t bytes = 0;
    if (s.action == Action::Alloc) bytes = static_cast<std::int64_t>(block[i].size);
    if (s.action == Action::FreeCompleted) bytes = -static_cast<std::int64_t>(block[i].size);
    allocated += bytes;
    reserved += change;
    sample(s.time, bytes);
    if (allocated > out.peak_allocated) {
      out.peak_allocated = allocated;
      out.peak_after = i + 1;
    }
  }
  for (const TraceStep& s : d.steps) out.ooms += s.action == Action::Oom ? 1 : 0;
  out.live_at_peak = live_by_site(std::move(live), d, block, out.peak_after, sites);
  return out;
}

std::string bytes_text(std::uint64_t bytes) {
  return fmt::format("{} bytes ({:.1f} MiB)", bytes, static_cast<double>(bytes) / (1024.0 * 1024.0));
}

void add_notes(const DeviceData& d, const DeviceState& s, Profile& profile) {
  std::vector<std::string>& notes = profile.notes;
  notes.push_back(
      fmt::format("memory snapshot, device {}: {} segments, {} trace actions; {} bytes allocated and {} "
                  "reserved at the end; "
                  "{} bytes allocated when the trace begins; the peak, {}, after action {} of {}",
                  s.device, s.segments, s.actions, s.allocated, s.reserved, s.entering_allocated,
                  bytes_text(static_cast<std::uint64_t>(std::max<std::int64_t>(s.peak_allocated, 0))),
                  s.peak_after, s.actions));
  if (s.entering_allocated < 0)
    notes.push_back(
        fmt::format("memory snapshot, device {}: the trace frees {} bytes more than were allocated "
                    "before it: the final state and the trace disagree, so the totals are not the "
                    "allocator's",
                    s.device, -s.entering_allocated));
  if (!s.live_at_peak.empty()) {
    std::string text;
    std::uint64_t rest = 0;
    for (std::size_t i = 0; i < s.live_at_peak.size(); ++i) {
      const auto& [site, bytes] = s.live_at_peak[i];
      if (i < kSitesNamed)
        text += fmt::format("{}{} from {}", i == 0 ? "" : "; ", bytes, site);
      else
        rest += bytes;
    }
    if (s.live_at_peak.size() > kSitesNamed)
      text += fmt::format("; {} from {} other sites", rest, s.live_at_peak.size() - kSitesNamed);
    notes.push_back(
        fmt::format("memory snapshot, device {}: live at the peak, by top user frame: {}", s.device, text));
  }
  if (d.reserved > d.allocated)
    notes.push_back(fmt::format(
        "memory snapshot, device {}: {} bytes reserved, {} allocated at the end ({} reserved but not "
        "allocated); "
        "{} inactive blocks in split segments hold {} bytes; the largest inactive block is {} bytes{}",
        d.device, d.reserved, d.allocated, d.reserved - d.allocated, d.split_inactive_blocks,
        d.split_inactive_bytes, d.largest_inactive, d.expandable > 0 ? " (expandable segments)" : ""));
  for (std::size_t i = 0; i < d.steps.size(); ++i)
    if (d.steps[i].action == Action::Oom)
      notes.push_back(fmt::format(
          "memory snapshot, device {}: out of memory: a request of {} bytes with {} bytes free on the device "
          "(trace action {} of {}); the largest inactive block at the end is {} bytes",
          d.device, d.steps[i].size, d.steps[i].device_free, i + 1, d.steps.size(), d.largest_inactive));
}

}  // namespace

std::vector<DeviceState> add_snapshot(const SnapshotData& snapshot, Profile& profile) {
  std::vector<DeviceState> out;
  for (const DeviceData& d : snapshot.devices) {
    out.push_back(replay(d, snapshot.sites, profile));
    add_notes(d, out.back(), profile);
  }
  if (!snapshot.alloc_conf.empty())
    profile.notes.push_back(fmt::format("memory snapshot: PYTORCH_CUDA_ALLOC_CONF={}", snapshot.alloc_conf));
  std::stable_sort(profile.memory_samples.begin(), profile.memory_samples.end(),
                   [](const MemorySample& a, const MemorySample& b) { return a.time < b.time; });
  return out;
}

}  // namespace perfgate::snapshot
