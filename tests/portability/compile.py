#!/usr/bin/env python3
"""compile.py: compiles every kernel build the library could make on the recorded AMD and Intel
GPUs (portability-configs lists them) with the vendors' offline compilers, and fails on any
compile error. Intel: ocloc (Debian's intel-opencl-icd) for skl, tgllp, dg2-g10 and pvc. AMD: clang-14
to LLVM IR, linked with libclc-14's amdgcn library, then llc-14 once per gfx target; the assembly
gives VGPRs, SGPRs, scratch (spills) and occupancy. Identical builds are compiled once per target;
jobs run in parallel. A built-in default that spills fails the suite (KNOWN_SPILLS aside).
--pairwise (the meson suite, for CI's time) pairs transpose modes with
configurations instead of crossing them; without it every mode of every configuration is built
(what docs/PORTABILITY.md is made from). Results go to OUT/results.tsv, or OUT/--results
(docs/PORTABILITY.md is made from them by report.py). Nothing runs on any of these devices: this only proves the kernels compile for them.
Exit status: 0 all compiled, 1 a compile error, 77 (meson's skip) no compiler is installed."""
import argparse
import concurrent.futures
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

LIBCLC = "/usr/lib/clc/amdgcn--amdhsa.bc"

# Builds a compiler itself breaks on (an internal error of its back end, not an error in our
# source), each by target, exact options and the message: the suite counts them as known, lists
# them in results.tsv as "known-bug", notes one that compiles now, and fails on anything else.
KNOWN_BUGS = [
    # llc-14's AMDGPU register allocator on RDNA2; the same IR compiles for gfx906 and gfx90a.
    ("gfx1030", "-DTYPE_AB=1 -DTYPE_C=1 -DTRANSA=1 -DTRANSB=1 -DCONJA=0 -DCONJB=0 -DMWG=32 "
     "-DNWG=64 -DKWG=16 -DMDIMC=4 -DNDIMC=8 -DKWI=2 -DVWM=4 -DVWN=4",
     "register rewriting failed: cycle in copy bundle"),
]
# Built-in defaults may not spill (scratch on AMD, ocloc's "spilled around" on Intel): the suite
# fails on one that does, except these, each by target, substrings of its options and why.
KNOWN_SPILLS = [
    # Every regblock build for complex double spills on pvc, where ocloc compiles SIMD32 (36-94
    # bytes in the builds tried); Xe-HPC's complex-double default is the least of them
    # (src/families/regblock_defaults.c).
    ("pvc", ["-DTYPE_AB=3 ", "-DMWG=32 -DNWG=32 -DKWG=8 -DMDIMC=16 -DNDIMC=16 -DKWI=1 -DVWM=2 "
             "-DVWN=2"], "complex double spills on pvc at SIMD32 in every regblock build tried"),
]
AMD_TOOLS = ["clang-14", "llvm-link-14", "llc-14"]


def run(cmd, cwd=None):
    p = subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    return p.returncode, p.stdout


def amd_stats(asm):
    """VGPRs, SGPRs, scratch bytes, occupancy (waves per SIMD) and LDS of the one kernel."""
    def field(name):
        m = re.search(r"^\s*; %s: (\d+)" % name, asm, re.M)
        return m.group(1) if m else ""
    return {"vgprs": field("NumVgprs"), "sgprs": field("NumSgprs"),
            "scratch": field("ScratchSize"), "occupancy": field("Occupancy"),
            "lds": field("LDSByteSize")}


def compile_amd(job, work):
    """Front end and libclc link once, then llc for each gfx target of the job."""
    src, options, targets = job["src"], job["options"].split(), job["targets"]
    with tempfile.TemporaryDirectory(dir=work) as tmp:
        bc, linked = os.path.join(tmp, "k.bc"), os.path.join(tmp, "linked.bc")
        rc, log = run(["clang-14", "-O3", "-x", "cl", "-cl-std=CL1.2", "-target",
                       "amdgcn-amd-amdhsa", "-nogpulib", "-Xclang", "-finclude-default-header",
                       "-emit-llvm", "-c", *options, src, "-o", bc])
        if rc == 0:
            rc, log2 = run(["llvm-link-14", "--only-needed", bc, LIBCLC, "-o", linked])
            log += "".join(l + "\n" for l in log2.splitlines() if "different target triples" not in l)
        results = {}
        for t in targets:
            if rc != 0:
                results[t] = {"status": "error", "log": log}
                continue
            asm = os.path.join(tmp, t + ".s")
            trc, tlog = run(["llc-14", "-O3", "-march=amdgcn", "-mcpu=" + t, linked, "-o", asm])
            if trc != 0:
                results[t] = {"status": "error", "log": log + tlog}
                continue
            with open(asm) as f:
                stats = amd_stats(f.read())
            stats["status"] = "ok"
            stats["log"] = ""
            results[t] = stats
        return results


SPILL = re.compile(r"compiled SIMD(\d+) allocated (\d+) regs and spilled around (\d+)")


def compile_intel(job, work):
    """ocloc once per Intel target of the job."""
    results = {}
    for t in job["targets"]:
        with tempfile.TemporaryDirectory(dir=work) as tmp:
            rc, log = run(["ocloc", "compile", "-file", job["src"], "-device", t,
                           "-options", job["options"], "-out_dir", tmp, "-output", "k"])
        ok = rc == 0 and "Build succeeded" in log
        r = {"status": "ok" if ok else "error", "log": "" if ok else log}
        m = SPILL.search(log)
        if m:
            r.update(simd=m.group(1), regs=m.group(2), spill=m.group(3))
        results[t] = r
    return results


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--configs", required=True, help="the portability-configs program")
    ap.add_argument("--kernel-parts", required=True,
                    help="the kernel-parts program (the library's list of a kernel's parts)")
    ap.add_argument("--cl-dir", required=True, help="the kernel sources (cl/)")
    ap.add_argument("--out", required=True, help="folder for sources, logs and results.tsv")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--targets", help="comma-separated subset of the recorded targets")
    ap.add_argument("--results", default="results.tsv",
                    help="file name of the results in OUT (the meson suite's parts each write one)")
    ap.add_argument("--pairwise", action="store_true",
                    help="transpose modes paired with configurations and types, not crossed "
                         "(portability-configs --pairwise): about half the builds")
    args = ap.parse_args()

    have = {"ocloc": shutil.which("ocloc") is not None,
            "amdgcn": all(shutil.which(t) for t in AMD_TOOLS) and os.path.exists(LIBCLC)}
    missing = {"ocloc": "ocloc (Debian package intel-opencl-icd)",
               "amdgcn": "clang-14, llvm-link-14, llc-14 and %s (clang-14, llvm-14, libclc-14)"
                         % LIBCLC}
    for c, ok in have.items():
        if not ok:
            print("portability: %s not installed: its targets are skipped" % missing[c])
    if not any(have.values()):
        print("portability: no offline compiler installed (scripts/deps.sh installs them): skipped")
        return 77

    out = subprocess.run([args.configs, "--targets"], check=True, stdout=subprocess.PIPE,
                         text=True).stdout
    targets = [l.split("\t") for l in out.splitlines() if l]
    if args.targets:
        wanted = args.targets.split(",")
        targets = [t for t in targets if t[0] in wanted]
    os.makedirs(args.out, exist_ok=True)
    src_dir = os.path.join(args.out, "src")
    os.makedirs(src_dir, exist_ok=True)
    work = os.path.join(args.out, "tmp")
    os.makedirs(work, exist_ok=True)

    # One job per (compiler, file, options): the targets that build it and what it is.
    jobs, sources = {}, {}
    for key, compiler, _board in targets:
        if not have[compiler]:
            continue
        p = subprocess.run([args.configs] + (["--pairwise"] if args.pairwise else []) + [key],
                           stdout=subprocess.PIPE, text=True)
        if p.returncode != 0:
            print("portability: portability-configs %s failed" % key)
            return 1
        for line in p.stdout.splitlines():
            file, kernel, options, what = line.split("\t")
            if file not in sources:
                # As clgemm__kernel_source (src/build/program.c) makes it: the parts the library
                # lists for the file (kernel-parts), each followed by a newline.
                parts = subprocess.run([args.kernel_parts, file], check=True,
                                       stdout=subprocess.PIPE, text=True).stdout.split()
                text = ""
                for part in parts:
                    with open(os.path.join(args.cl_dir, part)) as f:
                        text += f.read() + "\n"
                sources[file] = os.path.join(src_dir, file)
                with open(sources[file], "w") as f:
                    f.write(text)
            job = jobs.setdefault((compiler, file, options), {
                "compiler": compiler, "file": file, "kernel": kernel, "options": options,
                "src": sources[file], "targets": [], "what": set(), "default_on": set()})
            if key not in job["targets"]:
                job["targets"].append(key)
            job["what"].add(what)
            if "(default" in what:  # a built-in default on this target (not just on another)
                job["default_on"].add(key)

    builds = sum(len(j["targets"]) for j in jobs.values())
    print("portability: %d builds (%d distinct sources+options) for %s, %d at a time"
          % (builds, len(jobs), ", ".join(t[0] for t in targets if have[t[1]]), args.jobs))
    start = time.time()
    failures = 0
    rows = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        futures = {pool.submit(compile_amd if j["compiler"] == "amdgcn" else compile_intel, j,
                               work): j for j in jobs.values()}
        for fut in concurrent.futures.as_completed(futures):
            j = futures[fut]
            for t, r in fut.result().items():
                known = [b for b in KNOWN_BUGS if b[0] == t and b[1] == j["options"]]
                if known and r["status"] != "ok" and known[0][2] in r["log"]:
                    r["status"] = "known-bug"
                    print("known compiler bug %s %s %s: %s" % (t, j["file"], j["options"],
                                                               known[0][2]))
                elif known and r["status"] == "ok":
                    # The crash depends on the exact IR (seen, then not, as the shared kernel
                    # code changed): a build that now compiles is good news, not a failure.
                    print("note: %s %s %s compiled although listed as a known compiler bug (%s)"
                          % (t, j["file"], j["options"], known[0][2]))
                elif known:
                    failures += 1
                    print("FAILED %s %s %s: listed as a known compiler bug (%s) but failed "
                          "otherwise\n%s" % (t, j["file"], j["options"], known[0][2], r["log"]))
                elif r["status"] != "ok":
                    failures += 1
                    print("FAILED %s %s %s\n%s" % (t, j["file"], j["options"], r["log"]))
                spilled = r.get("scratch", "") not in ("", "0") or r.get("spill", "") != ""
                if spilled and t in j["default_on"]:
                    known = [k for k in KNOWN_SPILLS
                             if k[0] == t and all(x in j["options"] for x in k[1])]
                    if known:
                        print("known spill %s %s: %s" % (t, j["options"], known[0][2]))
                    else:
                        failures += 1
                        print("FAILED %s %s %s: a built-in default spills (%s bytes)"
                              % (t, j["file"], j["options"], r.get("scratch") or r.get("spill")))
                rows.append((t, j["file"], j["kernel"], j["options"], " | ".join(sorted(j["what"])),
                             r["status"], r.get("vgprs", ""), r.get("sgprs", ""),
                             r.get("scratch", ""), r.get("occupancy", ""), r.get("lds", ""),
                             r.get("simd", ""), r.get("regs", ""), r.get("spill", "")))
    shutil.rmtree(work, ignore_errors=True)
    rows.sort()
    with open(os.path.join(args.out, args.results), "w") as f:
        f.write("target\tfile\tkernel\toptions\twhat\tstatus\tvgprs\tsgprs\tscratch\toccupancy\t"
                "lds\tintel_simd\tintel_regs\tintel_spill\n")
        for r in rows:
            f.write("\t".join(r) + "\n")
    print("portability: %d builds, %d failed, %.0f s; results in %s"
          % (len(rows), failures, time.time() - start, os.path.join(args.out, args.results)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
