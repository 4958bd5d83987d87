"""A few training steps of a small CNN under torch.profiler: the trace perfgate gates on in CI.

    python ci/profile_smoke_test.py --out profile [--steps 8] [--amp]

Writes a run folder (one trace per process) with ProfilerStep#N markers, input shapes and
memory events. Runs on a GPU when one is there, else on the CPU. Replace the model and the data
with a slice of your own training job to gate on what you ship.
"""
import argparse

import torch
import torch.nn as nn
from torch.profiler import ProfilerActivity, profile, schedule, tensorboard_trace_handler


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="profile", help="folder for the trace files")
    parser.add_argument("--steps", type=int, default=8, help="profiled steps (after 1 wait and 2 warm-up)")
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--amp", action="store_true", help="automatic mixed precision (bfloat16 on CPU)")
    args = parser.parse_args()

    device = "cuda" if torch.cuda.is_available() else "cpu"
    torch.manual_seed(0)
    model = nn.Sequential(
        nn.Conv2d(3, 64, 3, padding=1), nn.ReLU(),
        nn.Conv2d(64, 128, 3, padding=1), nn.ReLU(),
        nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(128, 10),
    ).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    use_scaler = args.amp and device == "cuda"
    if hasattr(torch, "amp") and hasattr(torch.amp, "GradScaler"):  # PyTorch >= 2.3
        scaler = torch.amp.GradScaler("cuda", enabled=use_scaler)
    else:
        scaler = torch.cuda.amp.GradScaler(enabled=use_scaler)
    wait, warmup = 1, 2
    total = wait + warmup + args.steps
    data = torch.utils.data.TensorDataset(
        torch.randn(total * args.batch, 3, 64, 64), torch.randint(0, 10, (total * args.batch,)))
    loader = torch.utils.data.DataLoader(
        data, batch_size=args.batch, num_workers=2, pin_memory=device == "cuda", persistent_workers=True)

    activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if device == "cuda" else [])
    with profile(
        activities=activities,
        schedule=schedule(wait=wait, warmup=warmup, active=args.steps, repeat=1),
        on_trace_ready=tensorboard_trace_handler(args.out, use_gzip=True),
        record_shapes=True,
        profile_memory=True,
    ) as prof:
        for step, (inputs, targets) in enumerate(loader):
            if step >= total:
                break
            inputs = inputs.to(device, non_blocking=True)
            targets = targets.to(device, non_blocking=True)
            amp_dtype = torch.float16 if device == "cuda" else torch.bfloat16
            with torch.autocast(device_type=device, dtype=amp_dtype, enabled=args.amp):
                loss = nn.functional.cross_entropy(model(inputs), targets)
            optimizer.zero_grad(set_to_none=True)
            scaler.scale(loss).backward()
            scaler.step(optimizer)
            scaler.update()
            prof.step()
    print(f"trace written to {args.out}/ ({device}, {args.steps} profiled steps)")


if __name__ == "__main__":
    main()
