#include "baseline/memory_site_deltas.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>

namespace perfgate {
namespace {

// A change smaller than this (bytes, or this share of the baseline's) is "unchanged": the
// allocator rounds blocks to 512 bytes and 2 MiB segments.
constexpr double kNoiseBytes = 1024.0 * 1024.0;
constexpr double kNoiseShare = 0.01;

struct SitePair {
  std::string site;
  std::optional<double> before, after;
  double delta() const { return after.value_or(0) - before.value_or(0); }
};

std::string change_of(const SitePair& p) {
  if (!p.before) return "new";
  if (!p.after) return "gone";
  if (std::fabs(p.delta()) < std::max(kNoiseBytes, kNoiseShare * *p.before)) return "unchanged";
  return p.delta() > 0 ? "regression" : "improvement";
}

ReportCell cell(std::optional<double> v) {
  return v ? ReportCell{*v} : ReportCell{};
}

// The rows' cells: site, change, the bytes in the baseline, now, and the change.
static_assert(table_column_names(Table::MemorySiteDeltas).size() == 5);

}  // namespace

ReportTable memory_site_deltas(const std::vector<BaselineSite>& before,
                               const std::vector<BaselineSite>& after) {
  std::map<std::string, SitePair> by_site;
  for (const BaselineSite& s : before) by_site[s.site].before = s.bytes;
  for (const BaselineSite& s : after) by_site[s.site].after = s.bytes;
  std::vector<SitePair> pairs;
  for (auto& [site, p] : by_site) {
    p.site = site;
    pairs.push_back(std::move(p));
  }
  std::stable_sort(pairs.begin(), pairs.end(),
                   [](const SitePair& a, const SitePair& b) { return a.delta() > b.delta(); });
  ReportTable t = declared_table(Table::MemorySiteDeltas);
  for (const SitePair& p : pairs)
    t.rows.push_back({p.site, change_of(p), cell(p.before), cell(p.after), p.delta()});
  return t;
}

}  // namespace perfgate
