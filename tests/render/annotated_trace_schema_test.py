#!/usr/bin/env python3
"""The annotated trace (perfgate analyze --annotated-trace) against the Trace Event Format's schema.

tests/render/trace_event_format.schema.json holds the fields the format's document defines (cited
there). Checked: the bundled example's trace (the default selection and every event), and a trace
whose names are hostile (quotes, backslashes, </script>, control characters), whose names must stay
escaped in the file and come back unchanged when it is parsed. Skips (77) without python3-jsonschema.

Usage: annotated_trace_schema_test.py SOURCE_DIR PERFGATE
"""
import json
import os
import subprocess
import sys
import tempfile

try:
    import jsonschema
except ImportError:
    print("python3-jsonschema is not installed: skipped")
    sys.exit(77)

HOSTILE = ['q"uote\\back', "</script><script>alert(1)</script>", "ctl\x01\x1f\x7fend", "tab\tnew\nline",
           "bidi\u202eevil", "nul?\u2028sep"]


def hostile_trace(path):
    """One step of three hostile kernels, each launched by a hostile runtime call under a hostile op."""
    events = [{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1,
               "ts": 0, "dur": 400}]
    for i, name in enumerate(HOSTILE):
        t = 10 + 60 * i
        events.append({"ph": "X", "cat": "cpu_op", "name": name, "pid": 1, "tid": 1, "ts": t, "dur": 20,
                       "args": {"External id": i + 1, "Input Dims": [[2, 2]], "Input type": [name]}})
        events.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1,
                       "ts": t + 5, "dur": 5, "args": {"correlation": 100 + i, "External id": i + 1}})
        events.append({"ph": "X", "cat": "kernel", "name": name, "pid": 0, "tid": 7, "ts": t + 12,
                       "dur": 30, "args": {"correlation": 100 + i, "device": 0, "stream": 7}})
    events.append({"ph": "M", "name": "thread_name", "pid": 1, "tid": 1, "args": {"name": HOSTILE[1]}})
    with open(path, "w", encoding="utf-8") as f:
        json.dump({"schemaVersion": 1, "traceEvents": events}, f)


def annotate(perfgate, trace, out, *extra):
    run = subprocess.run([perfgate, "analyze", "-q", trace, "--annotated-trace", out, *extra],
                         capture_output=True, text=True, check=False)
    if run.returncode not in (0, 1):
        sys.exit(f"perfgate analyze {trace} exited {run.returncode}: {run.stderr}")


def main():
    source, perfgate = sys.argv[1], sys.argv[2]
    with open(os.path.join(source, "tests/render/trace_event_format.schema.json"), encoding="utf-8") as f:
        schema = json.load(f)
    validator = jsonschema.Draft7Validator(schema)
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        example = os.path.join(source, "examples/small_training.pt.trace.json.gz")
        hostile = os.path.join(tmp, "hostile.json")
        hostile_trace(hostile)
        cases = [("example, default selection", example, []), ("example, every event", example,
                 ["--annotated-trace-steps", "0"]), ("hostile names", hostile, [])]
        for label, trace, extra in cases:
            out = os.path.join(tmp, label.replace(" ", "_").replace(",", "") + ".trace.json")
            annotate(perfgate, trace, out, *extra)
            raw = open(out, "rb").read()
            doc = json.loads(raw)
            errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.path))
            for e in errors[:5]:
                failures.append(f"{label}: {'/'.join(map(str, e.path))}: {e.message}")
            phases = {e["ph"] for e in doc["traceEvents"]}
            for needed in ("X", "M", "s", "f"):
                if needed not in phases:
                    failures.append(f"{label}: no '{needed}' event (phases: {sorted(phases)})")
            print(f"{label}: {len(raw)} bytes, {len(doc['traceEvents'])} events, {len(errors)} schema errors")
            if trace != hostile:
                continue
            # Escaped in the file: no raw control character, no "</" that would end an inline script.
            if any(b < 0x20 for b in raw):
                failures.append("hostile names: a raw control character in the file")
            if b"</" in raw:
                failures.append("hostile names: a raw '</' in the file")
            names = {e.get("name") for e in doc["traceEvents"]}
            thread_names = {e["args"]["name"] for e in doc["traceEvents"] if e.get("name") == "thread_name"}
            for name in HOSTILE:
                if name not in names:
                    failures.append(f"hostile names: {name!r} did not come back as an event's name")
            if HOSTILE[1] not in thread_names:
                failures.append("hostile names: the thread's name did not come back")
    for failure in failures:
        print("FAIL:", failure)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
