// A rule file's `capture:` section (docs/rules.md): the capture profile's fields set in place of what
// the analysis decided (devices, frameworks, workload, phases), for a capture whose trace cannot show
// them or shows them wrongly.
#pragma once

#include <yaml-cpp/yaml.h>

#include "common/capture_profile.h"
#include "rule_files/yaml_check.h"

namespace perfgate {

void read_capture_section(YamlCheck& check, const YAML::Node& node, CaptureOverride& out);

}  // namespace perfgate
