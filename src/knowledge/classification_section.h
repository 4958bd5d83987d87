// The sections of a rule file that hold the classification (perfgate/classification.h):
// `classification:`, `attribution:`, `gpu_peaks:`, `op_models:`, `aten_ops:`, `fused_patterns:`,
// `gpu_architectures:`, `memory_categories:`, `compute:`, `advice:` and `critical_path:`. The rule file's
// format (what a file extends, its `rules:`) is the gate's (src/gate/rule_file.cpp).
#pragma once

#include "knowledge/yaml_check.h"
#include "perfgate/classification.h"

namespace perfgate {

// Reads each of those sections that `root` (a rule file's mapping) has into `out`, on top of what
// it holds (a list's `add:` entries go first, its `patterns:` replace it), with `check`'s errors.
void read_classification_sections(YamlCheck& check, const YAML::Node& root, Classification& out);

}  // namespace perfgate
