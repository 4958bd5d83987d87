#include "load/nsys/capture.h"

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "common/utf8.h"

namespace perfgate::nsys {
namespace {

// The process key of a globalTid/globalPid column in SQL: the tid bits cleared
// (0xFFFFFFFFFF000000 as a signed 64-bit integer). A missing value counts as process 0.
std::string process_key_sql(std::string_view column) {
  return fmt::format("(coalesce(\"{}\", 0) & -16777216)", column);
}

bool has_column(const SqliteDb& db, const std::string& table, std::string_view column) {
  std::vector<std::string> columns = db.columns(table);
  return std::find(columns.begin(), columns.end(), column) != columns.end();
}

// The distinct process keys of a table's rows (one pass, a few keys kept).
void add_process_keys(const SqliteDb& db, const std::string& table, std::string_view column,
                      std::string_view where, std::set<std::int64_t>& keys) {
  if (!db.has_table(table)) return;
  if (!has_column(db, table, column)) {
    Statement any(db, fmt::format("SELECT 1 FROM {} {} LIMIT 1", table, where));
    if (any.next()) keys.insert(0);
    return;
  }
  Statement row(db, fmt::format("SELECT DISTINCT {} FROM {} {}", process_key_sql(column), table, where));
  while (row.next()) keys.insert(row.integer(0));
}

}  // namespace

std::vector<std::int64_t> worker_processes(const SqliteDb& db) {
  std::set<std::int64_t> keys;
  for (const char* table :
       {"CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_MEMSET"})
    add_process_keys(db, table, "globalPid", {}, keys);
  if (keys.empty()) {
    add_process_keys(db, "CUPTI_ACTIVITY_KIND_RUNTIME", "globalTid", {}, keys);
    add_process_keys(db, "NVTX_EVENTS", "globalTid", fmt::format("WHERE {}", kNvtxRangeRows), keys);
  }
  return {keys.begin(), keys.end()};
}

Capture::Capture(const SqliteDb& db, std::int64_t process_key) : db_(db) {
  process_.key = process_key;
  process_.profile.info.format = "nsys-sqlite";
  if (db.has_table("StringIds"))
    string_lookup_ = std::make_unique<Statement>(db, "SELECT value FROM StringIds WHERE id = ?");
  if (db.has_table("ThreadNames") && string_lookup_)
    thread_name_lookup_ = std::make_unique<Statement>(
        db,
        select_columns(db, "ThreadNames", {"nameId"}, "WHERE globalTid = ? ORDER BY priority DESC LIMIT 1"));
}

std::string Capture::rows_of_process(const std::string& table, std::string_view column,
                                     std::string_view and_also) const {
  std::string mine = has_column(db_, table, column)
                         ? fmt::format("{} = {}", process_key_sql(column), process_.key)
                         : std::string(process_.key == 0 ? "1" : "0");
  return and_also.empty() ? fmt::format("WHERE {}", mine) : fmt::format("WHERE {} AND ({})", mine, and_also);
}

std::uint32_t Capture::thread(std::int64_t global_tid) {
  Profile& profile = process_.profile;
  auto [it, inserted] =
      process_.threads.try_emplace(global_tid, static_cast<std::uint32_t>(profile.threads.size()));
  if (inserted) {
    StringId name = kNoString;
    if (thread_name_lookup_) {
      thread_name_lookup_->reset();
      thread_name_lookup_->bind(1, global_tid);
      if (thread_name_lookup_->next() && !thread_name_lookup_->is_null(0))
        name = this->name(thread_name_lookup_->integer(0));
    }
    profile.threads.push_back(ThreadInfo{pid_of(global_tid), tid_of(global_tid), name});
  }
  return it->second;
}

std::string Capture::text(std::int64_t string_id) {
  if (!string_lookup_) return {};
  string_lookup_->reset();
  string_lookup_->bind(1, string_id);
  return string_lookup_->next() ? valid_text(string_lookup_->text(0)) : std::string();
}

std::string Capture::valid_text(std::string_view text) {
  if (is_valid_utf8(text)) return std::string(text);
  ++invalid_utf8_;
  std::size_t replaced = 0;
  return repair_utf8(text, replaced);
}

StringId Capture::name(std::int64_t string_id) {
  if (auto it = process_.names.find(string_id); it != process_.names.end()) return it->second;
  StringId id = process_.profile.strings.intern(text(string_id));
  process_.names.emplace(string_id, id);
  return id;
}

std::uint32_t Capture::launch_info(const KernelLaunchInfo& info) {
  std::vector<KernelLaunchInfo>& stored = process_.profile.kernel_info;
  auto [it, inserted] =
      launch_infos_.try_emplace(std::string(reinterpret_cast<const char*>(&info), sizeof info),
                                static_cast<std::uint32_t>(stored.size()));
  if (inserted) stored.push_back(info);
  return it->second;
}

}  // namespace perfgate::nsys

namespace perfgate::nsys {

bool Capture::usable(const Statement& row, std::string_view table, TimeNs start, TimeNs end) {
  bool bad_value = row.bad_value();
  bool bad_time = start < 0 || start >= kMaxTimeNs || end < 0 || end >= kMaxTimeNs;
  bool reversed = !bad_time && (end < start || end - start > kMaxDurationNs);
  // The process's durations must add up to less than 2^62 ns, as a Kineto trace's (profile.h).
  bool beyond_total = !bad_time && !reversed && end - start >= kMaxTimeNs - durations_;
  if (!bad_value && !bad_time && !reversed && !beyond_total) {
    durations_ += end - start;
    return true;
  }
  auto it = skipped_.find(table);
  if (it == skipped_.end()) it = skipped_.emplace(std::string(table), Skipped{}).first;
  ++(bad_value  ? it->second.bad_value
     : bad_time ? it->second.bad_time
     : reversed ? it->second.reversed
                : it->second.beyond_total);
  return false;
}

std::vector<Note> Capture::skipped_notes() const {
  std::vector<Note> notes;
  for (const auto& [table, s] : skipped_) {
    if (s.bad_value > 0)
      notes.push_back(note<NoteId::nsys_rows_bad_value>(arg<"count">(s.bad_value), arg<"table">(table)));
    if (s.bad_time > 0)
      notes.push_back(note<NoteId::nsys_rows_bad_time>(arg<"count">(s.bad_time), arg<"table">(table)));
    if (s.beyond_total > 0)
      notes.push_back(
          note<NoteId::nsys_rows_beyond_total>(arg<"count">(s.beyond_total), arg<"table">(table)));
    if (s.reversed > 0)
      notes.push_back(note<NoteId::nsys_rows_reversed>(arg<"count">(s.reversed), arg<"table">(table)));
  }
  if (invalid_utf8_ > 0) notes.push_back(note<NoteId::nsys_invalid_utf8>(arg<"count">(invalid_utf8_)));
  return notes;
}

}  // namespace perfgate::nsys
