-- The yardstick of an Nsight Systems export's read (docs/performance.md, "Nsight Systems exports"):
-- sqlite3 reading every column perfgate reads, once, from each table perfgate reads.
--   sqlite3 EXPORT.sqlite ".read bench/nsys_scan.sql"
SELECT max(start), max("end"), max(deviceId), max(streamId), max(correlationId), max(demangledName), max(shortName), max(gridX), max(gridY), max(gridZ), max(blockX), max(blockY), max(blockZ), max(registersPerThread), max(staticSharedMemory), max(dynamicSharedMemory), max(contextId), max(globalPid) FROM CUPTI_ACTIVITY_KIND_KERNEL;
SELECT max(start), max("end"), max(deviceId), max(streamId), max(correlationId), max(bytes), max(copyKind), max(srcKind), max(dstKind), max(globalPid) FROM CUPTI_ACTIVITY_KIND_MEMCPY;
SELECT max(start), max("end"), max(deviceId), max(streamId), max(correlationId), max(bytes), max(memKind), max(globalPid) FROM CUPTI_ACTIVITY_KIND_MEMSET;
SELECT max(start), max("end"), max(globalTid), max(correlationId), max(nameId) FROM CUPTI_ACTIVITY_KIND_RUNTIME;
SELECT max(start), max("end"), max(eventType), max(text), max(textId), max(globalTid), max(endGlobalTid), max(domainId) FROM NVTX_EVENTS;
SELECT max(start), max("end"), max(globalPid), max(correlationId), max(eventId), max(syncType), max(streamId) FROM CUPTI_ACTIVITY_KIND_SYNCHRONIZATION;
SELECT max(id), max(value) FROM StringIds;
