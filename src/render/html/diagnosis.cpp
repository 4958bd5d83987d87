#include "render/html/diagnosis.h"

#include <algorithm>

#include <fmt/format.h>

#include "common/units.h"
#include "render/format.h"

namespace perfgate {
namespace {

// Findings in the first screen; the rest are one link away.
constexpr std::size_t kDiagnosisFindings = 3;

bool fired(const ReportFinding& f) {
  return f.status == FindingStatus::Fail || f.status == FindingStatus::Warn ||
         f.status == FindingStatus::Inconclusive;
}

// The first sentence: the problem's says what is wrong and of what its number is a share, the
// recommendation's what to do first.
std::string first_sentence(const std::string& text) {
  std::size_t end = text.find(". ");
  return end == std::string::npos ? text : text.substr(0, end + 1);
}

}  // namespace

std::vector<const ReportFinding*> findings_by_importance(const ReportModel& r) {
  std::vector<const ReportFinding*> out;
  for (const ReportFinding& f : r.findings)
    if (fired(f)) out.push_back(&f);
  std::stable_sort(out.begin(), out.end(), [](const ReportFinding* a, const ReportFinding* b) {
    // On a baseline run what the change did comes first: findings the baseline had too come after.
    if (a->in_baseline != b->in_baseline) return b->in_baseline;
    if (finding_rank(a->status) != finding_rank(b->status))
      return finding_rank(a->status) < finding_rank(b->status);
    return a->gain_pct.value_or(-1) > b->gain_pct.value_or(-1);
  });
  return out;
}

// The findings of the first screen: the most important first, each time a cause can save once.
// Findings whose gains are bounded by the same time (`saves`: the GPU idle time, ...) claim the same
// time: the first takes the place, the others are named in it.
struct DiagnosisSlot {
  const ReportFinding* finding;
  std::vector<const ReportFinding*> same_time;
};

std::vector<DiagnosisSlot> diagnosis_slots(const std::vector<const ReportFinding*>& ranked) {
  std::vector<DiagnosisSlot> slots;
  for (const ReportFinding* f : ranked) {
    auto same = std::find_if(slots.begin(), slots.end(), [&](const DiagnosisSlot& s) {
      return !f->saves.empty() && s.finding->saves == f->saves;
    });
    if (same != slots.end())
      same->same_time.push_back(f);
    else if (slots.size() < kDiagnosisFindings)
      slots.push_back({f, {}});
  }
  return slots;
}

std::string same_time_text(const std::vector<const ReportFinding*>& findings) {
  std::string out;
  for (const ReportFinding* f : findings) out += (out.empty() ? "" : "; ") + f->title;
  return out;
}

// On a baseline run, what the change did, before any advice: the regressions the gate found and the
// largest change each way ("Regressions: GPU utilization dropped. Slower: ncclDevKernel_SendRecv
// (kernel) +8.34 ms, 66 → 62 calls. Faster: flash_fwd_kernel (kernel) -31.56 ms, 68 → 60 calls.").
std::string what_the_change_did(const ReportModel& r) {
  if (!r.baseline) return "";
  std::string regressions;
  for (const ReportFinding& f : r.findings)
    if ((f.status == FindingStatus::Fail || f.status == FindingStatus::Warn) && f.baseline)
      regressions += (regressions.empty() ? "" : "; ") + f.title;
  std::string out = regressions.empty() ? "" : "Regressions: " + regressions + ".";
  for (const char* direction : {"slower", "faster"})
    if (std::string change = largest_change_text(r, direction); !change.empty())
      out += fmt::format("{}{}: {}.", out.empty() ? "" : " ",
                         direction == std::string_view("slower") ? "Slower" : "Faster", change);
  return out;
}

void add_diagnosis(const ReportModel& r, TemplateData& view) {
  // Only the findings whose gain reaches rules: advice.fix_first_min_gain_pct; the rest stay in
  // the findings list.
  std::vector<const ReportFinding*> ranked = findings_by_importance(r);
  std::size_t fired = ranked.size();
  std::erase_if(ranked, [](const ReportFinding* f) { return !f->fix_first; });
  std::string changed = what_the_change_did(r);
  if (ranked.empty() && changed.empty()) return;
  TemplateData items = template_list();
  std::size_t with_gain = 0, listed = 0;
  for (const DiagnosisSlot& slot : diagnosis_slots(ranked)) {
    const ReportFinding& f = *slot.finding;
    listed += 1 + slot.same_time.size();
    TemplateData item;
    item.set("id", f.id);
    item.set("status", std::string(f.status == FindingStatus::Fail   ? "fail"
                                   : f.status == FindingStatus::Warn ? "warn"
                                                                     : "inconclusive"));
    item.set("title", f.title);
    item.set("what", first_sentence(f.problem.empty() ? f.reason : f.problem));
    if (f.threshold) item.set("limit", f.threshold_text);
    if (!f.recommendation.empty()) item.set("fix", first_sentence(f.recommendation));
    if (f.gain_pct) {
      item.set("gain", format_pct(f.gain_pct));
      if (std::string path = gain_path_note(f); !path.empty()) item.set("gain_path", path);
      ++with_gain;
    }
    if (!slot.same_time.empty()) item.set("same_time", same_time_text(slot.same_time));
    item.set("in_baseline", f.in_baseline);
    items.push_back(item);
  }
  TemplateData d;
  if (!changed.empty()) d.set("changed", changed);
  d.set("items", items);
  d.set("overlap", with_gain > 1);
  if (fired > listed)
    d.set("more", fmt::format("{} more finding{} below", fired - listed, fired - listed > 1 ? "s" : ""));
  view.set("diagnosis", d);
}

}  // namespace perfgate
