#!/usr/bin/env python3
"""cublas_kernels.py: which kernels cuBLAS launches for a product (names and CUDA time from
torch.profiler), to see the tile, split and slicing cuBLAS picks for a shape.
Usage: cublas_kernels.py [--fp64] M,N,K ... | BATCH,N,N,N (4 numbers: torch.bmm)"""
import sys

import torch
from torch.profiler import ProfilerActivity, profile


def main(argv):
    dtype = torch.float64 if "--fp64" in argv else torch.float32
    torch.backends.cuda.matmul.allow_tf32 = False
    for arg in (a for a in argv if "," in a):
        dims = [int(x) for x in arg.split(",")]
        if len(dims) == 4:
            b, m, n, k = dims
            x = torch.rand(b, m, k, device="cuda", dtype=dtype)
            y = torch.rand(b, k, n, device="cuda", dtype=dtype)
            f = lambda: torch.bmm(x, y)
        else:
            m, n, k = dims
            x = torch.rand(m, k, device="cuda", dtype=dtype)
            y = torch.rand(k, n, device="cuda", dtype=dtype)
            f = lambda: x @ y
        for _ in range(3):
            f()
        torch.cuda.synchronize()
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            for _ in range(5):
                f()
            torch.cuda.synchronize()
        print(f"== {arg} {str(dtype)[6:]}")
        for e in prof.key_averages():
            if e.device_type.name == "CUDA" or "cuda" in str(e.device_type).lower():
                print(f"  {e.count:3d} x {e.device_time_total / max(e.count, 1):9.1f} us  {e.key[:150]}")


if __name__ == "__main__":
    main(sys.argv[1:])
