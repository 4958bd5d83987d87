// perfgate merge PART...: the run's reports and gate from partial reports (analyze --partial).
#include <memory>

#include "cli/commands.h"
#include "cli/gate_run.h"
#include "common/errors.h"
#include "engine/engine.h"

namespace perfgate::cli {
namespace {

struct MergeArgs {
  std::vector<std::string> parts;
  GateArgs gate;
  bool allow_missing_ranks = false;
};

int run_merge(const MergeArgs& a) {
  if (a.parts.empty()) throw ConfigError("merge: give the partial reports (.pgp files, or folders of them)");
  const RequestSettings& settings = a.gate.settings;
  auto book =
      std::make_shared<const RuleBook>(load_rule_book(settings.rules, settings.set, settings.disable));
  RunRequest request = run_request(a.gate, RunInputKind::Partials, a.parts);
  request.allow_missing_ranks = a.allow_missing_ranks;
  MemoryBudget budget = request.limits.memory;
  apply_memory_budget(budget);
  int code = gate_and_write(a.gate, prepare_run(std::move(request), book));
  finish_memory_budget(a.gate, budget);
  return code;
}

}  // namespace

std::function<int()> add_merge_command(CLI::App& app) {
  auto args = std::make_shared<MergeArgs>();
  CLI::App* cmd = app.add_subcommand(
      "merge", "Merge partial reports (analyze --partial) into the run's reports and gate, as analyze would");
  add_options_when_parsed(*cmd, [args](CLI::App& c) {
    c.add_option("parts", args->parts, "Partial reports (.pgp), or folders of them")->type_name("PART");
    add_gate_options(c, args->gate, kShownByMerge);
    c.add_flag("--allow-missing-ranks", args->allow_missing_ranks,
               "Merge even when ranks of the world size have no partial report: every output then says "
               "which ranks are present");
  });
  return [args] { return run_merge(*args); };
}

}  // namespace perfgate::cli
