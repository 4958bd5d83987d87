// The shipped default rule set encoded at build time (tools/snapshot_rules.cpp writes its
// definition), handed to use_default_rules_snapshot() (perfgate/rules.h) by main().
#pragma once

#include <string_view>

namespace perfgate::cli {

std::string_view default_rules_snapshot();

}  // namespace perfgate::cli
