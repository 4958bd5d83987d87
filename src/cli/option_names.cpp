#include <string>
#include <unordered_set>

#include "cli/commands.h"

namespace perfgate::cli {

std::vector<CLI::Option_p>& options_of(CLI::App& command) {
  // CLI::App keeps its options in a protected vector: a pointer to that member, named through a class
  // derived from App, reaches it in any App.
  struct Access : CLI::App {
    static std::vector<CLI::Option_p> CLI::App::*member() { return &Access::options_; }
  };
  return command.*Access::member();
}

void check_option_names(const CLI::App& command) {
  std::unordered_set<std::string> names;
  for (const CLI::Option* option : command.get_options()) {
    for (const std::string& name : option->get_lnames())
      if (!names.insert("--" + name).second) throw CLI::OptionAlreadyAdded("--" + name);
    for (const std::string& name : option->get_snames())
      if (!names.insert("-" + name).second) throw CLI::OptionAlreadyAdded("-" + name);
  }
}

}  // namespace perfgate::cli
