-- cudaMemsetAsync runtime calls (host) starting inside each inferred unit, per worker and block.
WITH pf AS (
  SELECT (globalTid >> 24) & 0xFFFFFF AS pid,
         CAST(substr(text, instr(text, 'blocks.') + 7,
                     instr(substr(text, instr(text, 'blocks.') + 7), '.') - 1) AS INTEGER) AS block,
         start
  FROM NVTX_EVENTS WHERE eventType = 59 AND text LIKE 'FSDP::post_forward (blocks.%'),
unit AS (SELECT pid, block, start AS u0, LEAD(start) OVER (PARTITION BY pid ORDER BY start) AS u1 FROM pf),
c AS (SELECT (r.globalTid >> 24) & 0xFFFFFF AS pid, r.start, r.end FROM CUPTI_ACTIVITY_KIND_RUNTIME r
      JOIN StringIds s ON s.id = r.nameId WHERE s.value LIKE 'cudaMemsetAsync%')
SELECT unit.pid, unit.block, count(c.start), coalesce(sum(c.end - c.start), 0), coalesce(max(c.end - c.start), 0)
FROM unit LEFT JOIN c ON c.pid = unit.pid AND c.start >= unit.u0 AND c.start < unit.u1
WHERE unit.u1 IS NOT NULL AND unit.block BETWEEN 8 AND 17 GROUP BY unit.pid, unit.block ORDER BY unit.pid, unit.block;
