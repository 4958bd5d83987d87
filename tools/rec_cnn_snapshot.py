# Memory snapshots recorded for perfgate's tests on a lent H100 (PyTorch 2.11.0+cu130, 2026-11-27;
# tests/data/README.md), of a model the snapshot reader was not written against: a CNN (8 convolutions with
# batch norm), SGD with momentum, autocast FP16, 3 steps, at batch 16 and 48. argv[1]: the name suffix; the
# expandable-segments recording ran batch 16 alone under PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True.
# It ran as rec68_torch.py, the file name its snapshots' frames give.
import sys, pickle, time, traceback, torch, torch.nn as nn, torch.nn.functional as F
D = "/tmp/rec"; import os; os.makedirs(D, exist_ok=True)
dev = "cuda"
def net():
    L = []
    c = 3
    for w in (64, 128, 256, 512):
        L += [nn.Conv2d(c, w, 3, padding=1), nn.BatchNorm2d(w), nn.ReLU(), nn.Conv2d(w, w, 3, padding=1), nn.BatchNorm2d(w), nn.ReLU(), nn.MaxPool2d(2)]
        c = w
    return nn.Sequential(*L, nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(512, 1000))
def snap(batch, name, proto, steps=3):
    torch.cuda.empty_cache(); torch.cuda.reset_peak_memory_stats()
    torch.cuda.memory._record_memory_history(max_entries=100000, stacks="python")
    model = net().to(dev).to(memory_format=torch.channels_last)
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    for it in range(steps):
        x = torch.randn(batch, 3, 128, 128, device=dev).to(memory_format=torch.channels_last)
        y = torch.randint(0, 1000, (batch,), device=dev)
        with torch.autocast("cuda", dtype=torch.float16):
            loss = F.cross_entropy(model(x), y)
        loss.backward(); opt.step(); opt.zero_grad(set_to_none=True)
    torch.cuda.synchronize()
    print(name, "max_allocated", torch.cuda.max_memory_allocated(), "allocated", torch.cuda.memory_allocated(),
          "reserved", torch.cuda.memory_reserved(), flush=True)
    s = torch.cuda.memory._snapshot()
    with open(f"{D}/{name}.pickle", "wb") as f: pickle.dump(s, f, protocol=proto)
    torch.cuda.memory._record_memory_history(enabled=None)
    del model, opt; torch.cuda.empty_cache()
suffix = sys.argv[1]
for b, proto in ((16, 4), (48, 5)):
    t = time.time()
    try: snap(b, f"h100_cnn_snapshot_b{b}{suffix}", proto)
    except Exception: traceback.print_exc()
    print("took", time.time() - t, flush=True)
