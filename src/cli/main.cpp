// perfgate: turns deep-learning training profiles into metrics, reports and a CI verdict.
// Exit codes: 0 pass, 1 gate failed, 2 usage or configuration error, 3 input or output error,
// 4 inputs refused as not one whole run (common/errors.h).
#include <malloc.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <memory>
#include <string>

#include <fmt/format.h>

#include "cli/commands.h"
#include "cli/request_flags.h"
#include "cli/usage_hint.h"
#include "common/error_report.h"
#include "common/errors.h"
#include "common/version.h"
#include "engine/default_rule_book.h"
#include "engine/rule_book.h"
#include "render/escape.h"

namespace {

// What the command printed must have reached its reader: a listing cut short by a full disk or a
// closed pipe is an output error (exit 3), not a success.
int flush_standard_output(int code) {
  std::cout.flush();
  errno = 0;
  bool flushed = std::fflush(stdout) == 0;
  int err = errno;
  if (flushed && !std::ferror(stdout) && std::cout.good()) return code;
  // errno is the flush's: an earlier failed write left only the stream's error flag.
  std::cerr << "perfgate: cannot write to standard output, so what it shows is incomplete"
            << (err ? std::string(": ") + std::strerror(err) : std::string()) << '\n';
  return perfgate::kExitInput;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace perfgate;
#if !defined(PERFGATE_MIMALLOC)  // mimalloc's large blocks: src/cli/spill_new.cpp
  // A fixed threshold: large blocks (event arrays, interval lists) are mapped and go back to the
  // system when freed. glibc's default raises the threshold after the first such free, after
  // which freed analysis buffers stay resident and add to the peak.
  mallopt(M_MMAP_THRESHOLD, 1024 * 1024);
  // Setting that threshold leaves the trim threshold at 128 KiB: the heap's top was handed back and
  // faulted in again between the analysis's stages (6,126 page faults on ResNet-50's 35 MB .json,
  // 133,045 on its x20). Kept up to 2 MiB: 3,473 and 89,001, 4-6% less time, about 1 MB more peak
  // RSS (8 MiB saved no more faults and held more; issue 58).
  mallopt(M_TRIM_THRESHOLD, 2 * 1024 * 1024);
#endif
  use_default_rule_book_snapshot(default_rule_book_snapshot());
  auto command_line = std::make_shared<CLI::App>(
      "perfgate: headless report generator and CI gate for deep-learning training profiles");
  cli::keep_until_exit(command_line);
  CLI::App& app = *command_line;
  app.set_version_flag("--version", std::string("perfgate ") + kVersion);
  app.require_subcommand(1);
  app.footer(
      "Exit codes: 0 pass, 1 gate failed, 2 usage or rule-file error, 3 input or output error, 4 inputs\n"
      "refused as not one whole run (ranks missing or twice, parts of other runs, profiles not one "
      "capture).\n"
      "Run 'perfgate COMMAND --help' for a command's options.");
  auto analyze = cli::add_analyze_command(app);
  auto merge = cli::add_merge_command(app);
  auto metrics = cli::add_metrics_command(app);
  auto events = cli::add_events_command(app);
  auto rules = cli::add_rules_command(app);
  auto history = cli::add_history_command(app);
  auto mcp = cli::add_mcp_command(app);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // A value an option refused is CLI11's own message ("--skip-first: 'x' is not a whole number"):
    // the words it left unparsed behind it (the `--` before the paths) are no unknown option.
    bool refused_value = dynamic_cast<const CLI::ValidationError*>(&e) != nullptr ||
                         dynamic_cast<const CLI::ConversionError*>(&e) != nullptr;
    if (std::string hint = e.get_exit_code() == 0 || refused_value ? "" : cli::usage_hint(app);
        !hint.empty()) {
      std::cerr << log_text(hint);
      return kExitUsage;
    }
    int code = app.exit(e);
    return flush_standard_output(code == 0 ? kExitPass : kExitUsage);
  }
  try {
    int code = kExitUsage;
    if (app.got_subcommand("analyze")) code = analyze();
    if (app.got_subcommand("merge")) code = merge();
    if (app.got_subcommand("metrics")) code = metrics();
    if (app.got_subcommand("events")) code = events();
    if (app.got_subcommand("rules")) code = rules();
    if (app.got_subcommand("history")) code = history();
    if (app.got_subcommand("mcp")) code = mcp();
    return flush_standard_output(code);
  } catch (const std::exception& e) {
    ErrorReport error = error_report(e, cli::flag_of);
    std::cerr << "perfgate: " << log_text(error.message) << '\n';
    return error.exit_code;
  }
  return kExitUsage;
}
