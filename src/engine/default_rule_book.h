// The shipped default rule book encoded at build time (tools/snapshot_rules.cpp writes its
// definition into a library of its own that only the program links), handed to
// use_default_rule_book_snapshot() (engine/rule_book.h) by main().
#pragma once

#include <string_view>

namespace perfgate {

std::string_view default_rule_book_snapshot();

}  // namespace perfgate
