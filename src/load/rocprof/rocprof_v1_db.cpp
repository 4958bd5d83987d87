// rocprof v1's results.db (rocprof_v1.h): the SQLite tables tblextr.py writes, read by their
// columns' names (bin/tblextr.py's *_table_descr): HIP (BeginNs, EndNs, pid, tid, Name, args, Index,
// …), OPS and COPY (BeginNs, EndNs, dev-id, queue-id, Name, pid, tid, roctx-range, stream-id,
// Index, …; COPY from HSA's async copies has no dev-id), KERN (Index, KernelName, gpu-id, queue-id,
// …, BeginNs, EndNs) and rocTX (BeginNs, EndNs, pid, tid, Name, Index). A copy's bytes are its HIP
// call's (the same pid and Index): its args' sizeBytes (rocprof_v1_builder.cpp).
#include "load/nsys/sqlite_db.h"
#include "load/rocprof/rocprof_v1.h"

namespace perfgate::rocprof {
namespace {

struct TableColumns {
  const char* table;
  V1Table kind;
  const char* device;  // the column naming the GPU; nullptr: none
  const char* name;
};

constexpr TableColumns kTables[] = {
    {"HIP", V1Table::Hip, nullptr, "Name"},     {"OPS", V1Table::Ops, "dev-id", "Name"},
    {"COPY", V1Table::Copy, "dev-id", "Name"},  {"KERN", V1Table::Kern, "gpu-id", "KernelName"},
    {"rocTX", V1Table::Roctx, nullptr, "Name"},
};

bool has_times(const nsys::SqliteDb& db, const char* table) {
  std::vector<std::string> columns = db.columns(table);
  auto has = [&](std::string_view c) {
    return std::find(columns.begin(), columns.end(), c) != columns.end();
  };
  return has("BeginNs") && has("EndNs");
}

}  // namespace

bool is_v1_database(const nsys::SqliteDb& db) {
  for (const char* table : {"OPS", "HIP", "KERN", "COPY"})
    if (db.has_table(table) && has_times(db, table)) return true;
  return false;
}

Profile read_v1_database(const nsys::SqliteDb& db) {
  V1Builder builder;
  for (const TableColumns& t : kTables) {
    if (!db.has_table(t.table) || !has_times(db, t.table)) continue;
    std::vector<std::string_view> wanted = {"BeginNs",
                                            "EndNs",
                                            t.device ? t.device : "",
                                            "queue-id",
                                            "tid",
                                            "Index",
                                            t.name,
                                            "pid",
                                            "stream-id",
                                            t.kind == V1Table::Hip ? "args" : ""};
    nsys::Statement rows(db, nsys::select_columns(db, t.table, wanted));
    while (rows.next()) {
      V1Record r;
      r.table = t.kind;
      r.begin = rows.is_null(0) ? -1 : rows.integer(0);
      r.end = rows.is_null(1) ? -1 : rows.integer(1);
      r.device = rows.is_null(2) ? -1 : rows.integer(2);
      r.queue = rows.is_null(3) ? -1 : rows.integer(3);
      r.tid = rows.integer(4);
      r.correlation = rows.integer(5);
      std::string_view name = rows.text(6);
      if (name.size() >= 2 && name.front() == '"' && name.back() == '"')
        name = name.substr(1, name.size() - 2);
      r.name.assign(name.substr(0, std::size_t{1} << 16));
      r.pid = rows.is_null(7) ? -1 : rows.integer(7);
      r.stream = rows.is_null(8) ? -1 : rows.integer(8);
      if (!rows.is_null(9)) r.args.assign(rows.text(9).substr(0, std::size_t{1} << 12));
      if (rows.bad_value()) r.begin = -1;  // text where a number belongs: left out, counted
      builder.add(std::move(r));
    }
  }
  return builder.finish(db.path(), "rocprof-v1-db");
}

}  // namespace perfgate::rocprof
