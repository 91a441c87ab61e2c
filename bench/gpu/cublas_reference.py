#!/usr/bin/env python3
"""cublas_reference.py: the cuBLAS figure for comparison, through PyTorch, timed the way
clgemm-bench times clgemm: host clock around one product plus a device synchronise, median of
warm runs (and CUDA-event time for reference).

Usage: cublas_reference.py [--fp64|--tf32|--fp16|--bf16|--int8|--e4m3|--e4m3b] [--fast]
                           [--trans XY] M,N,K ...
--int8: torch._int_mm (cuBLASLt, INT8 into INT32); --e4m3 / --e4m3b: torch._scaled_mm (cuBLASLt,
FP8 E4M3 into FP32 / BF16, unit scales; --fast: its use_fast_accum, the tensor cores' own
accumulation throughout, as clgemm's kernel does, where the default adds partial sums into FP32
registers along K). Both take A row-major and B column-major, so both operands K-major:
clgemm's row-major NT (clgemm-types-bench --trans NT). --trans XY (X, Y each N or T; the
floating-point types): row-major op(A) = A^T where X is T (A stored K x M), op(B) = B^T where Y is
T, as clgemm-types-bench --trans XY.
Prints: cublas PREC[-XY] M N K whole_TFLOPS event_TFLOPS   (TOPS for --int8; -XY unless NN)
"""
import sys, time, statistics
import torch

FLOAT = {"fp64": torch.float64, "fp16": torch.float16, "bf16": torch.bfloat16}
LOWP = ("int8", "e4m3", "e4m3b")


def operands(prec, m, n, k, fast=False, trans="NN"):
    """A (m x k) and the product to time, on random data in each type's range."""
    if prec == "int8":
        a = torch.randint(-128, 128, (m, k), device="cuda", dtype=torch.int8)
        b = torch.randint(-128, 128, (n, k), device="cuda", dtype=torch.int8).t()
        return lambda: torch._int_mm(a, b)
    if prec in ("e4m3", "e4m3b"):
        a = (torch.rand(m, k, device="cuda") - 0.5).to(torch.float8_e4m3fn)
        b = (torch.rand(n, k, device="cuda") - 0.5).to(torch.float8_e4m3fn).t()
        one = torch.tensor(1.0, device="cuda")
        out = torch.float32 if prec == "e4m3" else torch.bfloat16
        return lambda: torch._scaled_mm(a, b, scale_a=one, scale_b=one, out_dtype=out,
                                        use_fast_accum=fast)
    dtype = FLOAT.get(prec, torch.float32)
    def stored(rows, cols, transposed):  # op(X) of rows x cols, stored transposed or not
        if transposed:
            return torch.randn(cols, rows, device="cuda", dtype=dtype).t()
        return torch.randn(rows, cols, device="cuda", dtype=dtype)
    a = stored(m, k, trans[0] == "T")
    b = stored(k, n, trans[1] == "T")
    return lambda: a @ b


def main(argv):
    flags = ("--fp64", "--tf32", "--fp16", "--bf16") + tuple("--" + p for p in LOWP)
    prec = next((a[2:] for a in argv if a in flags), "fp32")
    torch.backends.cuda.matmul.allow_tf32 = prec == "tf32"
    shapes = [tuple(int(x) for x in a.split(",")) for a in argv if "," in a]
    trans = argv[argv.index("--trans") + 1].upper() if "--trans" in argv else "NN"
    if len(trans) != 2 or set(trans) - set("NT") or (trans != "NN" and prec in LOWP):
        sys.exit(f"--trans {trans}: two of N and T, floating-point types only")
    name = prec + ("-fast" if "--fast" in argv and prec.startswith("e4m3") else "")
    name += "" if trans == "NN" else "-" + trans
    for m, n, k in shapes:
        try:
            product = operands(prec, m, n, k, "--fast" in argv, trans)
            for _ in range(3):
                product()
        except (RuntimeError, TypeError) as ex:  # a shape or type this build refuses
            print(f"cublas {prec} {m} {n} {k} failed: {ex}", flush=True)
            continue
        torch.cuda.synchronize()
        runs = 10 if m * n * k >= 2**33 else 30
        whole, ev = [], []
        for _ in range(runs):
            s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            t0 = time.perf_counter(); s.record(); product(); e.record(); torch.cuda.synchronize()
            whole.append(time.perf_counter() - t0); ev.append(s.elapsed_time(e) / 1e3)
        f = 2.0 * m * n * k
        print(f"cublas {name} {m} {n} {k} {f / statistics.median(whole) / 1e12:.1f} "
              f"{f / statistics.median(ev) / 1e12:.1f}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
