#!/usr/bin/env python3
"""fp8_accuracy.py: how closely cuBLASLt's FP8 E4M3 product (torch._scaled_mm, C FP32, unit
scales) follows the exact product of the same FP8 inputs, with and without its fast
accumulation, at growing K: the largest error over all of C relative to sum_p |a_ip||b_pj|, the
measure clgemm-types-bench prints as 'err'. Inputs uniform in [-0.5, 0.5) rounded to E4M3.
Usage: fp8_accuracy.py M,N,K ... (K a multiple of 16, as cuBLASLt asks)   Prints: fp8-accuracy M N K default_err fast_err
"""
import sys
import torch


def worst(c, exact, scale):
    return ((c.double() - exact).abs() / scale).max().item()


for arg in sys.argv[1:]:
    m, n, k = (int(x) for x in arg.split(","))
    torch.manual_seed(k)
    a = (torch.rand(m, k, device="cuda") - 0.5).to(torch.float8_e4m3fn)
    b = (torch.rand(n, k, device="cuda") - 0.5).to(torch.float8_e4m3fn)
    ad, bd = a.double(), b.double()
    exact, scale = ad @ bd.t(), ad.abs() @ bd.abs().t()
    one = torch.tensor(1.0, device="cuda")
    errs = [worst(torch._scaled_mm(a, b.t(), scale_a=one, scale_b=one, out_dtype=torch.float32,
                                   use_fast_accum=fast), exact, scale) for fast in (False, True)]
    print(f"fp8-accuracy {m} {n} {k} {errs[0]:.2e} {errs[1]:.2e}", flush=True)
