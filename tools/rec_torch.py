import os, time, pickle, gzip, json, traceback
import torch, torch.nn as nn, torch.nn.functional as F
from torch.profiler import profile, ProfilerActivity, schedule
D = "/tmp/rec"; os.makedirs(D, exist_ok=True)
dev = "cuda"
def save(prof, name):
    p = f"{D}/{name}.pt.trace.json"
    prof.export_chrome_trace(p)
    with open(p, "rb") as f, gzip.open(p + ".gz", "wb", compresslevel=9) as g: g.write(f.read())
    os.remove(p); print("saved", name, os.path.getsize(p + ".gz"), flush=True)

# 1. Precision mix on Hopper: FP8 (_scaled_mm e4m3 and e5m2), BF16, FP16, TF32, FP32 FFMA GEMMs, SDPA flash attn.
def precision_mix():
    M = N = K = 4096
    a = torch.randn(M, K, device=dev); b = torch.randn(N, K, device=dev)
    a8 = a.to(torch.float8_e4m3fn); b8 = b.to(torch.float8_e4m3fn).t()
    a5 = a.to(torch.float8_e5m2)
    one = torch.tensor(1.0, device=dev)
    ab = a.bfloat16(); bb = b.bfloat16(); ah = a.half(); bh = b.half()
    q = torch.randn(8, 16, 2048, 128, device=dev, dtype=torch.bfloat16)
    lin = nn.Linear(4096, 4096, device=dev, dtype=torch.bfloat16)
    def step():
        with torch.profiler.record_function("fp8_gemm"):
            torch._scaled_mm(a8, b8, scale_a=one, scale_b=one, out_dtype=torch.bfloat16)
        with torch.profiler.record_function("fp8_e5m2_gemm"):
            try: torch._scaled_mm(a5, b8, scale_a=one, scale_b=one, out_dtype=torch.bfloat16)
            except Exception as e: print("e5m2", e)
        with torch.profiler.record_function("bf16_gemm"):
            ab @ bb.t(); lin(ab)
        with torch.profiler.record_function("fp16_gemm"):
            ah @ bh.t()
        torch.backends.cuda.matmul.allow_tf32 = True
        with torch.profiler.record_function("tf32_gemm"):
            a @ b.t()
        torch.backends.cuda.matmul.allow_tf32 = False
        with torch.profiler.record_function("fp32_gemm"):
            a @ b.t()
        with torch.profiler.record_function("attention"):
            F.scaled_dot_product_attention(q, q, q, is_causal=True)
        with torch.profiler.record_function("elementwise"):
            (ab * 2 + 1).relu_(); ab.to(torch.float32).sum()
        torch.cuda.synchronize()
    for _ in range(3): step()
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], record_shapes=True,
                 schedule=schedule(wait=0, warmup=1, active=4), on_trace_ready=lambda p: save(p, "h200_precision_mix")) as prof:
        for _ in range(5): step(); prof.step()

# 2. torch.compile(mode="reduce-overhead"): CUDA graphs, a small MLP/attention block, training steps.
class Block(nn.Module):
    def __init__(s, d=1024, h=16):
        super().__init__(); s.ln1 = nn.LayerNorm(d); s.attn = nn.MultiheadAttention(d, h, batch_first=True)
        s.ln2 = nn.LayerNorm(d); s.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))
    def forward(s, x):
        y = s.ln1(x); x = x + s.attn(y, y, y, need_weights=False)[0]
        return x + s.mlp(s.ln2(x))
def compiled():
    torch.backends.cuda.matmul.allow_tf32 = True
    model = nn.Sequential(*[Block() for _ in range(4)]).to(dev).to(torch.bfloat16)
    cm = torch.compile(model, mode="reduce-overhead")
    x = torch.randn(8, 512, 1024, device=dev, dtype=torch.bfloat16)
    with torch.no_grad():
        for _ in range(5): cm(x)
        torch.cuda.synchronize()
        with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], record_shapes=True,
                     schedule=schedule(wait=0, warmup=1, active=5), on_trace_ready=lambda p: save(p, "h200_compile_cudagraphs")) as prof:
            for _ in range(6):
                cm(x); torch.cuda.synchronize(); prof.step()

# 3. Memory snapshots of a Transformer training step (AdamW), small and 2.8x larger batch; an OOM recorded.
def train_snapshot(batch, name, oom=False, proto=None):
    torch.cuda.empty_cache(); torch.cuda.reset_peak_memory_stats()
    torch.cuda.memory._record_memory_history(max_entries=200000, stacks="python")
    model = nn.Sequential(*[Block(768, 12) for _ in range(6)], nn.Linear(768, 32000)).to(dev)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    tgt = torch.randint(0, 32000, (batch, 256), device=dev)
    for it in range(3):
        x = torch.randn(batch, 256, 768, device=dev)
        with torch.autocast("cuda", dtype=torch.bfloat16):
            out = model(x)
            loss = F.cross_entropy(out.float().view(-1, 32000), tgt.view(-1))
        loss.backward(); opt.step(); opt.zero_grad(set_to_none=True)
    if oom:
        try: torch.empty(int(400e9), dtype=torch.uint8, device=dev)
        except torch.OutOfMemoryError as e: print("oom recorded", str(e)[:200])
    torch.cuda.synchronize()
    print(name, "max_allocated", torch.cuda.max_memory_allocated(), "allocated", torch.cuda.memory_allocated(),
          "reserved", torch.cuda.memory_reserved(), flush=True)
    snap = torch.cuda.memory._snapshot()
    with open(f"{D}/{name}.pickle", "wb") as f: pickle.dump(snap, f, protocol=proto or 4)
    torch.cuda.memory._record_memory_history(enabled=None)
    del model, opt; torch.cuda.empty_cache()

for fn in (precision_mix, compiled, lambda: train_snapshot(8, "h200_snapshot_b8", oom=True),
           lambda: train_snapshot(32, "h200_snapshot_b32", proto=5)):
    t = time.time()
    try: fn()
    except Exception: traceback.print_exc()
    print("took", time.time() - t, flush=True)
