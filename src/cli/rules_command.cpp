// perfgate rules check|list|print: validate rule files, and show the rules in effect.
#include <iostream>
#include <memory>
#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cli/commands.h"
#include "common/errors.h"
#include "engine/front_end_support.h"
#include "engine/rule_book.h"
#include "render/escape.h"

namespace perfgate::cli {
namespace {

struct RulesArgs {
  std::string format = "text";
  std::vector<std::string> files;
  std::vector<std::string> settings;
  std::vector<std::string> disabled;
};

// Each file on its own (on top of what it extends); every problem of every file is printed.
int check(const RulesArgs& a) {
  int code = kExitPass;
  for (const std::string& file : a.files) {
    try {
      RuleSet set = load_rule_book({file}).rules;
      std::size_t enabled = 0;
      for (const Rule& r : set.rules) enabled += r.enabled;
      std::cout << fmt::format("{}: ok ({} rules, {} enabled; applies {})\n", file, set.rules.size(), enabled,
                               fmt::join(set.sources, " + "));
    } catch (const ConfigError& e) {
      std::cerr << log_text(e.what()) << '\n';
      code = kExitUsage;
    }
  }
  return code;
}

int list(const RulesArgs& a) {
  RuleBook book = load_rule_book(a.files, a.settings, a.disabled);
  std::cout << (a.format == "markdown" ? rules_markdown(book) : rules_table(book)) << std::flush;
  return kExitPass;
}

int print(const RulesArgs& a) {
  RuleBook book = load_rule_book(a.files, a.settings, a.disabled);
  std::cout << effective_rules_text(book) << std::flush;
  return kExitPass;
}

}  // namespace

std::function<int()> add_rules_command(CLI::App& app) {
  auto args = std::make_shared<RulesArgs>();
  CLI::App* cmd = app.add_subcommand("rules", "Check rule files, list the rules, print the rules in effect");
  cmd->require_subcommand(1);
  // The subcommands when the parse reaches `rules`, and each one's options when it reaches that one
  // (cli/commands.h): check and list, to tell which ran.
  auto made = std::make_shared<std::pair<CLI::App*, CLI::App*>>();
  add_options_when_parsed(*cmd, [args, made](CLI::App& rules) {
    CLI::App* check_cmd =
        rules.add_subcommand("check", "Validate rule files: every problem, with file:line:col");
    add_options_when_parsed(*check_cmd, [args](CLI::App& c) {
      c.add_option("files", args->files, "Rule files (YAML)")->required()->type_name("FILE");
    });
    CLI::App* list_cmd = rules.add_subcommand("list", "One line per rule: id, metric, thresholds");
    CLI::App* print_cmd =
        rules.add_subcommand("print", "The rules in effect as one YAML file (extends: none)");
    for (CLI::App* command : {list_cmd, print_cmd}) {
      add_options_when_parsed(*command, [args, list = command == list_cmd](CLI::App& c) {
        if (list)
          c.add_option("--format", args->format, "text or markdown (the documentation's form)")
              ->check(CLI::IsMember({"text", "markdown"}));
        c.add_option("--rules", args->files,
                     "Rule file applied on top of the shipped 'default' set; repeatable")
            ->type_name("FILE");
        c.add_option("--set", args->settings, "Override a rule setting; repeatable")
            ->type_name("ID.KEY=VALUE");
        c.add_option("--disable", args->disabled, "Disable a rule by id; repeatable")->type_name("ID");
      });
    }
    *made = {check_cmd, list_cmd};
  });
  return [args, made] {
    if (made->first->parsed()) return check(*args);
    if (made->second->parsed()) return list(*args);
    return print(*args);
  };
}

}  // namespace perfgate::cli
