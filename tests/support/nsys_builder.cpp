#include "support/nsys_builder.h"

#include <sqlite3.h>
#include <unistd.h>

#include <stdexcept>

namespace perfgate::testing {

const char* const kNsysStringIds =
    "CREATE TABLE StringIds (id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL);";
const char* const kNsysKernelTable =
    "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId "
    "INTEGER, "
    "contextId INTEGER, streamId INTEGER, correlationId INTEGER, globalPid INTEGER, demangledName INTEGER, "
    "shortName INTEGER, mangledName INTEGER, registersPerThread INTEGER, gridX INTEGER, gridY INTEGER, "
    "gridZ INTEGER, blockX INTEGER, blockY INTEGER, blockZ INTEGER, staticSharedMemory INTEGER, "
    "dynamicSharedMemory INTEGER);";
const char* const kNsysMemcpyTable =
    "CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId "
    "INTEGER, "
    "contextId INTEGER, streamId INTEGER, correlationId INTEGER, globalPid INTEGER, bytes INTEGER, "
    "copyKind INTEGER, srcKind INTEGER, dstKind INTEGER);";
const char* const kNsysMemsetTable =
    "CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId "
    "INTEGER, "
    "contextId INTEGER, streamId INTEGER, correlationId INTEGER, globalPid INTEGER, value INTEGER, "
    "bytes INTEGER, memKind INTEGER);";
const char* const kNsysRuntimeTable =
    "CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT NULL, end INTEGER NOT NULL, eventClass "
    "INTEGER, globalTid INTEGER, correlationId INTEGER, nameId INTEGER, returnValue INTEGER);";
const char* const kNsysNvtxTable =
    "CREATE TABLE NVTX_EVENTS (start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT NULL, rangeId "
    "INTEGER, category INTEGER, color INTEGER, text TEXT, globalTid INTEGER, endGlobalTid INTEGER, textId "
    "INTEGER, domainId INTEGER);";
const char* const kNsysGpuTable =
    "CREATE TABLE TARGET_INFO_GPU (id INTEGER NOT NULL, name TEXT, totalMemory INTEGER, smCount INTEGER, "
    "cuDevice INTEGER, computeMajor INTEGER, computeMinor INTEGER);";
const char* const kNsysMetaData = "CREATE TABLE META_DATA_EXPORT (name TEXT, value TEXT);";
const char* const kNsysSyncTable =
    "CREATE TABLE CUPTI_ACTIVITY_KIND_SYNCHRONIZATION (start INTEGER NOT NULL, end INTEGER NOT NULL, "
    "deviceId "
    "INTEGER NOT NULL, contextId INTEGER NOT NULL, greenContextId INTEGER, streamId INTEGER NOT NULL, "
    "correlationId INTEGER, globalPid INTEGER, deprecatedSyncType INTEGER, syncType INTEGER NOT NULL, "
    "eventId "
    "INTEGER NOT NULL, eventSyncId INTEGER);";
const char* const kNsysCudaEventTable =
    "CREATE TABLE CUPTI_ACTIVITY_KIND_CUDA_EVENT (timestamp INTEGER, deviceId INTEGER NOT NULL, contextId "
    "INTEGER NOT NULL, greenContextId INTEGER, streamId INTEGER NOT NULL, correlationId INTEGER, globalPid "
    "INTEGER, eventId INTEGER NOT NULL, eventSyncId INTEGER);";

std::int64_t global_tid(std::int64_t pid, std::int64_t tid) {
  return (static_cast<std::int64_t>(1) << 48) | (pid << 24) | tid;
}

std::string make_sqlite(const std::string& path, const std::string& sql) {
  ::unlink(path.c_str());
  sqlite3* db = nullptr;
  if (sqlite3_open(path.c_str(), &db) != SQLITE_OK) throw std::runtime_error("cannot create " + path);
  char* error = nullptr;
  int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &error);
  std::string message = error ? error : "";
  sqlite3_free(error);
  sqlite3_close(db);
  if (rc != SQLITE_OK) throw std::runtime_error("SQL failed: " + message);
  return path;
}

std::string sqlite_bytes(const std::string& sql) {
  sqlite3* db = nullptr;
  if (sqlite3_open(":memory:", &db) != SQLITE_OK)
    throw std::runtime_error("cannot open a database in memory");
  char* error = nullptr;
  int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &error);
  std::string message = error ? error : "";
  sqlite3_free(error);
  sqlite3_int64 size = 0;
  unsigned char* data = rc == SQLITE_OK ? sqlite3_serialize(db, "main", &size, 0) : nullptr;
  std::string bytes =
      data ? std::string(reinterpret_cast<const char*>(data), static_cast<std::size_t>(size)) : "";
  sqlite3_free(data);
  sqlite3_close(db);
  if (rc != SQLITE_OK) throw std::runtime_error("SQL failed: " + message);
  if (bytes.empty()) throw std::runtime_error("cannot serialize the database");
  return bytes;
}

double query_number(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK)
    throw std::runtime_error("cannot open " + path);
  sqlite3_stmt* stmt = nullptr;
  if (sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt, nullptr) != SQLITE_OK) {
    std::string message = sqlite3_errmsg(db);
    sqlite3_close(db);
    throw std::runtime_error("bad query: " + message);
  }
  double value = sqlite3_step(stmt) == SQLITE_ROW ? sqlite3_column_double(stmt, 0) : 0;
  sqlite3_finalize(stmt);
  sqlite3_close(db);
  return value;
}

}  // namespace perfgate::testing
