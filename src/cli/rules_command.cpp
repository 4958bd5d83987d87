// perfgate rules check|list|print: validate rule files, and show the rules in effect.
#include <iostream>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cli/commands.h"
#include "common/errors.h"
#include "engine/rule_book.h"
#include "gate/rules.h"
#include "render/escape.h"

namespace perfgate::cli {
namespace {

// The runs an entry is worded for, beside its condition: " (formats: xplane; vendors: amd)".
std::string run_conditions(const Rule::ConditionalText& c) {
  std::vector<std::string> parts;
  if (!c.formats.empty()) parts.push_back(fmt::format("formats: {}", fmt::join(c.formats, ", ")));
  if (!c.vendors.empty()) parts.push_back(fmt::format("vendors: {}", fmt::join(c.vendors, ", ")));
  if (!c.workload.empty()) parts.push_back(fmt::format("workload: {}", c.workload));
  if (!c.devices.empty()) parts.push_back(fmt::format("devices: {}", fmt::join(c.devices, ", ")));
  if (!c.frameworks.empty()) parts.push_back(fmt::format("frameworks: {}", fmt::join(c.frameworks, ", ")));
  if (!c.workloads.empty()) parts.push_back(fmt::format("workloads: {}", fmt::join(c.workloads, ", ")));
  if (!c.phases.empty()) parts.push_back(fmt::format("phases: {}", fmt::join(c.phases, ", ")));
  if (!c.claims.empty()) parts.push_back(fmt::format("claims: {}", c.claims));
  if (!c.docs.empty()) parts.push_back(fmt::format("docs: <{}>", c.docs));
  return parts.empty() ? "" : fmt::format(" ({})", fmt::join(parts, "; "));
}

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

// One section per rule, for docs/rules.md.
void print_markdown(const RuleSet& set) {
  for (const Rule& r : set.rules) {
    std::string what = !r.metric.empty() ? fmt::format("`{}`", r.metric) : fmt::format("`{}`", r.value);
    std::cout << fmt::format("### `{}`: {}\n\n", r.id, r.title);
    std::cout << fmt::format("- **Reads** {}{}; **fires** {}{}\n", r.condition.empty() ? what : "",
                             r.condition.empty() ? "" : fmt::format("`{}`", r.condition),
                             r.condition.empty() ? rule_limits_text(r) : "when the condition holds",
                             r.applies_if.empty() ? "" : fmt::format("; applies when `{}`", r.applies_if));
    if (!r.problem.empty()) std::cout << fmt::format("- **Problem** (as reported): {}\n", r.problem);
    if (!r.source.empty()) std::cout << fmt::format("- **Source**: {}\n", r.source);
    // Conditional advice in its order: the first whose condition holds is the one reported.
    for (const auto& c : r.recommendations)
      std::cout << fmt::format("- **Recommendation**{}{}: {}\n",
                               c.when.empty() ? "" : fmt::format(" when `{}`", c.when), run_conditions(c),
                               c.text);
    if (!r.recommendation.empty())
      std::cout << fmt::format("- **Recommendation**{}: {}\n", r.recommendations.empty() ? "" : " otherwise",
                               r.recommendation);
    if (!r.claims.empty())
      std::cout << fmt::format(
          "- **Claims** the GPUs' idle time for `{}` (How findings defer to each other)\n", r.claims);
    if (!r.see.empty()) std::cout << fmt::format("- **See**: `{}`\n", fmt::join(r.see, "`, `"));
    if (!r.gain.empty())
      std::cout << fmt::format(
          "- **Estimated gain**: `{}` % of the step time{}{}\n", r.gain,
          r.saves.empty() ? "" : fmt::format(", at most `{}`", r.saves),
          r.on_path.empty() ? ""
                            : fmt::format(" and at most its time on the critical path, `{}`", r.on_path));
    if (!r.pass_needs.empty())
      std::cout << fmt::format("- **Passes only when** `{}` (else n/a)\n", r.pass_needs);
    if (!r.docs.empty()) std::cout << fmt::format("- **More**: <{}>\n", r.docs);
    std::cout << '\n';
  }
}

int list(const RulesArgs& a) {
  RuleSet set = load_rule_book(a.files, a.settings, a.disabled).rules;
  if (a.format == "markdown") {
    print_markdown(set);
    return kExitPass;
  }
  for (const Rule& r : set.rules)
    std::cout << fmt::format("{:<34} {:<8} {:<36} {}\n", r.id, r.enabled ? "" : "disabled",
                             r.metric.empty() ? (r.value.empty() ? "(condition)" : r.value) : r.metric,
                             rule_limits_text(r));
  return kExitPass;
}

int print(const RulesArgs& a) {
  RuleBook book = load_rule_book(a.files, a.settings, a.disabled);
  std::cout << effective_rules_yaml(book.knowledge, book.rules) << std::flush;
  return kExitPass;
}

}  // namespace

std::function<int()> add_rules_command(CLI::App& app) {
  auto args = std::make_shared<RulesArgs>();
  CLI::App* cmd = app.add_subcommand("rules", "Check rule files, list the rules, print the rules in effect");
  cmd->require_subcommand(1);
  CLI::App* check_cmd =
      cmd->add_subcommand("check", "Validate rule files: every problem, with file:line:col");
  check_cmd->add_option("files", args->files, "Rule files (YAML)")->required()->type_name("FILE");
  CLI::App* list_cmd = cmd->add_subcommand("list", "One line per rule: id, metric, thresholds");
  list_cmd->add_option("--format", args->format, "text or markdown (the documentation's form)")
      ->check(CLI::IsMember({"text", "markdown"}));
  CLI::App* print_cmd = cmd->add_subcommand("print", "The rules in effect as one YAML file (extends: none)");
  for (CLI::App* c : {list_cmd, print_cmd}) {
    c->add_option("--rules", args->files, "Rule file applied on top of the shipped 'default' set; repeatable")
        ->type_name("FILE");
    c->add_option("--set", args->settings, "Override a rule setting; repeatable")->type_name("ID.KEY=VALUE");
    c->add_option("--disable", args->disabled, "Disable a rule by id; repeatable")->type_name("ID");
  }
  return [args, check_cmd, list_cmd] {
    if (check_cmd->parsed()) return check(*args);
    if (list_cmd->parsed()) return list(*args);
    return print(*args);
  };
}

}  // namespace perfgate::cli
