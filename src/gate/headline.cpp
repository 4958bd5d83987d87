#include "gate/headline.h"

#include <cctype>
#include <cmath>

#include <fmt/format.h>

#include "common/symbol_name.h"
#include "common/units.h"
#include "common/utf8.h"

namespace perfgate {
namespace {

// An offender's name keeps at least this many characters in a headline; a shorter room drops it.
constexpr std::size_t kMinOffenderChars = 24;

// The catalog's label as words inside a sentence: "Median step" -> "median step"; "GPU idle" and
// the names of a device's units ("Tensor Core efficiency", "Matrix Core ...") stay.
std::string in_sentence(std::string label) {
  if (label.starts_with("Tensor ") || label.starts_with("Matrix ")) return label;
  if (label.size() > 1 && std::isupper(static_cast<unsigned char>(label[0])) &&
      std::islower(static_cast<unsigned char>(label[1])))
    label[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(label[0])));
  return label;
}

// The change against the baseline in the value's unit: "+50.76 ms", "-14.8 pts".
std::string signed_change(double delta, const std::string& unit) {
  if (unit == "%") return fmt::format("{:+.1f} pts", delta);
  std::string size = format_value(std::fabs(delta), unit);
  return (delta < 0 ? "-" : "+") + size;
}

// How much: the metric's label and value, and the limit or the baseline's value.
std::string amount_text(const ReportFinding& f, const CaptureTerms& terms) {
  if (!f.value) return "";
  std::string label;
  if (std::optional<Metric> m = metric_id(f.metric))
    label = in_sentence(in_capture_terms(metric_info(*m).label, terms)) + " ";
  std::string value = label + format_value(f.value, f.unit);
  if (f.baseline) {
    // A baseline rule's limit is the first words of its text ("+5% vs the baseline (> 133.02 ms)").
    std::string_view limit = f.threshold_text;
    limit = limit.substr(0, limit.find(" vs the baseline"));
    return fmt::format("{} vs {} in the baseline ({}{}{})", value, format_value(f.baseline, f.unit),
                       signed_change(*f.value - *f.baseline, f.unit), limit.empty() ? "" : ", limit ", limit);
  }
  // A threshold's text; a rule written as an expression has none short enough to read here.
  if (f.threshold && !f.threshold_text.empty() && f.threshold_text.size() <= 24)
    return fmt::format("{} (limit {})", value, f.threshold_text);
  return value;
}

// The first sentence of the problem, for a rule without a value (an expression's finding).
std::string first_sentence(std::string_view text) {
  std::size_t end = text.find(". ");
  return std::string(end == std::string_view::npos ? text : text.substr(0, end));
}

std::string compose(const std::string& head, const std::string& offender, const std::string& gain) {
  std::string line = head;
  if (!offender.empty()) line += "; top: " + offender;
  if (!gain.empty()) line += " · " + gain;
  return line;
}

}  // namespace

void set_headline(ReportFinding& f, const CaptureTerms& terms, bool has_steps) {
  f.headline.clear();
  f.headline_whole.clear();
  if (f.status != FindingStatus::Fail && f.status != FindingStatus::Warn &&
      f.status != FindingStatus::Inconclusive)
    return;
  std::string amount = amount_text(f, terms), whole_amount = amount;
  if (amount.empty() && !f.problem.empty()) {
    whole_amount = first_sentence(f.problem);
    amount = short_symbols(whole_amount);
  }
  std::string head = amount.empty() ? f.title : f.title + ": " + amount;
  std::string whole_head = whole_amount.empty() ? f.title : f.title + ": " + whole_amount;
  std::string gain = f.gain_pct ? fmt::format("gain up to {} of the {}", format_pct(f.gain_pct),
                                              has_steps ? "step time" : "window")
                                : "";
  std::string whole_offender, name, value;
  if (!f.offenders.empty()) {
    const ReportOffender& o = f.offenders.front();
    value = o.value_text.empty() ? "" : " (" + o.value_text + ")";
    whole_offender = o.label + value;
    name = short_symbols(o.label);
  }
  // What does not fit goes: the offender's name is cut to its room (its value kept), or left out
  // where too little of it would be left; the gain stays.
  std::string line = compose(head, name.empty() ? "" : name + value, gain);
  if (code_points(line) > kHeadlineChars && !name.empty()) {
    std::size_t others = code_points(compose(head, "", gain)) + code_points("; top: ") + code_points(value);
    std::size_t room = others < kHeadlineChars ? kHeadlineChars - others : 0;
    line = compose(head, room >= kMinOffenderChars ? cut_to_code_points(name, room) + value : "", gain);
  }
  f.headline = cut_to_code_points(line, kHeadlineChars);
  std::string whole = compose(whole_head, whole_offender, gain);
  if (whole != f.headline) f.headline_whole = std::move(whole);
}

}  // namespace perfgate
