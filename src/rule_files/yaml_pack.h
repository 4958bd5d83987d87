// The shipped rule files as parsed trees, packed at build time (tools/pack_rules.cpp): yaml-cpp's
// scanner took 40 M of the 59 M instructions that loading the default rules cost on every run
// (4% of a ResNet-50 analysis, most of a small one); rebuilding the tree from its packed form
// takes a tenth of that.
//
// The packed form lists the nodes depth first: a kind ('~' null, '=' scalar, '[' sequence, '{'
// map), the tag, and the scalar text or the number of children (a map's keys and values
// alternate), each length-prefixed. It keeps every node, tag and order, and drops only the
// positions (Mark), which the shipped files never need: they pass every check
// (RuleFiles.ShippedFilesPassTheChecksOfUserFiles), so no message points into them.
#pragma once

#include <yaml-cpp/yaml.h>

#include <string>
#include <string_view>

namespace perfgate {

std::string pack_yaml(const YAML::Node& root);

// Throws std::runtime_error on a malformed form (only a build error could make one).
YAML::Node unpack_yaml(std::string_view packed);

// The packed tree of a shipped rule file by name ("default"); empty when there is none.
std::string_view packed_shipped_rules(std::string_view name);

}  // namespace perfgate
