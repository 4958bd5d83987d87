#include <memory>
#include <vector>

#include "cli/commands.h"

namespace perfgate::cli {

void keep_until_exit(std::shared_ptr<const void> object) {
  // Reachable from a static to the end, so that LeakSanitizer does not count it as a leak.
  static auto* const kept = new std::vector<std::shared_ptr<const void>>;
  kept->push_back(std::move(object));
}

}  // namespace perfgate::cli
