"""HTA's own critical path (facebookresearch/HolisticTraceAnalysis @f4d0062, run from its source
with Debian's pandas 1.5.3 / networkx 2.8.8) per ProfilerStep#N of a trace, with HTA's loader
default (include_last_profiler_step=False) and with the last step kept (True).

usage: /usr/bin/python3 hta_reference.py HTA_SRC OUT.json TRACE [TRACE...]
"""
import json, logging, os, re, shutil, sys, tempfile, gzip
sys.path.insert(0, sys.argv[1])
logging.disable(logging.WARNING)
from hta.trace_analysis import TraceAnalysis  # noqa: E402

out_path = sys.argv[2]
result = {"_about": "HTA @f4d0062 critical_path_analysis per ProfilerStep#N (instance 0); "
          "'default': include_last_profiler_step=False (HTA's loader default), 'last_kept': True"}
for trace in sys.argv[3:]:
    d = json.load(gzip.open(trace) if trace.endswith('.gz') else open(trace))
    evs = d["traceEvents"] if isinstance(d, dict) else d
    steps = sorted({e["name"] for e in evs if re.fullmatch(r"ProfilerStep#\d+", str(e.get("name", "")))
                    and e.get("cat") in ("user_annotation", "cpu_instant_event", "Operator", "cpu_op")},
                   key=lambda s: int(s.split("#")[1]))
    per = {}
    for mode, keep in (("default", False), ("last_kept", True)):
        tmp = tempfile.mkdtemp()
        try:
            os.symlink(os.path.abspath(trace), os.path.join(tmp, "rank0.pt.trace.json" + (".gz" if trace.endswith(".gz") else "")))
            ta = TraceAnalysis(trace_dir=tmp, include_last_profiler_step=keep)
            rank = next(iter(ta.t.traces))
            for s in steps:
                try:
                    g, ok = ta.critical_path_analysis(rank=rank, annotation=s, instance_id=0)
                    bd = g.get_critical_path_breakdown()
                    by = {str(k): float(v) for k, v in bd.groupby("bound_by").duration.sum().items()}
                    per.setdefault(s, {})[mode] = {"length_us": float(bd.duration.sum()), "by": by}
                except Exception as ex:  # HTA's own failure
                    per.setdefault(s, {})[mode] = {"error": f"{type(ex).__name__}: {str(ex)[:160]}"}
        finally:
            shutil.rmtree(tmp)
    result[os.path.basename(trace)] = per
    print(os.path.basename(trace), json.dumps(per), flush=True)
json.dump(result, open(out_path, "w"), indent=1, sort_keys=True)
