#include "engine/memory_budget.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <functional>
#include <memory>

#include <fmt/format.h>

#include "analyse/run/worker_hold.h"
#include "common/errors.h"
#include "io/io.h"
#include "io/spill_arena.h"

namespace perfgate {
namespace {

// Below this the budget would spill names and tables that cannot spill: refused as a mistake.
constexpr std::uint64_t kMinBudget = std::uint64_t{16} << 20;

std::string environment(const char* name) {
  const char* value = std::getenv(name);
  return value ? value : "";
}

std::uint64_t budget_bytes(const MemoryBudgetArgs& a) {
  bool from_option = !a.max_memory.empty();
  std::string text = from_option ? a.max_memory : environment("PERFGATE_MAX_MEMORY");
  if (text.empty()) return spill::available_memory_limit() / 2;
  std::optional<std::uint64_t> bytes = parse_byte_size(text);
  std::string why = !bytes ? "not a size (e.g. 2G or 512M; 0: no budget)"
                    : *bytes != 0 && *bytes < kMinBudget
                        ? "under 16 MiB, too little to hold a run's names and tables"
                        : "";
  if (why.empty()) return *bytes;
  if (!from_option) throw ConfigError(fmt::format("PERFGATE_MAX_MEMORY={}: {}", text, why));
  throw RequestError("max_memory", [text, why](const RequestError::FieldNames& name) {
    return fmt::format("{} {}: {}", name("max_memory"), text, why);
  });
}

// The spill folder is checked the same way wherever it comes from, when a budget is in effect:
// one that cannot take the file is a usage error before any work, not a warning when a block spills.
// `where`: the variable that named it; empty: the option (spill_dir).
std::string checked_folder(const std::string& where, const std::string& folder, bool budget) {
  std::error_code ec;
  if (!budget || (std::filesystem::is_directory(folder, ec) && ::access(folder.c_str(), W_OK | X_OK) == 0))
    return folder;
  if (!where.empty())
    throw ConfigError(fmt::format("{}{}: not a folder perfgate can write to", where, folder));
  throw RequestError("spill_dir", [folder](const RequestError::FieldNames& name) {
    return fmt::format("{} {}: not a folder perfgate can write to", name("spill_dir"), folder);
  });
}

std::string spill_folder(const MemoryBudgetArgs& a, bool budget) {
  if (!a.spill_dir.empty()) return checked_folder("", a.spill_dir, true);
  for (const char* name : {"PERFGATE_SPILL_DIR", "TMPDIR"})
    if (std::string value = environment(name); !value.empty())
      return checked_folder(std::string(name) + "=", value, budget);
  // Not /tmp: it is often a tmpfs, where a spilled block would still take memory.
  return "/var/tmp";
}

// What a run of many workers keeps of each until its report, packed into the spill file once the
// process is past a quarter of its budget (issue 78). The pack is the scope's own: one per run.
HoldScope held_in_spill_file() {
  auto pack = std::make_shared<spill::Pack>();
  return [pack](const std::function<void(bool packing)>& make) {
    spill::PackScope scope(*pack);
    make(spill::packing());
  };
}

}  // namespace

MemoryBudget memory_budget(const MemoryBudgetArgs& a) {
  std::uint64_t bytes = budget_bytes(a);
  bool stated = !a.max_memory.empty() || !environment("PERFGATE_MAX_MEMORY").empty();
  return {bytes, spill_folder(a, bytes != 0), stated};
}

void stop_if_unbounded(const MemoryBudget& budget) {
  if (budget.bytes == 0 || !budget.stated || !spill::failed()) return;
  throw OutputError(fmt::format(
      "over the --max-memory budget of {} but {}: the run was stopped rather than go on unbounded (raise the "
      "address-space limit, ulimit -v, or give --spill-dir a folder with room; --max-memory 0: no budget)",
      byte_size_text(budget.bytes), spill::spill_error()));
}

void apply_memory_budget(const MemoryBudget& budget) {
  spill::set_budget(budget.bytes, budget.folder);
  if (budget.bytes != 0) spill::start_resident_guard();
  set_worker_hold(&held_in_spill_file);
  set_worker_look(&spill::trim_if_spilled);
}

SpillSummary spill_summary(const MemoryBudget& budget) {
  spill::Stats s = spill::stats();
  std::string error = spill::spill_error();
  if (!error.empty())
    return {
        fmt::format("perfgate: warning: over the --max-memory budget of {} but {}; memory was not bounded",
                    byte_size_text(budget.bytes), error),
        true};
  if (s.blocks == 0) return {};
  SpillSummary summary{
      fmt::format("perfgate: to stay within --max-memory {}, {} blocks ({:.1f} GiB at most at "
                  "once) were held in a temporary file in {}",
                  byte_size_text(budget.bytes), s.blocks, static_cast<double>(s.peak_in_use) / (1 << 30),
                  budget.folder),
      false};
  if (spill::folder_is_in_memory(budget.folder)) {
    summary.text +=
        fmt::format("\nperfgate: warning: {} is in memory (tmpfs): choose a folder on disk with --spill-dir",
                    budget.folder);
    summary.warning = true;
  }
  return summary;
}

}  // namespace perfgate
