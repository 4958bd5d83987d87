#include "load/nsys/capture.h"

#include <fmt/format.h>

namespace perfgate::nsys {

Capture::Capture(const SqliteDb& db) : db_(db) {
  if (db.has_table("StringIds"))
    string_lookup_ = std::make_unique<Statement>(db, "SELECT value FROM StringIds WHERE id = ?");
  if (db.has_table("ThreadNames") && string_lookup_)
    thread_name_lookup_ = std::make_unique<Statement>(
        db,
        select_columns(db, "ThreadNames", {"nameId"}, "WHERE globalTid = ? ORDER BY priority DESC LIMIT 1"));
}

CapturedProcess& Capture::process(std::int64_t key) {
  if (auto it = by_key_.find(key); it != by_key_.end()) return *it->second;
  auto p = std::make_unique<CapturedProcess>();
  p->key = key;
  p->profile.info.format = "nsys-sqlite";
  CapturedProcess& ref = *p;
  by_key_.emplace(key, p.get());
  processes_.push_back(std::move(p));
  return ref;
}

std::uint32_t Capture::thread(CapturedProcess& p, std::int64_t global_tid) {
  auto [it, inserted] =
      p.threads.try_emplace(global_tid, static_cast<std::uint32_t>(p.profile.threads.size()));
  if (inserted) {
    StringId name = kNoString;
    if (thread_name_lookup_) {
      thread_name_lookup_->reset();
      thread_name_lookup_->bind(1, global_tid);
      if (thread_name_lookup_->next() && !thread_name_lookup_->is_null(0))
        name = this->name(p, thread_name_lookup_->integer(0));
    }
    p.profile.threads.push_back(ThreadInfo{pid_of(global_tid), tid_of(global_tid), name});
  }
  return it->second;
}

std::string Capture::text(std::int64_t string_id) {
  if (!string_lookup_) return {};
  string_lookup_->reset();
  string_lookup_->bind(1, string_id);
  return string_lookup_->next() ? std::string(string_lookup_->text(0)) : std::string();
}

StringId Capture::name(CapturedProcess& p, std::int64_t string_id) {
  if (auto it = p.names.find(string_id); it != p.names.end()) return it->second;
  StringId id = p.profile.strings.intern(text(string_id));
  p.names.emplace(string_id, id);
  return id;
}

}  // namespace perfgate::nsys
