#!/usr/bin/env python3
"""Expected values for tests/real/new_traces_test.cpp, computed from the trace JSON alone (issue 14,
item 8): run `python3 tests/real/new_traces_expected.py ../shared/traces` and compare with the
constants in the test. Plain counts and sums of the events, no perfgate code."""
import gzip
import json
import re
import sys

LAUNCH = {"cuda_runtime", "cuda_driver", "hip_runtime", "hip_driver"}


def load(folder, name):
    with gzip.open(f"{folder}/{name}.json.gz") as f:
        return json.load(f)


def describe(folder, name):
    trace = load(folder, name)
    events = [e for e in trace["traceEvents"] if e.get("ph") == "X"]
    by_correlation = {}
    for e in events:
        if e.get("cat") in LAUNCH and "correlation" in e.get("args", {}):
            by_correlation[e["args"]["correlation"]] = e["cat"]
    kernels = [e for e in events if e.get("cat") == "kernel"]
    launched_by = [by_correlation.get(k.get("args", {}).get("correlation")) for k in kernels]
    driver = [k for k, c in zip(kernels, launched_by) if c == "cuda_driver"]
    steps = sorted((e["ts"], e["name"]) for e in events
                   if e.get("cat") == "user_annotation" and e["name"].startswith("ProfilerStep#"))
    gpu_steps = [e for e in events if e.get("cat") == "gpu_user_annotation" and e["name"].startswith("ProfilerStep#")]
    print(f"{name}:")
    print(f"  kernels {len(kernels)}, without a launch call {launched_by.count(None)}")
    print(f"  launched through cuda_driver: {len(driver)} kernels, {sum(k['dur'] for k in driver):.3f} us")
    print(f"  cuda_driver events: {sum(1 for e in events if e.get('cat') == 'cuda_driver')}")
    print(f"  CPU ProfilerStep ranges: {[n for _, n in steps]}; on the GPU timeline: {len(gpu_steps)}")
    print(f"  devices: {sorted({d.get('name') for d in trace.get('deviceProperties', [])})}")


def comms_of_the_steps(folder, name):
    """Issue 29, item 3: record_param_comms calls made during the CPU ProfilerStep ranges, and the
    kernels whose External id is one of theirs."""
    events = [e for e in load(folder, name)["traceEvents"] if e.get("ph") == "X"]
    steps = sorted((e["ts"], e["ts"] + e["dur"]) for e in events
                   if e.get("cat") == "user_annotation" and e["name"].startswith("ProfilerStep#"))
    calls = [e for e in events if e.get("cat") == "cpu_op" and e["name"] == "record_param_comms"
             and steps[0][0] <= e["ts"] < steps[-1][1]]
    ids = {e["args"]["External id"] for e in calls}
    kernels = [e for e in events if e.get("cat") == "kernel" and e.get("args", {}).get("External id") in ids]
    print(f"  record_param_comms during the steps: {len(calls)} calls, {len(kernels)} kernels, "
          f"{sum(k['dur'] for k in kernels):.3f} us")


def layout_share(folder, name):
    """Issue 29, item 3: the convolutions' kernel time by kind: Tensor Core (MFMA: Tensile MI
    tiles, composable_kernel xdl, MIOpen igemm gtcx), layout transposes, the rest. All of it lies
    in perfgate's window (the three steps)."""
    events = [e for e in load(folder, name)["traceEvents"] if e.get("ph") == "X"]
    ops = {e["args"]["External id"]: e["name"] for e in events
           if e.get("cat") == "cpu_op" and "External id" in e.get("args", {})}
    tc = re.compile(r"Cijk_\w*_MI\d+x\d+x\d+|_xdl_|xdlops|^igemm_(fwd|bwd|wrw)_gtcx")
    layout = re.compile(r"^batched_transpose_\d+x\d+_|^transpose_(NCHW2CNHW|CNHW2NCHW)")
    time = {"tc": 0.0, "layout": 0.0, "other": 0.0}
    for k in events:
        if k.get("cat") != "kernel":
            continue
        if ops.get(k["args"].get("External id")) not in ("aten::miopen_convolution", "aten::convolution_backward"):
            continue
        kind = "tc" if tc.search(k["name"]) else "layout" if layout.search(k["name"]) else "other"
        time[kind] += k["dur"]
    off = time["layout"] + time["other"]
    print(f"  convolutions' time off matrix cores: {off:.3f} us, layout transposes {100 * time['layout'] / off:.4f}%")


if __name__ == "__main__":
    folder = sys.argv[1] if len(sys.argv) > 1 else "../shared/traces"
    for name in ("h100_cudnn_driver_api_conv", "h100_llm_inference_slice", "mi300x_resnet_actckpt_gpu_steps"):
        describe(folder, name)
    comms_of_the_steps(folder, "mi300x_resnet_actckpt_gpu_steps")
    layout_share(folder, "mi300x_resnet_actckpt_gpu_steps")
