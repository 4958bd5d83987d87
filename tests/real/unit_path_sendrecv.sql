-- SendRecv kernel time launched inside each inferred unit [post_forward(k).start, post_forward(k+1).start),
-- per worker (pid) and block k; an independent reading of the exports (no perfgate).
WITH pf AS (
  SELECT (globalTid >> 24) & 0xFFFFFF AS pid,
         CAST(substr(text, instr(text, 'blocks.') + 7,
                     instr(substr(text, instr(text, 'blocks.') + 7), '.') - 1) AS INTEGER) AS block,
         start
  FROM NVTX_EVENTS WHERE eventType = 59 AND text LIKE 'FSDP::post_forward (blocks.%'),
unit AS (SELECT pid, block, start AS u0, LEAD(start) OVER (PARTITION BY pid ORDER BY start) AS u1 FROM pf),
k AS (SELECT (r.globalTid >> 24) & 0xFFFFFF AS pid, r.start AS launch, kk.start AS ks, kk.end AS ke
      FROM CUPTI_ACTIVITY_KIND_KERNEL kk JOIN CUPTI_ACTIVITY_KIND_RUNTIME r
        ON r.correlationId = kk.correlationId AND (r.globalTid & 0xFFFFFFFFFF000000) = kk.globalPid
      JOIN StringIds s ON s.id = kk.shortName WHERE s.value LIKE '%SendRecv%')
SELECT unit.pid, unit.block, count(k.ks) AS kernels, coalesce(sum(ke - ks), 0) AS sendrecv_ns, unit.u1 - unit.u0 AS unit_ns
FROM unit LEFT JOIN k ON k.pid = unit.pid AND k.launch >= unit.u0 AND k.launch < unit.u1
WHERE unit.u1 IS NOT NULL GROUP BY unit.pid, unit.block ORDER BY unit.pid, unit.block;
