// A memory snapshot's active-memory timeline (snapshot_analysis.h), as PyTorch's MemoryViz draws
// its "Active Memory Timeline" (torch/utils/viz/MemoryViz.js, process_alloc_data): each allocation
// a band over the states it is live in, stacked on those below it (what was allocated before the
// recording at the bottom, the others in the order they were allocated), a band sliding down when
// one below it is freed; the largest allocations drawn on their own and the others summed in one
// band on top. Its size is bounded: at most kColumns columns, each showing the state at its highest
// total (so the device's peak is drawn exactly), and kBands bands, so a trace of a million actions
// gives a chart of at most (kBands + 1) x kColumns rectangles.
#include <algorithm>
#include <map>

#include "analyse/memory/snapshot_analysis.h"
#include "analyse/worker_analysis.h"

namespace perfgate {
namespace {

constexpr std::uint64_t kNever = UINT64_MAX;

struct Element {
  std::uint64_t size = 0;
  std::uint64_t start = 0, end = kNever;  // live in the states [start, end)
  std::uint32_t site = 0;
  std::uint64_t order = 0;  // its place in the stack: lower is below
};

void add_to(std::int64_t& total, std::int64_t change) {
  if (__builtin_add_overflow(total, change, &total)) total = change > 0 ? INT64_MAX : INT64_MIN;
}

// Each allocation with the states it is live in, and for each action the allocation it makes or
// frees (SIZE_MAX: none). The live blocks entering the trace come first: those alive at the end at
// the bottom, then those the trace frees, the first freed on top (as MemoryViz stacks them).
std::vector<Element> elements_of(const SnapshotDevice& d, std::vector<std::size_t>& by_step) {
  std::vector<Element> out;
  std::map<std::uint64_t, std::size_t> live;
  for (const auto& [address, block] : d.entering_live) {
    live[address] = out.size();
    out.push_back({block.size, 0, kNever, block.site, 0});
  }
  by_step.assign(d.steps.size(), SIZE_MAX);
  for (std::size_t i = 0; i < d.steps.size(); ++i) {
    const SnapshotStep& s = d.steps[i];
    if (s.action == SnapshotAction::Alloc) {
      live[s.address] = out.size();
      by_step[i] = out.size();
      out.push_back({s.block, i + 1, kNever, s.site, 0});
    } else if (s.action == SnapshotAction::FreeCompleted) {
      auto at = live.find(s.address);
      if (at == live.end()) continue;  // not live: the trace and the final state disagree
      by_step[i] = at->second;
      out[at->second].end = i + 1;
      live.erase(at);
    }
  }
  std::size_t entering = d.entering_live.size();
  std::uint64_t states = d.steps.size() + 1;  // far below 2^62: each step is held in memory
  for (std::size_t e = 0; e < out.size(); ++e) {
    Element& el = out[e];
    if (e >= entering)
      el.order = (std::uint64_t{1} << 63) + el.start;  // above every entering block, by allocation
    else if (el.end == kNever)
      el.order = e;  // alive at the end: the bottom, by address
    else
      el.order = (std::uint64_t{1} << 62) + (states - el.end);  // the first freed on top
  }
  return out;
}

// Walks the states 0..N, calling at(k, total) with the bytes of the elements live in state k.
template <typename Live, typename At>
void walk(const std::vector<Element>& elements, const SnapshotDevice& d,
          const std::vector<std::size_t>& by_step, Live counts, At at) {
  std::int64_t total = 0;
  for (const Element& e : elements)
    if (e.start == 0 && counts(e)) add_to(total, static_cast<std::int64_t>(e.size));
  at(0, total);
  for (std::size_t i = 0; i < d.steps.size(); ++i) {
    if (by_step[i] != SIZE_MAX && counts(elements[by_step[i]])) {
      auto size = static_cast<std::int64_t>(elements[by_step[i]].size);
      add_to(total, d.steps[i].action == SnapshotAction::Alloc ? size : -size);
    }
    at(i + 1, total);
  }
}

// Extends band's last rectangle to `state`'s column when it sits where it did in the column before,
// else starts a new one.
void place(std::vector<SnapshotBandRow>& rows, SnapshotBandRow row, std::uint64_t previous_last) {
  if (!rows.empty() && rows.back().band == row.band && rows.back().last_state == previous_last &&
      rows.back().bottom == row.bottom && rows.back().size == row.size) {
    rows.back().last_state = row.last_state;
    return;
  }
  rows.push_back(std::move(row));
}

}  // namespace

std::vector<SnapshotBandRow> snapshot_timeline(const SnapshotDevice& d, const MemorySnapshot& snapshot) {
  std::vector<std::size_t> by_step;
  std::vector<Element> elements = elements_of(d, by_step);
  // The columns: equal runs of the states 0..N, each shown at its first highest total.
  std::uint64_t states = d.steps.size() + 1;
  std::uint64_t columns = std::min<std::uint64_t>(states, kTimelineColumns);
  std::vector<std::uint64_t> first(columns), shown(columns);
  std::vector<std::int64_t> best(columns, INT64_MIN);
  for (std::uint64_t c = 0; c < columns; ++c) first[c] = c * states / columns;
  std::uint64_t column = 0;
  walk(
      elements, d, by_step, [](const Element&) { return true; },
      [&](std::uint64_t k, std::int64_t total) {
        while (column + 1 < columns && k >= first[column + 1]) ++column;
        if (total > best[column]) best[column] = total, shown[column] = k;
      });
  // The bands: the largest allocations live in a shown state, largest first.
  auto live_in = [](const Element& e, std::uint64_t k) { return e.start <= k && k < e.end; };
  std::vector<std::size_t> visible;
  for (std::size_t e = 0; e < elements.size(); ++e) {
    auto at = std::lower_bound(shown.begin(), shown.end(), elements[e].start);
    if (at != shown.end() && *at < elements[e].end) visible.push_back(e);
  }
  std::stable_sort(visible.begin(), visible.end(),
                   [&](std::size_t a, std::size_t b) { return elements[a].size > elements[b].size; });
  if (visible.size() > kTimelineBands) visible.resize(kTimelineBands);
  std::vector<bool> drawn(elements.size(), false);
  for (std::size_t e : visible) drawn[e] = true;
  // The summed band: the others' bytes in each shown state.
  std::vector<std::int64_t> others(columns, 0);
  column = 0;
  walk(
      elements, d, by_step, [&](const Element& e) { return !drawn[&e - elements.data()]; },
      [&](std::uint64_t k, std::int64_t total) {
        while (column < columns && shown[column] == k) others[column++] = total;
      });
  // Each shown state's stack, bottom up.
  std::vector<std::size_t> stack = visible;
  std::sort(stack.begin(), stack.end(), [&](std::size_t a, std::size_t b) {
    return elements[a].order != elements[b].order ? elements[a].order < elements[b].order : a < b;
  });
  std::vector<std::vector<std::int64_t>> bottom(visible.size(), std::vector<std::int64_t>(columns, -1));
  std::vector<std::int64_t> drawn_total(columns, 0);
  std::vector<std::size_t> band_of(elements.size(), 0);
  for (std::size_t b = 0; b < visible.size(); ++b) band_of[visible[b]] = b;
  for (std::uint64_t c = 0; c < columns; ++c)
    for (std::size_t e : stack)
      if (live_in(elements[e], shown[c])) {
        bottom[band_of[e]][c] = drawn_total[c];
        add_to(drawn_total[c], static_cast<std::int64_t>(elements[e].size));
      }
  auto last_of = [&](std::uint64_t c) { return (c + 1 < columns ? first[c + 1] : states) - 1; };
  std::vector<SnapshotBandRow> rows;
  for (std::uint64_t c = 0; c < columns; ++c)
    if (others[c] > 0)
      place(rows,
            {d.device, 0, "(smaller allocations)", "", first[c], last_of(c), drawn_total[c],
             static_cast<std::uint64_t>(others[c])},
            c > 0 ? last_of(c - 1) : kNever);
  for (std::size_t b = 0; b < visible.size(); ++b) {
    const Element& e = elements[visible[b]];
    for (std::uint64_t c = 0; c < columns; ++c)
      if (bottom[b][c] >= 0)
        place(rows,
              {d.device, static_cast<std::uint32_t>(b + 1), snapshot.sites[e.site],
               snapshot.site_categories[e.site], first[c], last_of(c), bottom[b][c], e.size},
              c > 0 ? last_of(c - 1) : kNever);
  }
  return rows;
}

}  // namespace perfgate
