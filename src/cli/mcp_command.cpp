// perfgate mcp: the Model Context Protocol server on stdio (docs/agents.md), the same engine as
// analyze behind tools for coding agents.
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <iostream>
#include <memory>

#include "cli/commands.h"
#include "cli/number_checks.h"
#include "cli/outputs.h"
#include "cli/request_flags.h"
#include "common/errors.h"
#include "engine/engine.h"
#include "engine/memory_budget.h"
#include "mcp/server.h"

namespace perfgate::cli {
namespace {

std::size_t read_fd(int fd, char* into, std::size_t size) {
  for (;;) {
    ssize_t got = ::read(fd, into, size);
    if (got >= 0) return static_cast<std::size_t>(got);
    if (errno != EINTR) return 0;  // a broken input ends the session like its end
  }
}

bool write_fd(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    ssize_t put = ::write(fd, bytes.data(), bytes.size());
    if (put < 0 && errno == EINTR) continue;
    if (put <= 0) return false;
    bytes.remove_prefix(static_cast<std::size_t>(put));
  }
  return true;
}

int run_mcp(mcp::McpOptions options) {
  // Analyses spill past the budget as analyze's do (each request carries it); the reports kept hold
  // at most half of it. A malformed limit is a usage error before serving.
  options.memory = memory_budget(MemoryBudgetArgs{options.run.max_memory, options.run.spill_dir});
  (void)max_input_memory_of(options.run.max_input_memory);
  apply_memory_budget(options.memory);
  mcp::Session session(options);  // a --root that is not a folder is a usage error before serving
  // The protocol owns standard output: it moves to a descriptor of its own, and descriptor 1 becomes
  // standard error, so that whatever else writes to stdout (a library, a stray print) cannot break a
  // message.
  std::cout.flush();
  int protocol = ::fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
  if (protocol < 0 || ::dup2(STDERR_FILENO, STDOUT_FILENO) < 0)
    throw OutputError("perfgate mcp: cannot set up standard output for the protocol");
  std::signal(SIGPIPE, SIG_IGN);  // a client gone is a failed write, not a signal
  mcp::Server server(session);
  mcp::LineReader reader([](char* into, std::size_t size) { return read_fd(STDIN_FILENO, into, size); },
                         options.max_message_bytes);
  std::cerr << "perfgate mcp: serving on stdio (roots: ";
  for (std::size_t i = 0; i < session.roots().folders().size(); ++i)
    std::cerr << (i ? ", " : "") << session.roots().folders()[i];
  std::cerr << (options.allow_write ? "; may record runs" : "; read-only") << ")\n";
  int code =
      mcp::serve(reader, server, [protocol](std::string_view bytes) { return write_fd(protocol, bytes); });
  ::close(protocol);
  return code;
}

}  // namespace

std::function<int()> add_mcp_command(CLI::App& app) {
  auto options = std::make_shared<mcp::McpOptions>();
  CLI::App* cmd = app.add_subcommand(
      "mcp",
      "Serve the Model Context Protocol on stdio for coding agents: tools analyze, compare, table, explain, "
      "metrics, trend, list_profiles and events, a discovery prompt, and each report as a resource");
  add_options_when_parsed(*cmd, [options](CLI::App& c) {
    c.add_option("--root", options->roots,
                 "A folder the server may read profiles, reports, rules and histories under (symbolic links "
                 "resolved; repeatable). Default: the working folder")
        ->type_name("DIR")
        ->check(non_empty_path);
    c.add_flag(
        "--allow-write", options->allow_write,
        "Let analyze record runs into a run history under the roots, and keep reports under "
        ".perfgate-cache/ in the first root, where a later server finds them by id (default: read-only)");
    c.add_option(
         "--max-message-bytes", options->max_message_bytes,
         "The largest request line read (default 4 MiB); a longer one is skipped as it streams in and "
         "answered with an error")
        ->type_name("N")
        ->check(whole_number(1024, std::int64_t{1} << 30));
    add_request_flags(c, options->run, kShownByMcpServer);
    c.footer(
        "The run options are every call's; the reports kept hold at most half of --max-memory, the oldest "
        "dropped first. Messages are JSON-RPC 2.0, one per line (the MCP stdio transport); logs go to "
        "stderr. Protocol "
        "revisions: "
        "2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05. Example (Claude Code): claude mcp add perfgate -- "
        "perfgate mcp --root .");
  });
  return [options] { return run_mcp(*options); };
}

}  // namespace perfgate::cli
