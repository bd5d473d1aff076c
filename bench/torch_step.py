#!/usr/bin/env python3
"""One MLP training step in PyTorch: the reference for bench/bench_step.c.

MLP 784 -> 256 -> 256 -> 2 with ReLU, MSE loss against random targets,
batch 4096, float32, Adam (lr 1e-3). A step is zero_grad, forward, backward
and optimizer.step. Prints median_ms=... and min_ms=... over the timed runs.

    /usr/bin/python3 bench/torch_step.py --threads 2 --runs 20 [--device cpu|gpu]

--device gpu runs on CUDA when this PyTorch has it (timed with a
synchronize after each step), else on the CPU; the first line says which.
"""
import argparse
import statistics
import sys
import time

BATCH, D_IN, D_H, D_OUT, WARMUP = 4096, 784, 256, 2, 3


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--device", choices=("cpu", "gpu"), default="cpu")
    args = ap.parse_args()

    try:
        import torch
        from torch import nn
    except ImportError as e:
        print(f"torch is not available: {e}")
        return 3

    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    dev = torch.device("cpu")
    if args.device == "gpu":
        if torch.cuda.is_available():
            dev = torch.device("cuda")
        else:
            print("no CUDA device in this PyTorch: the step runs on the CPU")

    def sync():
        if dev.type == "cuda":
            torch.cuda.synchronize()

    model = nn.Sequential(
        nn.Linear(D_IN, D_H), nn.ReLU(),
        nn.Linear(D_H, D_H), nn.ReLU(),
        nn.Linear(D_H, D_OUT),
    ).float().to(dev)
    x = torch.randn(BATCH, D_IN, dtype=torch.float32).to(dev)
    t = torch.randn(BATCH, D_OUT, dtype=torch.float32).to(dev)
    loss_fn = nn.MSELoss()
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)

    def step():
        opt.zero_grad()
        loss = loss_fn(model(x), t)
        loss.backward()
        opt.step()
        return loss

    where = torch.cuda.get_device_name(dev) if dev.type == "cuda" else f"cpu, threads {torch.get_num_threads()}"
    print(f"torch {torch.__version__}, {where}")
    for _ in range(WARMUP):
        step()
    sync()
    times = []
    for _ in range(args.runs):
        t0 = time.perf_counter()
        loss = step()
        sync()
        times.append((time.perf_counter() - t0) * 1e3)
    print(f"loss {loss.item():.4f} after {WARMUP + args.runs} steps")
    print(f"median_ms={statistics.median(times):.3f}")
    print(f"min_ms={min(times):.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
