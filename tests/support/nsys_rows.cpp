#include "support/nsys_rows.h"

#include <fmt/format.h>

#include "support/nsys_builder.h"

namespace perfgate::testing {

std::string NsysThread::call(std::int64_t start, std::int64_t end, std::int64_t correlation,
                             int name_id) const {
  return fmt::format(
      "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME (start, end, eventClass, globalTid, correlationId, nameId) "
      "VALUES ({}, {}, 0, {}, {}, {});",
      start, end, global_tid(pid, tid), correlation, name_id);
}

std::string NsysThread::kernel(std::int64_t start, std::int64_t end, std::int64_t correlation,
                               int name_id) const {
  return fmt::format(
      "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL (start, end, deviceId, streamId, correlationId, globalPid, "
      "demangledName, shortName, gridX, gridY, gridZ, blockX, blockY, blockZ, registersPerThread) "
      "VALUES ({}, {}, 0, 7, {}, {}, {}, {}, 1, 1, 1, 128, 1, 1, 32);",
      start, end, correlation, global_tid(pid, 0), name_id, name_id);
}

std::string NsysThread::range(std::int64_t start, std::int64_t end, const std::string& text) const {
  std::string quoted;
  for (char c : text) quoted += c == '\'' ? std::string("''") : std::string(1, c);
  return fmt::format(
      "INSERT INTO NVTX_EVENTS (start, end, eventType, text, globalTid, endGlobalTid, domainId) VALUES "
      "({}, {}, 59, '{}', {}, NULL, 0);",
      start, end, quoted, global_tid(pid, tid));
}

}  // namespace perfgate::testing
