#!/usr/bin/env python3
"""ptx_launch.py: launches a tensor-core GEMM kernel that the OpenCL driver built, through the
CUDA driver (CuPy), so that Nsight Compute, which profiles CUDA launches, can read its counters.

It takes the kernel from the library's disk cache (CLGEMM_CACHE_DIR of a run that built it: the
PTX the driver returned, patched to sm_90a for wgmma), sets the global-offset registers that
OpenCL's get_global_id reads (%envreg*) to 0, and launches it on the grid OpenCL uses
(ceil(M/MWG) x ceil(N/NWG) work-groups of the kernel's required size) for the column-major
FP16 problem M x N x K (C FP16 unless the key says C_INPUT=0), alpha 1, beta 0. It checks C
against CuPy's product, then times `runs` launches with CUDA events.

Usage: ptx_launch.py CACHE_DIR M N K [runs]
MAXNREG=N in the environment adds `.maxnreg N` to the entry (a register cap, as the family's
PTX patch can), to see what fewer registers per thread would let co-reside.
"""
import glob
import os
import re
import struct
import sys
import tempfile

import cupy as cp
import numpy as np
from kernel_cache import cached_kernels


def opt(key, name, default=None):
    m = re.search(r"-D%s=(\d+)" % name, key)
    return int(m.group(1)) if m else default


def main():
    d, M, N, K = sys.argv[1], *map(int, sys.argv[2:5])
    runs = int(sys.argv[5]) if len(sys.argv) > 5 else 10
    found = list(cached_kernels(d))
    if len(found) != 1:
        sys.exit("want exactly one GEMM kernel in %s, found %d" % (d, len(found)))
    f, key, binary, name = found[0]
    opts = " ".join(w for w in key.split() if w.startswith("-D") or w.startswith("-cl"))
    print("kernel %s from %s\n  options: %s" % (name, f, opts))
    ptx = binary.decode("latin1")
    if not ptx.lstrip().startswith("//") and ".version" not in ptx[:4096]:
        sys.exit("the cached binary is not PTX text")
    ptx, n_env = re.subn(r"%envreg\d+", "0", ptx)
    threads = int(re.search(r"\.reqntid (\d+)", ptx).group(1))
    cap = int(os.environ.get("MAXNREG", "0"))
    if cap:
        ptx, n = re.subn(r"(\.reqntid [^\n]*\n)", r"\1.maxnreg %d\n" % cap, ptx, count=1)
        print("  .maxnreg %d added: %d" % (cap, n))
    mwg, nwg = opt(key, "MWG"), opt(key, "NWG")
    ta, tb, c_in = opt(key, "TRANSA", 0), opt(key, "TRANSB", 0), opt(key, "C_INPUT", 1)
    print("  envreg uses set to 0: %d; %d threads, tile %d x %d, TRANSA %d TRANSB %d C_INPUT %d"
          % (n_env, threads, mwg, nwg, ta, tb, c_in))
    with tempfile.NamedTemporaryFile("w", suffix=".ptx", delete=False) as t:
        t.write(ptx)
    mod = cp.RawModule(path=t.name)
    fn = mod.get_function(name)
    try:
        at = fn.attributes
        print("  CUDA attributes: regs %d, static shared %d B, max threads %d"
              % (at["num_regs"], at["shared_size_bytes"], at["max_threads_per_block"]))
        occ = cp.cuda.driver.occupancyMaxActiveBlocksPerMultiprocessor(fn.kernel.ptr, threads, 0)
        print("  CUDA occupancy query: %d blocks per SM" % occ)
    except Exception as e:  # attribute names differ between CuPy versions
        print("  (attributes unavailable: %s)" % e)
    rng = cp.random.default_rng(1)
    a = rng.uniform(-1, 1, M * K, dtype=cp.float32).astype(cp.float16)
    b = rng.uniform(-1, 1, K * N, dtype=cp.float32).astype(cp.float16)
    c = cp.zeros(M * N, dtype=cp.float16 if c_in else cp.float32)
    lda = K if ta else M
    ldb = N if tb else K
    i32, u64, f32 = np.int32, np.uint64, np.float32
    args = (i32(M), i32(N), i32(K), f32(1), f32(0), a.view(cp.uint16), u64(0), i32(lda),
            b.view(cp.uint16), u64(0), i32(ldb), c, u64(0), i32(M), u64(0), u64(0), u64(0),
            i32(1), u64(0))
    grid = ((M + mwg - 1) // mwg, (N + nwg - 1) // nwg, 1)
    fn(grid, (threads, 1, 1), args)
    cp.cuda.Device().synchronize()
    opa = a.reshape(M, K) if ta else a.reshape(K, M).T
    opb = b.reshape(K, N) if tb else b.reshape(N, K).T
    ref = opa.astype(cp.float32) @ opb.astype(cp.float32)
    got = c.reshape(N, M).T.astype(cp.float32)
    err = float(cp.max(cp.abs(got - ref)) / cp.max(cp.abs(ref)))
    print("  max |C - CuPy| / max |C|: %.2e" % err)
    times = []
    for _ in range(runs):
        e0, e1 = cp.cuda.Event(), cp.cuda.Event()
        e0.record()
        fn(grid, (threads, 1, 1), args)
        e1.record()
        e1.synchronize()
        times.append(cp.cuda.get_elapsed_time(e0, e1))
    ms = float(np.median(times))
    print("  kernel time median of %d: %.3f ms, %.1f TFLOPS" % (runs, ms, 2.0 * M * N * K / ms * 1e-9))


if __name__ == "__main__":
    main()
