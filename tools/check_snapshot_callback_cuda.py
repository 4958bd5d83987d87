# The CUDA path of perfgate.torch.on_trace_ready(memory_snapshot=True) with a real CUDA torch (issue 60), run on a
# lent H100 (torch 2.11.0+cu130, 2026-11-27) with PERFGATE_BINARY set and the package beside it (pkg/perfgate).
# Result: the snapshot's peak 743,645,696 bytes = torch.cuda.max_memory_allocated(); reserved 799,014,912 and
# allocated 475,128,320 = torch's; the device's memory 85,017,493,504 = get_device_properties(0).total_memory.
import json, os, sys, torch, torch.nn as nn
from torch.profiler import profile, ProfilerActivity, schedule
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "pkg"))
import perfgate, perfgate.torch
out = os.environ["OUT"]
dev = "cuda"
print("torch", torch.__version__, torch.cuda.get_device_name(), "total", torch.cuda.get_device_properties(0).total_memory)
model = nn.Sequential(nn.Linear(2048, 8192), nn.GELU(), nn.Linear(8192, 2048)).to(dev)
opt = torch.optim.AdamW(model.parameters())
gate = perfgate.torch.on_trace_ready(f"{out}/run", memory_snapshot=True, print_summary=True, worker_name="h100")
torch.cuda.reset_peak_memory_stats()
with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], schedule=schedule(wait=0, warmup=1, active=3),
             on_trace_ready=gate) as prof:
    for i in range(4):
        x = torch.randn(512, 2048, device=dev)
        loss = model(x).square().mean(); loss.backward(); opt.step(); opt.zero_grad(set_to_none=True)
        prof.step()
torch.cuda.synchronize()
snap = gate.snapshot_reports[-1]
res = {"snapshots": gate.snapshots, "torch_max_allocated": torch.cuda.max_memory_allocated(),
       "torch_allocated": torch.cuda.memory_allocated(), "torch_reserved": torch.cuda.memory_reserved(),
       "total_memory": torch.cuda.get_device_properties(0).total_memory,
       "metrics": {k: v for k, v in snap.metrics.items() if k.startswith("memory.")},
       "findings": [(f["id"], f["status"]) for f in snap.findings if f["id"].startswith("memory")],
       "trace_verdict": gate.last.verdict}
print(json.dumps(res, indent=1, default=str))
json.dump(res, open(f"{out}/snap_callback.json", "w"), indent=1, default=str)
