#!/usr/bin/env python3
"""test_driver.py: checks bench/gpu/run.sh without a GPU. Every binary and python3 are stand-ins
that print their arguments, so each suite's output shows the commands it would run; the test
asserts that each suite's header names the commit the build records, the problems each suite
promises (in particular the tensor-cores suite: FP16, BF16, TF32 and 3xTF32 at 8192^2, 4096^2,
2048^2 and 4097^2, FP16 and BF16 with a side of 64, the FP16 and BF16 batches of 1000 x 256^3,
and cuBLAS / torch.bmm for all of them in the same run; the eight-bit suite's cuBLASLt
references beside its problems), that TC_ENV reaches the clgemm side, that FACTOR_SIZES and
FACTOR_NB reach the lapack-factor suite, and that an unknown suite or no suite is refused.
Prints "N passed, N failed"; exit 1 on failure."""
import os
import stat
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BINARIES = ["bench/clgemm-bench", "bench/clgemm-types-bench", "bench/clgemm-batched-bench",
            "bench/clgemm-overhead", "bench/clgemm-blas-overhead", "bench/clgemm-multi-bench",
            "bench/clgemm-lapack-factor-bench", "tools/clgemm-tune"] + [
    f"tests/test_{t}" for t in ("gemm", "split", "batched", "types", "faults", "invalid", "unit",
                                "tensor_cores", "pack", "tma")]
# A stand-in prints a line that the suites' filters keep ("s " starts a clgemm-bench row), with
# TC_ENV's variable when it is set.
STUB = '#!/bin/sh\necho "s  RAN $(basename "$0") $* ${CLGEMM_KSPLIT:+[KSPLIT=$CLGEMM_KSPLIT]}"\n'


def squares(*sizes):
    return [f"{n},{n},{n}" for n in sizes]


TC = squares(8192, 4096, 2048, 4097)
# The narrow FP16/BF16 shapes (one side of 64) the suite also times.
NARROW = ["8192,64,8192", "64,8192,8192"]
# The FP64 sets the fp64-sweep suite checks and times, from the list it reads.
with open(os.path.join(ROOT, "bench/gpu/fp64_sets.txt")) as f:
    FP64_SETS = ["mma:MWG={},NWG={},KWG={},WM={},WN={},STAGES={}".format(*line.split())
                 for line in f if line.strip() and not line.startswith("#")]
EXPECT = {
    "tensor-cores": [f"clgemm-types-bench {' '.join(f'{m}:{s}' for m in ('h', 'b') for s in TC + NARROW)} "
                     f"{' '.join(f'{m}:{s}' for m in ('tf32', '3xtf32') for s in TC)}",
                     "clgemm-batched-bench --runs 20 h:1000,256 b:1000,256",
                     *(f"cublas_reference.py {p}{' '.join(TC + NARROW)}" for p in ("--fp16 ", "--bf16 ")),
                     *(f"cublas_reference.py {p}{' '.join(TC)}" for p in ("--tf32 ", "")),
                     "bmm_reference.py --fp16 1000,256", "bmm_reference.py --bf16 1000,256"],
    "stream-k": ["clgemm-types-bench --check h:1031,517,263 h:2000,1500,1000", "ptxas_report.py",
                 "cublas_reference.py --fp16 8192,8192,8192 10240,10240,10240 4097,4097,4097",
                 "cublas_reference.py --tf32 8192,8192,8192 10240,10240,10240"],
    "tf32-registers": ["clgemm-types-bench tf32:8192,8192,8192 tf32:4096,4096,4096 tf32:2048,2048,2048 "
                       "3xtf32:8192,8192,8192 3xtf32:4096,4096,4096 3xtf32:2048,2048,2048",
                       "cublas_reference.py --tf32 8192,8192,8192 4096,4096,4096 2048,2048,2048",
                       "cublas_reference.py 8192,8192,8192 4096,4096,4096 2048,2048,2048"],
    "wgmma": ["clgemm-types-bench --force wgmma:MWG=128,NWG=128,KWG=16,WM=64,WN=128,STAGES=6 "
              + " ".join(f"h:{s}" for s in TC),
              "--force wgmma:MWG=128,NWG=256,KWG=16,WM=64,WN=256,STAGES=4 "
              + " ".join(f"h:{s}" for s in TC),
              "--force mma:MWG=128,NWG=128,KWG=32,WM=64,WN=64,STAGES=3",
              "--force wgmma:MWG=128,NWG=256,KWG=8,WM=64,WN=256,STAGES=4 tf32:8192,8192,8192",
              "cublas_reference.py --fp16 " + " ".join(TC), "cublas_reference.py --tf32 8192,8192,8192"],
    "fp32-shapes": ["clgemm-bench --runs 20 --layout row --precision s --shape 4096,4096,4096 "
                    "--shape 4097,4097,4097 --shape 2047,2047,2047 --shape 8192,64,8192 "
                    "--shape 64,8192,8192 --shape 256,256,16384",
                    "cublas_reference.py 4096,4096,4096 4097,4097,4097 2047,2047,2047 "
                    "8192,64,8192 64,8192,8192 256,256,16384",
                    "--shape 128,128,128"],
    # Every candidate of the list forced at both squares in one process, the default first
    # and last, cuBLAS FP32 at the same squares, and the odd shape in NN and TT.
    "fp32-sweep": ["clgemm-types-bench --force regblock:MWG=256,NWG=128,KWG=8,MDIMC=16,NDIMC=16,"
                   "KWI=8,VWM=4,VWN=4 s:4096,4096,4096 s:8192,8192,8192 --force regblock:",
                   *(f"--force regblock:{p} s:4096,4096,4096 s:8192,8192,8192" for p in (
                       "MWG=256,NWG=128,KWG=32,MDIMC=16,NDIMC=16,KWI=8,VWM=4,VWN=4,STAGES=2",
                       "MWG=256,NWG=128,KWG=64,MDIMC=16,NDIMC=16,KWI=8,VWM=4,VWN=4,STAGES=2")),
                   "VLOAD=2 s:4096,4096,4096 s:8192,8192,8192 --force regblock:MWG=256,NWG=128,"
                   "KWG=8,MDIMC=16,NDIMC=16,KWI=8,VWM=4,VWN=4 s:4096,4096,4096 s:8192,8192,8192 \n",
                   "cublas_reference.py 4096,4096,4096 8192,8192,8192",
                   "--runs 1 --force regblock:MWG=256,NWG=128,KWG=8,MDIMC=16,NDIMC=16,KWI=8,VWM=4,"
                   "VWN=4 --trans NN s:2049,1537,1031 --trans TT s:2049,1537,1031 --force"],
    "fp64-shapes": ["--precision d --shape 4096,4096,4096", "cublas_reference.py --fp64 4096,4096,4096",
                    "--family regblock --params MWG=128,NWG=128,KWG=8,MDIMC=16,NDIMC=16,KWI=4,VWM=2,VWN=2",
                    "--params MWG=128,NWG=64,KWG=8,MDIMC=16,NDIMC=8,KWI=4,VWM=2,VWN=2",
                    "--params MWG=64,NWG=128,KWG=8,MDIMC=8,NDIMC=16,KWI=4,VWM=2,VWN=2"],
    "fp64-sweep": [f"clgemm-types-bench --check --force {s} d:1031,517,263" for s in FP64_SETS] +
                  ["clgemm-types-bench --no-clblast " + " ".join(
                      f"--force {s} d:4096,4096,4096 d:8192,8192,8192 d:4097,4097,4097"
                      for s in FP64_SETS + FP64_SETS[:1]),
                   "cublas_reference.py --fp64 4096,4096,4096 8192,8192,8192 4097,4097,4097"],
    "batched": [f"clgemm-batched-bench --runs 20 {p}:10000,32 {p}:10000,64 {p}:1000,128 "
                f"{p}:1000,256 {p}:100,512" for p in "sdhb"] +
               [f"bmm_reference.py {p}10000,32 10000,64 1000,128 1000,256 100,512"
                for p in ("", "--fp64 ", "--fp16 ", "--bf16 ")],
    "eight-bit": ["clgemm-types-bench --trans NT i8:8192,8192,8192 i8:4096,4096,4096 "
                  "e4m3:8192,8192,8192 e4m3:4096,4096,4096 e4m3b:8192,8192,8192 "
                  "e4m3b:4096,4096,4096 e5m2:8192,8192,8192 e5m2:4096,4096,4096 --trans NN "
                  "i8:8192,8192,8192",
                  *(f"cublas_reference.py {p} 8192,8192,8192 4096,4096,4096"
                    for p in ("--int8", "--e4m3", "--e4m3b", "--e4m3 --fast", "--e4m3b --fast")),
                  "fp8_accuracy.py 256,256,32 256,256,256 256,256,1024 256,256,8192"],
    "types": ["clgemm-types-bench h:8192,8192,8192", "3xtf32:8192,8192,8192", "z:2048,2048,2048",
              "cublas_reference.py --bf16 8192,8192,8192"],
    "squares": ["clgemm-tune --precision s --shape 512", "clgemm-bench --preset gpu --clblast-params",
                "cublas_reference.py 512,512,512"],
    "call-cost": ["clgemm-overhead --calls 3000 32 128", "clgemm-blas-overhead --runs 5 1024 8192"],
    "multi-gpu": ["clgemm-multi-bench --runs 3 --devices 1,2,4 d:16384 d:32768 s:16384 s:32768"],
    # The stand-in's lines are not the bench's, so its table stays empty: what shows is the
    # command line and the table's header.
    "lapack-factor": ["command: ROUNDS=1 REPS=1 WARM=1 OWN_NB=1 NB= FORCED=1 BUDGET_S=420 "
                      "bench/lapack_factor.sh BUILD 2048 4096 8192 12288 16384",
                      "routine      n    host_s"],
    # Every transpose at the squares (default, no copies, the register-blocked default), the full
    # check first, and cuBLAS on each transpose.
    # The squares in both precisions beside cuBLAS, FP64 4097^2 without the alignment copies,
    # the narrow shapes, mid squares and batches beside their references, then the device tests.
    "fp32-fp64-vs-cublas": ["clgemm-types-bench --no-clblast --no-profiling --runs 10 s:8192,8192,8192 "
                            "s:4096,4096,4096 "
                            "s:4097,4097,4097 d:8192,8192,8192 d:4096,4096,4096 d:4097,4097,4097",
                            "cublas_reference.py --fp64 8192,8192,8192 4096,4096,4096 4097,4097,4097",
                            "--runs 20 s:8192,64,8192 s:4096,64,8192 s:16384,64,4096 s:8192,32,8192 "
                            "s:64,8192,8192 s:256,256,16384 d:8192,64,8192",
                            "cublas_reference.py --fp64 1024,1024,1024 1536,1536,1536",
                            "--runs 20 s:8192,8192,256 s:8192,8192,1024 s:4096,4096,1024 "
                            "d:8192,8192,256",
                            "cublas_reference.py --fp64 8192,8192,256 8192,8192,1024 4096,4096,1024",
                            "clgemm-batched-bench --no-clblast --runs 20 s:10000,32 s:10000,64 "
                            "s:1000,128 s:1000,256 s:100,512 d:10000,32",
                            "bmm_reference.py --fp64 10000,32 10000,64 1000,128 1000,256 100,512",
                            "== test_pack", "== test_tma"],
    "fp32-layouts": ["clgemm-types-bench --no-clblast --runs 10 --check s:4096,4096,100",
                     *(f"--trans {t} s:8192,8192,8192 s:4096,4096,4096" for t in ("NN", "TN", "NT", "TT")),
                     *(f"cublas_reference.py --trans {t} 8192,8192,8192" for t in ("NN", "TN", "NT", "TT"))],
    "fp32-mn-major-tiles": ["--trans TN s:1536,1536,1536", "NWG=64,NDIMC=8 --trans TN",
                            "cublas_reference.py --trans TN 1536,1536,1536 1792,1792,1792"],
    "fp32-nn-mid-tiles": ["--runs 20 s:2048,2048,2048 s:2176,2176,2176", "MWG=256,NWG=128,NDIMC=16 s:2048",
                          "cublas_reference.py 2048,2048,2048 2176,2176,2176"],
    "fp32-narrow-warpgroups": ["== test_tensor_cores: the tma_simt candidates",
                               "--runs 20 s:8192,32,8192 s:4096,32,8192 s:16384,32,4096 s:8192,16,8192 "
                               "s:64,8192,8192 s:64,4096,8192",
                               "--force tma_simt:MWG=64,NWG=128,KWG=32,STAGES=4 s:8192,32,8192",
                               "--force tma_simt:MWG=128,NWG=64,KWG=32,STAGES=6 s:64,8192,8192",
                               "cublas_reference.py 8192,32,8192 4096,32,8192 16384,32,4096 8192,16,8192 "
                               "64,8192,8192 64,4096,8192"],
    "fp32-tma-simt-shapes": ["--force tma_simt:KWG=32,MWG=64,NWG=128,STAGES=6 s:8192,64,8192",
                             "clgemm-batched-bench --runs 20 --force tma_simt:KWG=32,MWG=128,NWG=128,STAGES=4 s:10000,64",
                             "bmm_reference.py 10000,64 1000,128"],
    "mma8": ["== test_tensor_cores, mma family, INT8 / E4M3 / E5M2"],
    "device-tests": [f"== test_{t}" for t in ("gemm", "split", "batched", "types", "faults",
                                              "invalid", "unit")],
}


def main():
    passed = failed = 0

    def check(ok, what):
        nonlocal passed, failed
        passed, failed = passed + ok, failed + (not ok)
        if not ok:
            print(f"FAIL: {what}")

    with tempfile.TemporaryDirectory() as tmp:
        for path in BINARIES + ["bin/python3", "bin/nvidia-smi"]:
            full = os.path.join(tmp, path)
            os.makedirs(os.path.dirname(full), exist_ok=True)
            with open(full, "w") as f:
                f.write(STUB)
            os.chmod(full, stat.S_IRWXU)
        # The commit the build records (bench/meson.build's build-commit) heads every suite.
        with open(os.path.join(tmp, "bench/build-commit"), "w") as f:
            f.write("abc1234-dirty\n")
        env = dict(os.environ, BUILD=tmp, PATH=f"{tmp}/bin:{os.environ['PATH']}")
        driver = os.path.join(ROOT, "bench/gpu/run.sh")
        for suite, wanted in EXPECT.items():
            extra = {"TC_ENV": "CLGEMM_KSPLIT=3"} if suite == "tensor-cores" else {}
            run = subprocess.run(["sh", driver, suite], env={**env, **extra}, capture_output=True,
                                 text=True, timeout=60)
            check(run.returncode == 0, f"{suite}: exit status {run.returncode}: {run.stderr}")
            check(f"#### {suite}: " in run.stdout and ", built at abc1234-dirty\n" in run.stdout,
                  f"{suite}: no header naming the build's commit in\n{run.stdout}")
            for text in wanted:
                check(text in run.stdout, f"{suite}: no '{text}' in\n{run.stdout}")
            if suite == "tensor-cores":
                for line in run.stdout.splitlines():
                    if "RAN clgemm-" in line:
                        check("[KSPLIT=3]" in line, f"TC_ENV did not reach: {line}")
        # FACTOR_SIZES and FACTOR_NB reach bench/lapack_factor.sh (a block run at NB, other sizes).
        run = subprocess.run(["sh", driver, "lapack-factor"],
                             env={**env, "FACTOR_SIZES": "2048 4096 8192", "FACTOR_NB": "256"},
                             capture_output=True, text=True, timeout=60)
        check(run.returncode == 0 and "OWN_NB=1 NB=256 FORCED=1 BUDGET_S=420 "
              "bench/lapack_factor.sh BUILD 2048 4096 8192\n" in run.stdout,
              f"lapack-factor with FACTOR_SIZES and FACTOR_NB:\n{run.stdout}{run.stderr}")
        for args in ([], ["no-such-suite"], ["types", "no-such-suite"]):
            run = subprocess.run(["sh", driver, *args], env=env, capture_output=True, text=True,
                                 timeout=60)
            check(run.returncode == 2 and "RAN" not in run.stdout,
                  f"run.sh {' '.join(args)}: exit {run.returncode}, ran {run.stdout!r}")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
