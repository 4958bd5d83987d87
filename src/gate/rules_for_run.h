// The rules that apply to a run, by device family (SPEC 2, "device family"): a rule that cannot
// apply to the run's profiles is neither evaluated, listed nor counted in any output.
#pragma once

#include "common/device_family.h"
#include "gate/rules.h"
#include "report_model/report.h"

namespace perfgate {

// Whether `rule` applies to a run of profiles of the `run` families: where the rule declares no
// family, where the run's families are not known (a report built by hand), or where the run has a
// profile of one of the rule's families.
bool rule_applies(const Rule& rule, const DeviceFamilies& run);
// Whether `rule` is about a framework the capture ran: where the rule names none, where the capture's
// frameworks are unknown, or where they include one of the rule's.
bool rule_fits_frameworks(const Rule& rule, const std::vector<CaptureFramework>& capture);
// The rules of `rules` that apply to the run of `report`: by device family and by framework.
RuleSet rules_for_run(const RuleSet& rules, const ReportModel& report);

}  // namespace perfgate
