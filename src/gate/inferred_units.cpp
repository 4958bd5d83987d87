#include "gate/inferred_units.h"

#include <algorithm>
#include <charconv>
#include <set>
#include <string_view>
#include <system_error>

#include <fmt/format.h>

namespace perfgate {
namespace {

// How the step detection names a step made of an inferred unit: "X (inferred #6)".
constexpr std::string_view kInferredStep = " (inferred #";

// A step made of an inferred unit: "X (inferred #6)", the unit named X at position 6 of its worker's
// units.
struct StepUnit {
  std::string_view name;
  std::size_t position = 0;
};

// The unit a step was made of, or none for a step of another kind.
std::optional<StepUnit> unit_of_step(std::string_view step) {
  std::size_t at = step.rfind(kInferredStep);
  if (at == std::string_view::npos || !step.ends_with(')')) return std::nullopt;
  std::string_view digits = step.substr(at + kInferredStep.size());
  digits.remove_suffix(1);
  StepUnit unit{step.substr(0, at)};
  auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), unit.position);
  if (digits.empty() || error != std::errc() || end != digits.data() + digits.size()) return std::nullopt;
  return unit;
}

// "X (2)", a repeat of the unit X.
bool is_repeat_of(std::string_view identity, std::string_view name) {
  return identity.size() > name.size() + 3 && identity.starts_with(name) &&
         identity.substr(name.size()).starts_with(" (") && identity.ends_with(')');
}

// The identity among `identities` (the run's units, in its first worker's order) of the unit a
// step was made of: the one at its position where that is a unit of its name, else its name where
// no other unit repeats it; none where a repeated name's position does not tell which.
std::optional<std::string> identity_of(const StepUnit& unit, const std::vector<std::string>& identities) {
  if (unit.position < identities.size()) {
    const std::string& there = identities[unit.position];
    if (there == unit.name || is_repeat_of(there, unit.name)) return there;
  }
  bool named = false;
  for (const std::string& identity : identities) {
    if (is_repeat_of(identity, unit.name)) return std::nullopt;
    named = named || identity == unit.name;
  }
  return named ? std::optional<std::string>(unit.name) : std::nullopt;
}

bool names_units(const ReportInferredIterations& i) {
  return !i.unit_names.empty() && i.unit_names.size() == i.units_us.size();
}

}  // namespace

std::string matched_units_text(const MatchedUnits& m) {
  if (!m.by_identity)
    return fmt::format(
        "{} units in the baseline, {} in this run, unmatched: a report of a perfgate before "
        "perfgate-report/2.3 names no units",
        m.baseline_units, m.current_units);
  std::string out = fmt::format("{} of {} units in the baseline and {} in this run matched by name",
                                m.names.size(), m.baseline_units, m.current_units);
  if (!m.names.empty())
    out += m.names.size() == 1 ? fmt::format(", '{}'", m.names.front())
                               : fmt::format(", '{}' to '{}'", m.names.front(), m.names.back());
  if (m.names.size() < std::max(m.baseline_units, m.current_units))
    out += "; the units without a match are set aside on both sides";
  return out;
}

std::optional<ReportInferredIterations> units_of_inferred_steps(const ReportModel& run,
                                                                const Baseline& baseline) {
  const std::optional<ReportInferredIterations>& now = run.inferred_iterations;
  const std::optional<ReportInferredIterations>& base = baseline.inferred_iterations;
  if (!now || !now->steps || !names_units(*now) || !base || base->family != now->family ||
      base->kind != now->kind)
    return std::nullopt;
  const std::vector<ReportInferredIterations>& pooled = baseline.inferred_runs;
  if (pooled.empty() ? !names_units(*base) : !std::all_of(pooled.begin(), pooled.end(), names_units))
    return std::nullopt;
  // The window's steps, each by the identity of the unit it was made of.
  std::set<std::string> in_window;
  for (const ReportStep& s : run.steps) {
    std::optional<StepUnit> unit = unit_of_step(s.name);
    if (!unit) return std::nullopt;
    if (!s.in_window) continue;
    if (std::optional<std::string> identity = identity_of(*unit, now->unit_names))
      in_window.insert(*identity);
  }
  ReportInferredIterations units = *now;
  units.units_us.clear();
  units.unit_names.clear();
  units.unit_work.clear();
  bool with_work = now->unit_work.size() == now->unit_names.size();
  for (std::size_t i = 0; i < now->unit_names.size(); ++i)
    if (in_window.count(now->unit_names[i])) {
      units.unit_names.push_back(now->unit_names[i]);
      units.units_us.push_back(now->units_us[i]);
      if (with_work) units.unit_work.push_back(now->unit_work[i]);
    }
  if (units.units_us.empty()) return std::nullopt;
  return units;
}

}  // namespace perfgate
