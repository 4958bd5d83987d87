// The `classification:`, `attribution:`, `gpu_peaks:`, `op_models:`, `aten_ops:`, `fused_patterns:` and
// `gpu_architectures:` sections of a rule file.
#pragma once

#include "perfgate/analysis.h"
#include "rules/yaml_check.h"

namespace perfgate {

void read_classification(YamlCheck& check, const YAML::Node& node, Classification& out);
void read_attribution(YamlCheck& check, const YAML::Node& node, Classification& out);
void read_gpu_peaks(YamlCheck& check, const YAML::Node& node, Classification& out);
void read_op_models(YamlCheck& check, const YAML::Node& node, Classification& out);
void read_gpu_architectures(YamlCheck& check, const YAML::Node& node, Classification& out);
void read_aten_ops(YamlCheck& check, const YAML::Node& node, Classification& out);
void read_fused_patterns(YamlCheck& check, const YAML::Node& node, Classification& out);
void read_compute(YamlCheck& check, const YAML::Node& node, Classification& out);
void read_advice(YamlCheck& check, const YAML::Node& node, Classification& out);
void read_critical_path(YamlCheck& check, const YAML::Node& node, Classification& out);

}  // namespace perfgate
