#!/usr/bin/env python3
"""oclgrind.py: runs tests/reliability/oclgrind_driver under Oclgrind and fails on any report.

Usage: oclgrind.py [options] DRIVER ARGS...
  --opt-disable        build kernels with -cl-opt-disable (Oclgrind 21.10's uninitialized-value
                       plugin aborts on LLVM's `freeze`, which the optimiser emits for regblock)
  --no-uninitialized   data races (and Oclgrind's always-on memory checks) only
  --break KIND         self-test: copy the kernels from --kernel-dir into a temporary folder,
                       break them on purpose (race, uninit, oob), point CLGEMM_KERNEL_DIR at the
                       copy, and pass only if Oclgrind reports that kind of error
  --kernel-dir DIR     the source cl/ folder (for --break)
  --define NAME=VALUE  build every kernel with -DNAME=VALUE (a kernel's option that is off by
                       default); CLGEMM_BUILD_OPTIONS from the caller's environment is dropped

A normal run passes when the driver exits 0 (every result equals the host reference) and
Oclgrind wrote nothing at all to stderr: any diagnostic, warning or fatal error fails it.
Exit 77 (meson: skipped) when oclgrind is not installed, unless REL_REQUIRE_OCLGRIND=1."""
import os
import re
import shutil
import subprocess
import sys
import tempfile

# Each deliberate break: file, text replaced, replacement, and the report Oclgrind must give.
BREAKS = {
    # No barrier between the last reads of a tile and the next phase's writes.
    "race": ("tiled.cl", "barrier(CLK_LOCAL_MEM_FENCE); /* the next phase overwrites the tiles */",
             "/* barrier removed */", r"data race"),
    # The accumulator starts uninitialised (checked at -O0: the optimiser would fold it away).
    "uninit": ("tiled.cl", "REAL acc = (REAL)0;", "REAL acc;", r"[Uu]ninitiali[sz]ed"),
    # Work-items past M or N compute and store anyway.
    "oob": ("naive.cl", "if (i >= M || j >= N) return;", "", r"Invalid (read|write)"),
}


def main():
    args = sys.argv[1:]
    opt_disable, uninitialized, brk, kernel_dir, defines = False, True, None, None, []
    while args and args[0].startswith("--"):
        a = args.pop(0)
        if a == "--opt-disable":
            opt_disable = True
        elif a == "--no-uninitialized":
            uninitialized = False
        elif a == "--break":
            brk = args.pop(0)
        elif a == "--kernel-dir":
            kernel_dir = args.pop(0)
        elif a == "--define":
            defines.append("-D" + args.pop(0))
        else:
            sys.exit(f"oclgrind.py: unknown option {a}")
    if not args:
        sys.exit(__doc__)
    oclgrind = shutil.which("oclgrind")
    if not oclgrind:
        print("oclgrind is not installed (Debian: apt-get install oclgrind)")
        sys.exit(1 if os.environ.get("REL_REQUIRE_OCLGRIND") == "1" else 77)

    env = dict(os.environ)
    env["CLGEMM_DEVICE"] = "oclgrind:0"
    env["CLGEMM_CACHE_DIR"] = "off"  # every program is built from source, under Oclgrind
    env.pop("CLGEMM_LOG", None)  # the library must print nothing: stderr is Oclgrind's alone
    env.pop("CLGEMM_BUILD_OPTIONS", None)
    if defines:
        env["CLGEMM_BUILD_OPTIONS"] = " ".join(defines)
    cmd = [oclgrind, "--data-races"]
    if uninitialized:
        cmd.append("--uninitialized")
    if opt_disable:
        cmd += ["--build-options", "-cl-opt-disable"]

    tmp = None
    if brk:
        if brk not in BREAKS or not kernel_dir:
            sys.exit("oclgrind.py: --break needs one of %s and --kernel-dir" % ", ".join(BREAKS))
        name, old, new, want = BREAKS[brk]
        tmp = tempfile.mkdtemp(prefix="clgemm-broken-kernels-")
        for f in os.listdir(kernel_dir):
            if f.endswith((".cl", ".h")):  # the kernel sources and their parts (gemm_args.h)
                shutil.copy(os.path.join(kernel_dir, f), tmp)
        path = os.path.join(tmp, name)
        with open(path) as f:
            text = f.read()
        if old not in text:
            shutil.rmtree(tmp)
            sys.exit(f"oclgrind.py: {name} no longer contains {old!r}: update BREAKS")
        with open(path, "w") as f:
            f.write(text.replace(old, new))
        env["CLGEMM_KERNEL_DIR"] = tmp
    try:
        proc = subprocess.run(cmd + args, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              universal_newlines=True, errors="replace")
    finally:
        if tmp:
            shutil.rmtree(tmp)
    out, err = proc.stdout, proc.stderr
    sys.stdout.write(out)
    reports = len(re.findall(r"^(Invalid|Uninitiali|Data race|OCLGRIND|Work-group divergence"
                             r"|Read-write data race|Write-write data race)", err, re.M))
    print(f"oclgrind.py: driver exit status {proc.returncode}, {len(err.splitlines())} line(s) "
          f"on stderr, {reports} report(s)")
    if brk:
        # The harness must see the deliberate break: a report of the right kind, and a failure.
        if re.search(BREAKS[brk][3], err) and (err.strip() or proc.returncode != 0):
            print(f"oclgrind.py: the '{brk}' break was reported, as it must be")
            print("\n".join(err.splitlines()[:12]))
            return 0
        print(f"oclgrind.py: the '{brk}' break went unreported")
        sys.stdout.write(err)
        return 1
    if err.strip():
        sys.stdout.write("---- oclgrind stderr ----\n" + err)
        return 1
    return 1 if proc.returncode != 0 else 0


if __name__ == "__main__":
    sys.exit(main())
