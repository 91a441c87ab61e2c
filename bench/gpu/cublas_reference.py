#!/usr/bin/env python3
"""cublas_reference.py: the cuBLAS figure for comparison, through PyTorch, timed the way
clgemm-bench times clgemm: host clock around one product plus a device synchronise, median of
warm runs (and CUDA-event time for reference).

Usage: cublas_reference.py [--fp64|--tf32|--fp16|--bf16] M,N,K ...
Prints: cublas PREC M N K whole_TFLOPS event_TFLOPS
"""
import sys, time, statistics
import torch

def main(argv):
    prec = next((a[2:] for a in argv if a in ("--fp64", "--tf32", "--fp16", "--bf16")), "fp32")
    dtype = {"fp64": torch.float64, "fp16": torch.float16, "bf16": torch.bfloat16}.get(prec, torch.float32)
    torch.backends.cuda.matmul.allow_tf32 = prec == "tf32"
    shapes = [tuple(int(x) for x in a.split(",")) for a in argv if "," in a]
    for m, n, k in shapes:
        a = torch.randn(m, k, device="cuda", dtype=dtype)
        b = torch.randn(k, n, device="cuda", dtype=dtype)
        for _ in range(3):
            c = a @ b
        torch.cuda.synchronize()
        runs = 10 if m * n * k >= 2**33 else 30
        whole, ev = [], []
        for _ in range(runs):
            s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            t0 = time.perf_counter(); s.record(); c = a @ b; e.record(); torch.cuda.synchronize()
            whole.append(time.perf_counter() - t0); ev.append(s.elapsed_time(e) / 1e3)
        f = 2.0 * m * n * k
        print(f"cublas {prec} {m} {n} {k} {f / statistics.median(whole) / 1e12:.1f} "
              f"{f / statistics.median(ev) / 1e12:.1f}", flush=True)

if __name__ == "__main__":
    main(sys.argv[1:])
