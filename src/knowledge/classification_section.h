// The sections of a rule file that hold the classification (knowledge/classification.h):
// `classification:`, `attribution:`, `gpu_peaks:`, `op_models:`, `aten_ops:`, `fused_patterns:`,
// `gpu_architectures:`, `memory_categories:`, `compute:` and `critical_path:` (its max_kernel_gap_us;
// min_coverage_pct is the gate's). The rule files' format is rule_files/rule_files.h; `rules:` and
// `advice:` are the gate's (gate/rule_sections.h).
#pragma once

#include "knowledge/classification.h"
#include "rule_files/yaml_check.h"

namespace perfgate {

// Reads each of those sections that `root` (a rule file's mapping) has into `out`, on top of what
// it holds (a list's `add:` entries go first, its `patterns:` replace it), with `check`'s errors.
void read_classification_sections(YamlCheck& check, const YAML::Node& root, Classification& out);

}  // namespace perfgate
