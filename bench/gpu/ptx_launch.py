#!/usr/bin/env python3
"""ptx_launch.py: launches a GEMM kernel that the OpenCL driver built, through the CUDA driver
(CuPy), so that Nsight Compute, which profiles CUDA launches, can read its counters.

It takes the kernel from the library's disk cache (CLGEMM_CACHE_DIR of a run that built it: the
PTX the driver returned, patched to sm_90a where the family asks), sets the global-offset
registers that OpenCL's get_global_id reads (%envreg*) to 0, and launches it on the grid OpenCL
uses (ceil(M/MWG) x ceil(N/NWG) work-groups of the kernel's required size, `.reqntid`) for the
column-major problem M x N x K (a kernel built with LINEAR_TILES=1, which numbers its tiles along
a 1-D grid: all ceil(M/MWG) * ceil(N/NWG) of them along the first dimension) in the kernel's types (TYPE_AB: FP32, FP64 or FP16; C as TYPE_C,
or FP32 where a tensor-core key says C_INPUT=0), alpha 1, beta 0, one layer (no split K). It
checks C against CuPy's product, then times `runs` launches with CUDA events. Families: wgmma,
mma (tensor cores) and regblock (CUDA cores); tma kernels take tensor maps and are not served.

Usage: ptx_launch.py CACHE_DIR M N K [runs]
MATCH=REGEX in the environment picks, among several cached kernels, those whose build key
matches (exactly one must remain). MAXNREG=N adds `.maxnreg N` to the entry (a register cap, as
the family's PTX patch can), to see what fewer registers per thread would let co-reside.
"""
import os
import re
import sys
import tempfile

import cupy as cp
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kernel_cache import cached_kernels  # noqa: E402

# cl/types.cl's ids of the types served here: storage dtype and the REAL of alpha and beta.
STORAGE = {0: cp.float32, 1: cp.float64, 4: cp.float16}


def opt(key, name, default=None):
    m = re.search(r"-D%s=(\d+)" % name, key)
    return int(m.group(1)) if m else default


def pick_kernel(d):
    pattern = re.compile(os.environ.get("MATCH", ""))
    found = [k for k in cached_kernels(d, ("wgmma", "mma", "regblock")) if pattern.search(k[1])]
    if len(found) != 1:
        sys.exit("want exactly one GEMM kernel matching MATCH in %s, found %d" % (d, len(found)))
    return found[0]


def main():
    d, M, N, K = sys.argv[1], *map(int, sys.argv[2:5])
    runs = int(sys.argv[5]) if len(sys.argv) > 5 else 10
    f, key, binary, name = pick_kernel(d)
    opts = " ".join(w for w in key.split() if w.startswith("-D") or w.startswith("-cl"))
    print("kernel %s from %s\n  options: %s" % (name, f, opts))
    ptx = binary.split(b"\0")[0].decode("latin1")
    if ".version" not in ptx[:4096]:
        sys.exit("the cached binary is not PTX text")
    ptx, n_env = re.subn(r"%envreg\d+", "0", ptx)
    block = tuple(int(x) for x in re.search(r"\.reqntid ([\d, ]+)", ptx).group(1).split(","))
    block = (block + (1, 1))[:3]
    cap = int(os.environ.get("MAXNREG", "0"))
    if cap:
        ptx, n = re.subn(r"(\.reqntid [^\n]*\n)", r"\1.maxnreg %d\n" % cap, ptx, count=1)
        print("  .maxnreg %d added: %d" % (cap, n))
    mwg, nwg = opt(key, "MWG"), opt(key, "NWG")
    ta, tb = opt(key, "TRANSA", 0), opt(key, "TRANSB", 0)
    tab = opt(key, "TYPE_AB", 4 if name != "clgemm_regblock" else 0)
    tc = opt(key, "TYPE_C", tab)
    if name != "clgemm_regblock" and tab == 4 and opt(key, "C_INPUT", 1) == 0:
        tc = 0
    if tab not in STORAGE or tc not in STORAGE:
        sys.exit("types %d / %d are not served here" % (tab, tc))
    print("  envreg uses set to 0: %d; block %s, tile %d x %d, TRANSA %d TRANSB %d, types %d/%d"
          % (n_env, block, mwg, nwg, ta, tb, tab, tc))
    with tempfile.NamedTemporaryFile("w", suffix=".ptx", delete=False) as t:
        t.write(ptx)
    fn = cp.RawModule(path=t.name).get_function(name)
    try:
        at = fn.attributes
        print("  CUDA attributes: regs %d, static shared %d B, max threads %d"
              % (at["num_regs"], at["shared_size_bytes"], at["max_threads_per_block"]))
        occ = cp.cuda.driver.occupancyMaxActiveBlocksPerMultiprocessor(
            fn.kernel.ptr, block[0] * block[1] * block[2], 0)
        print("  CUDA occupancy query: %d blocks per SM" % occ)
    except Exception as e:  # attribute names differ between CuPy versions
        print("  (attributes unavailable: %s)" % e)
    rng = cp.random.default_rng(1)
    a = rng.uniform(-1, 1, M * K, dtype=cp.float64).astype(STORAGE[tab])
    b = rng.uniform(-1, 1, K * N, dtype=cp.float64).astype(STORAGE[tab])
    c = cp.zeros(M * N, dtype=STORAGE[tc])
    lda = K if ta else M
    ldb = N if tb else K
    i32, u64 = np.int32, np.uint64
    real = np.float64 if tab == 1 else np.float32
    view = (lambda x: x.view(cp.uint16)) if tab == 4 else (lambda x: x)
    args = (i32(M), i32(N), i32(K), real(1), real(0), view(a), u64(0), i32(lda), view(b),
            u64(0), i32(ldb), c, u64(0), i32(M), u64(0), u64(0), u64(0), i32(1), u64(0))
    grid = ((M + mwg - 1) // mwg, (N + nwg - 1) // nwg, 1)
    if opt(key, "LINEAR_TILES", 0):
        grid = (grid[0] * grid[1], 1, 1)
    print("  grid %s" % (grid,))
    fn(grid, block, args)
    cp.cuda.Device().synchronize()
    opa = a.reshape(M, K) if ta else a.reshape(K, M).T
    opb = b.reshape(K, N) if tb else b.reshape(N, K).T
    ref = opa.astype(cp.float64) @ opb.astype(cp.float64)
    got = c.reshape(N, M).T.astype(cp.float64)
    err = float(cp.max(cp.abs(got - ref)) / cp.max(cp.abs(ref)))
    print("  max |C - CuPy| / max |C|: %.2e" % err)
    times = []
    for _ in range(runs):
        e0, e1 = cp.cuda.Event(), cp.cuda.Event()
        e0.record()
        fn(grid, block, args)
        e1.record()
        e1.synchronize()
        times.append(cp.cuda.get_elapsed_time(e0, e1))
    ms = float(np.median(times))
    print("  kernel time median of %d: %.3f ms, %.1f TFLOPS" % (runs, ms, 2.0 * M * N * K / ms * 1e-9))


if __name__ == "__main__":
    main()
