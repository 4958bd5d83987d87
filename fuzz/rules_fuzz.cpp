// libFuzzer harness: bytes as a rule file (YAML) applied on top of the shipped default set by
// load_rule_book, then written back as the effective rule set. ConfigError (and InputError for an
// unreadable file) are the documented outcomes; anything else is a bug.
#include <cstdint>

#include "common/errors.h"
#include "engine/rule_book.h"
#include "fuzz/fuzz_file.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string path = perfgate::fuzz::write_input(data, size, ".yaml");
  try {
    perfgate::RuleBook book = perfgate::load_rule_book({path});
    (void)perfgate::effective_rules_yaml(book.knowledge, book.rules);
  } catch (const perfgate::ConfigError&) {
  } catch (const perfgate::InputError&) {
  }
  return 0;
}
