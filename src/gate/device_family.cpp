#include "gate/device_family.h"

#include <string_view>

#include "gate/expression.h"

namespace perfgate {
namespace {

struct Reads {
  bool neuron = false;  // a neuron.* metric
  bool other = false;   // any other metric
};

void add_name(std::string_view name, Reads& reads) {
  for (std::string_view prefix : {"baseline.", "delta.", "ratio."})
    if (name.starts_with(prefix)) name.remove_prefix(prefix.size());
  (name.starts_with("neuron.") ? reads.neuron : reads.other) = true;
}

// The metrics the rule's value and conditions read (not gain, saves or pass_needs: they qualify a
// finding, they do not say what it is about).
Reads reads_of(const Rule& r) {
  Reads reads;
  if (!r.metric.empty()) add_name(r.metric, reads);
  for (const std::string* text : {&r.value, &r.condition, &r.applies_if}) {
    if (text->empty()) continue;
    try {
      Expression expression(*text);  // kept: variables() refers into it
      for (const std::string& name : expression.variables()) add_name(name, reads);
    } catch (const std::invalid_argument&) {
      // Checked when the rule file was read; an expression that does not parse reads nothing.
    }
  }
  return reads;
}

}  // namespace

RuleSet rules_for_run(const RuleSet& rules, const ReportModel& report) {
  DeviceFamily family = device_family(report);
  if (family == DeviceFamily::Mixed) return rules;
  bool all_neuron = family == DeviceFamily::Neuron;
  bool no_neuron = family == DeviceFamily::Trace;
  RuleSet out;
  out.classification = rules.classification;
  out.sources = rules.sources;
  for (const Rule& r : rules.rules) {
    Reads reads = reads_of(r);
    bool neuron_only = reads.neuron && !reads.other;
    bool other_only = reads.other && !reads.neuron;
    if ((all_neuron && other_only) || (no_neuron && neuron_only)) continue;
    out.rules.push_back(r);
  }
  return out;
}

}  // namespace perfgate
