#!/usr/bin/env python3
"""bmm_reference.py: cuBLAS's strided-batched GEMM through torch.bmm, whole call (host clock
around one bmm and a synchronise), median of 20 warm runs, beside clgemm-batched-bench.
Usage: bmm_reference.py [--fp64|--fp16|--bf16] BATCH,N ...   (FP32 with TF32 off by default)"""
import sys
import time

import torch


def main(argv):
    types = {"--fp64": torch.float64, "--fp16": torch.float16, "--bf16": torch.bfloat16}
    dtype = next((types[a] for a in argv if a in types), torch.float32)
    torch.backends.cuda.matmul.allow_tf32 = False
    for arg in (a for a in argv if "," in a):
        batch, n = (int(x) for x in arg.split(","))
        a = torch.rand(batch, n, n, device="cuda", dtype=dtype)
        b = torch.rand(batch, n, n, device="cuda", dtype=dtype)
        for _ in range(3):
            torch.bmm(a, b)
        torch.cuda.synchronize()
        times = []
        for _ in range(20):
            t0 = time.perf_counter()
            torch.bmm(a, b)
            torch.cuda.synchronize()
            times.append(time.perf_counter() - t0)
        t = sorted(times)[len(times) // 2]
        print(f"torch.bmm {str(dtype)[6:]} batch {batch} n {n}: {t * 1e6:.1f} us, "
              f"{2.0 * batch * n ** 3 / t * 1e-12:.2f} TFLOPS", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
