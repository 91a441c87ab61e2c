#!/usr/bin/env python3
"""ptxas_report.py: what ptxas makes of each GEMM kernel the OpenCL driver built, as the driver
itself compiles it: registers, spills and ptxas's performance notes (C7514: wgmma instructions
serialised). It reads the library's disk cache (CLGEMM_CACHE_DIR of a run that built the
kernels: the PTX the driver returned, with its `.reqntid`, patched to sm_90a where the family
asks) and runs `ptxas -v -arch=sm_90a` on the PTX of each tensor-core and register-blocked kernel.

Usage: ptxas_report.py CACHE_DIR [PTXAS]   (PTXAS: default /usr/local/cuda/bin/ptxas)
"""
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kernel_cache import cached_kernels  # noqa: E402

SHOWN = ("TYPE_AB", "MWG", "NWG", "KWG", "STAGES", "PERSIST", "STAGE_C", "STREAMK", "SETMAXNREG",
         "WG_TYPE", "TRANSA", "TRANSB", "SPLIT3", "VLOAD", "GROUP_M")


def main():
    cache = sys.argv[1]
    ptxas = sys.argv[2] if len(sys.argv) > 2 else "/usr/local/cuda/bin/ptxas"
    for f, key, binary, name in cached_kernels(cache, ("tma", "wgmma", "mma", "regblock")):
        opts = " ".join("%s=%s" % m for m in re.findall(r"-D(%s)=(\d+)" % "|".join(SHOWN), key))
        with tempfile.NamedTemporaryFile("wb", suffix=".ptx") as src:
            src.write(binary.split(b"\0")[0])
            src.flush()
            r = subprocess.run([ptxas, "-arch=sm_90a", "-v", "-o", os.devnull, src.name],
                               capture_output=True, text=True)
        log = r.stdout + r.stderr
        regs = re.search(r"Used (\d+) registers", log)
        spill = re.search(r"(\d+) bytes spill stores", log)
        notes = sorted(set(re.findall(r"\((C7\d+)\)", log)))
        print("%s %s: %s registers, %s bytes spilled%s%s" % (
            name, opts, regs.group(1) if regs else "?", spill.group(1) if spill else "?",
            ", notes " + " ".join(notes) if notes else "",
            "" if r.returncode == 0 else ", ptxas failed"))


if __name__ == "__main__":
    main()
