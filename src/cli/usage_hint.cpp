#include "cli/usage_hint.h"

#include <fmt/format.h>

#include "common/suggest.h"

namespace perfgate::cli {
namespace {

// The deepest command the parse reached that holds arguments it could not place (CLI11 keeps them
// with the command being parsed: `perfgate --x analyze T` at the top, `analyze --x T` in analyze).
const CLI::App* reached(const CLI::App& app) {
  std::vector<const CLI::App*> chain{&app};
  while (!chain.back()->get_subcommands().empty()) chain.push_back(chain.back()->get_subcommands().front());
  for (auto it = chain.rbegin(); it != chain.rend(); ++it)
    if (!(*it)->remaining().empty()) return *it;
  return chain.back();
}

// "perfgate history", for messages: the program's name, not argv[0].
std::string command_path(const CLI::App* command) {
  std::string path;
  for (; command->get_parent(); command = command->get_parent()) path = " " + command->get_name() + path;
  return "perfgate" + path;
}

// The commands under `command`; with `aliases`, their other names too ("analyse").
std::vector<std::string> command_names(const CLI::App* command, bool aliases) {
  std::vector<std::string> names;
  for (const CLI::App* sub : command->get_subcommands([](const CLI::App*) { return true; })) {
    names.push_back(sub->get_name());
    if (aliases)
      for (const std::string& alias : sub->get_aliases()) names.push_back(alias);
  }
  return names;
}

std::vector<std::string> option_names(const CLI::App* command) {
  std::vector<std::string> names;
  for (const CLI::Option* option : command->get_options()) {
    for (const std::string& name : option->get_lnames()) names.push_back("--" + name);
    for (const std::string& name : option->get_snames()) names.push_back("-" + name);
  }
  return names;
}

std::string nearest(const std::string& word, const std::vector<std::string>& names) {
  std::vector<std::string_view> views(names.begin(), names.end());
  return did_you_mean(word, views);
}

}  // namespace

std::string usage_hint(const CLI::App& app) {
  const CLI::App* command = reached(app);
  std::vector<std::string> rest = command->remaining();
  if (rest.empty()) return "";
  std::string word = rest.front();
  std::string where = command_path(command);
  std::vector<std::string> commands = command_names(command, false);
  std::string line;
  if (word.starts_with("-")) {
    word = word.substr(0, word.find('='));  // --json=out.json
    line = fmt::format("{}: unknown option '{}'{}", where, word, nearest(word, option_names(command)));
  } else if (!commands.empty()) {
    std::string suggestion = nearest(word, command_names(command, true));
    line = fmt::format("{}: unknown command '{}'{}", where, word, suggestion);
    if (suggestion.empty()) line += fmt::format(" (commands: {})", fmt::join(commands, ", "));
  } else {
    return "";
  }
  std::string help = command->get_parent() == nullptr ? "the commands"
                     : commands.empty()               ? "its options"
                                                      : "its commands";
  return fmt::format("{}\nRun '{} --help' for {}.\n", line, where, help);
}

}  // namespace perfgate::cli
