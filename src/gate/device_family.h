// The device family of a run and of a rule (SPEC 2, "device family"): a rule that cannot apply to
// the run's family is neither evaluated, listed nor counted in any output.
#pragma once

#include "perfgate/report.h"
#include "perfgate/rules.h"

namespace perfgate {

// The rules of `rules` that can apply to the run of `report`: on a run of Neuron profiles alone,
// none that reads only other metrics (GPU, steps, host); on a run without a Neuron profile, none
// that reads only neuron.* metrics. A rule that reads both families' metrics, or none, applies to
// every run; so does every rule where the run mixes Neuron profiles and traces.
RuleSet rules_for_run(const RuleSet& rules, const ReportModel& report);

}  // namespace perfgate
