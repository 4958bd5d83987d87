// What a front end asks of the engine besides a run, so that it reaches the loader and the gate
// only through the engine (the include check refuses a front end's include of load/, analyse/ or
// gate/): the reader that claims a file, the files a prepared run's sniff read, and the rule book
// as text (the YAML that reproduces it, its rules listed).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "engine/rule_book.h"
#include "history/history.h"
#include "io/byte_source.h"

namespace perfgate {

struct ResolvedInputs;  // load/load.h

// The name of the reader that claims `path` (MCP's list_profiles); throws InputError naming the
// file where none does or it cannot be read.
std::string profile_format(const std::string& path);

// The files the prepared run's sniff read (RunRequest::resolved), by their paths, with the device
// and inode it read: what an output is compared with, without a stat of each input again (issue 78:
// a stat a rank of a run folder). Empty for none; the views are into `resolved`.
std::unordered_map<std::string_view, FileIdentity> sniffed_identities(const ResolvedInputs* resolved);

// A step window's bound (field "time_start" or "time_stop") in nanoseconds of the trace's clock, from
// microseconds; a RequestError where it is not a time of that clock.
std::int64_t window_time_ns(std::string_view field, double us);
// Each GPU's memory in bytes for a memory snapshot's near-capacity rule (field "device_memory": 80G,
// 141G or a number of bytes); a RequestError for a malformed or zero size.
std::uint64_t device_memory_bytes(const std::string& text);

// What a trend reads of the book's rules (history's GatedMetric): each metric an enabled baseline
// rule gates, once, with the first such rule's direction and limit, in rule order.
std::vector<GatedMetric> gated_metrics_of(const RuleBook& book);

// The rule book as one YAML document of every setting, rule and file applied
// (--print-effective-rules, `perfgate rules print`).
std::string effective_rules_text(const RuleBook& book);
// Its rules a line each: id, disabled or not, what it reads, its limits (`perfgate rules list`).
std::string rules_table(const RuleBook& book);
// Its rules a Markdown section each, for docs/rules.md (`perfgate rules list --format markdown`).
std::string rules_markdown(const RuleBook& book);

}  // namespace perfgate
