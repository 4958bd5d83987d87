// Hand-built Nsight Systems exports for tests: the real table shapes (nsys 2026.x column names),
// filled with SQL the test writes, so every expected number is visible in the test.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace perfgate::testing {

// CREATE TABLE statements of the tables perfgate reads, as nsys 2026.x writes them.
extern const char* const kNsysStringIds;
extern const char* const kNsysKernelTable;
extern const char* const kNsysMemcpyTable;
extern const char* const kNsysMemsetTable;
extern const char* const kNsysRuntimeTable;
extern const char* const kNsysNvtxTable;
extern const char* const kNsysGpuTable;
extern const char* const kNsysMetaData;
extern const char* const kNsysSyncTable;       // CUPTI_ACTIVITY_KIND_SYNCHRONIZATION
extern const char* const kNsysCudaEventTable;  // CUPTI_ACTIVITY_KIND_CUDA_EVENT

// globalTid of process `pid`, thread `tid` (globalPid = the same with tid 0).
std::int64_t global_tid(std::int64_t pid, std::int64_t tid);

// Creates `path` (replacing it) and runs `sql` in it. Returns the path.
std::string make_sqlite(const std::string& path, const std::string& sql);
// The bytes of a database made in memory by `sql` (sqlite3_serialize): an export with no file.
std::string sqlite_bytes(const std::string& sql);

// Runs a query and returns the first column of the first row as a number (0 when no row or NULL).
double query_number(const std::string& path, const std::string& sql);

}  // namespace perfgate::testing
