-- An independent reading of the FSDP exports (no perfgate) for tests/real/unit_path_real_test.cpp:
-- sqlite3 EXPORT.sqlite < unit_path_reference.sql prints two tables, per worker (pid) and block k.
-- An inferred unit is [post_forward(k).start, post_forward(k+1).start) on its worker.
CREATE TEMP VIEW unit AS
WITH pf AS (
  SELECT (globalTid >> 24) & 0xFFFFFF AS pid,
         CAST(substr(text, instr(text, 'blocks.') + 7,
                     instr(substr(text, instr(text, 'blocks.') + 7), '.') - 1) AS INTEGER) AS block,
         start
  FROM NVTX_EVENTS WHERE eventType = 59 AND text LIKE 'FSDP::post_forward (blocks.%')
SELECT pid, block, start AS u0, LEAD(start) OVER (PARTITION BY pid ORDER BY start) AS u1 FROM pf;

-- 1. The SendRecv kernels launched inside each unit: count, time (ns), the unit's length (ns).
WITH k AS (SELECT (r.globalTid >> 24) & 0xFFFFFF AS pid, r.start AS launch, kk.start AS ks, kk.end AS ke
           FROM CUPTI_ACTIVITY_KIND_KERNEL kk JOIN CUPTI_ACTIVITY_KIND_RUNTIME r
             ON r.correlationId = kk.correlationId AND (r.globalTid & 0xFFFFFFFFFF000000) = kk.globalPid
           JOIN StringIds s ON s.id = kk.shortName WHERE s.value LIKE '%SendRecv%')
SELECT unit.pid, unit.block, count(k.ks) AS kernels, coalesce(sum(ke - ks), 0) AS sendrecv_ns, unit.u1 - unit.u0 AS unit_ns
FROM unit LEFT JOIN k ON k.pid = unit.pid AND k.launch >= unit.u0 AND k.launch < unit.u1
WHERE unit.u1 IS NOT NULL GROUP BY unit.pid, unit.block ORDER BY unit.pid, unit.block;

-- 2. The cudaMemsetAsync runtime calls starting inside each matched unit (blocks 8-17): count, total
-- and longest (ns).
WITH c AS (SELECT (r.globalTid >> 24) & 0xFFFFFF AS pid, r.start, r.end FROM CUPTI_ACTIVITY_KIND_RUNTIME r
           JOIN StringIds s ON s.id = r.nameId WHERE s.value LIKE 'cudaMemsetAsync%')
SELECT unit.pid, unit.block, count(c.start), coalesce(sum(c.end - c.start), 0), coalesce(max(c.end - c.start), 0)
FROM unit LEFT JOIN c ON c.pid = unit.pid AND c.start >= unit.u0 AND c.start < unit.u1
WHERE unit.u1 IS NOT NULL AND unit.block BETWEEN 8 AND 17 GROUP BY unit.pid, unit.block ORDER BY unit.pid, unit.block;
