#!/usr/bin/env python3
"""A rocprof v1 results.db for the nsys harness's corpus (issue 75): python3 THIS OUT.db. The HIP,
OPS and COPY tables with the columns ROCm's rocprofiler gives them (bin/tblextr.py's api_table_descr
and ops_table_descr, then dform.py's DurationNs): one HIP launch, its kernel, one copy."""
import sqlite3, sys

db = sqlite3.connect(sys.argv[1])
db.execute('CREATE TABLE HIP ("BeginNs" INTEGER, "EndNs" INTEGER, "pid" INTEGER, "tid" INTEGER, "Name" TEXT, '
           '"args" TEXT, "Index" INTEGER, "Data" TEXT, "__section" INTEGER, "__lane" INTEGER, "DurationNs" INTEGER)')
for table in ("OPS", "COPY"):
    db.execute(f'CREATE TABLE {table} ("BeginNs" INTEGER, "EndNs" INTEGER, "dev-id" INTEGER, "queue-id" INTEGER, '
               '"Name" TEXT, "pid" INTEGER, "tid" INTEGER, "roctx-range" TEXT, "stream-id" INTEGER, "Index" INTEGER, '
               '"Data" TEXT, "__section" INTEGER, "__lane" INTEGER, "DurationNs" INTEGER)')
db.execute("INSERT INTO HIP VALUES (1000, 1500, 9, 77, 'hipLaunchKernel', '', 1, '', 2, 77, 500)")
db.execute("INSERT INTO OPS VALUES (1600, 2600, 0, 0, 'gemm', 9, 0, '', 0, 1, '', 6, 0, 1000)")
db.execute("INSERT INTO COPY VALUES (2100, 2500, 0, 0, 'CopyHostToDevice', 9, 0, '', 0, 2, '', 1, 0, 400)")
db.commit()
