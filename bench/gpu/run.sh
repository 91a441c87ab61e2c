#!/bin/sh
# run.sh: the GPU benchmark driver. Each suite measures one family of the figures published in
# docs/PERFORMANCE.md and bench/results/figures.csv, with its references (cuBLAS through
# cublas_reference.py, torch.bmm through bmm_reference.py, CLBlast on the same buffers) in the
# same run, on the library's built-in defaults (no tuning database) unless the suite tunes.
#
# Usage, from the repository root on the NVIDIA machine, with a release build in build-gpu
# (meson setup build-gpu --buildtype=release && ninja -C build-gpu):
#   bench/gpu/run.sh SUITE... | tee bench/results/h200-WHAT.log    (named by what it measures;
#                                   each suite's header line gives the date and the commit
#                                   the build was made from: build-gpu/bench/build-commit)
#   bench/gpu/run.sh tune start [SECONDS] | tune wait [SECONDS]     (two GPUs, see tune below)
# Suites:
#   device-tests  every device test suite (Criterion's closing line per suite)
#   fp32-shapes   FP32 squares, irregular, narrow and long-K shapes, small squares
#   fp64-shapes   FP64 on its default family (tensor cores on sm_90) and on the SIMT family
#   fp32-sweep    the register-blocked FP32 candidates of bench/gpu/fp32-sweep.list (or of the
#                 list file FP32_SWEEP_LIST names, in its format) forced at
#                 4096^2 and 8192^2 (the default first and again last), cuBLAS before and after,
#                 each candidate's registers and spills as the driver compiled it, then each at
#                 an odd shape, NN and TT (sampled error; BAD past 1e-5)
#   fp64-sweep    the mma family's FP64 sets of bench/gpu/fp64_sets.txt (deeper pipelines and
#                 larger tiles in the real local memory), each checked in full at 1031x517x263
#                 (transposes, odd and aligned offsets, split K), then timed at 4096^2, 8192^2
#                 and 4097^2 beside cuBLAS, the first set (the default) again at the end
#   align-copies  operands off 16 bytes copied onto 16-byte lines first (CLGEMM_ALIGN_COPIES=1)
#                 against read where they lie (0): FP64, FP32, TF32, 3xTF32 and INT8 checked with
#                 the copies, then odd squares 1025 ... 8193 and narrow odd shapes (FP64, FP32;
#                 TF32, 3xTF32, INT8 at 4097^2 and 8193^2: their K-major operand reaches the tma
#                 family only so), two alternated rounds, cuBLAS beside
#   fp32-loop-addressing  the register-blocked family's loop addressing (cl/regblock.cl
#                 LOOP_ADDR=1, off by default) checked, then FP32 8192^2, 4096^2, 4097^2 with and
#                 without it in alternated rounds, cuBLAS beside
#   fp64-loop     the mma family's FP64 K loop unrolled by its stages with addresses computed once
#                 (cl/mma.cl F64_LOOP=1, off by default) checked at small shapes (transposes, odd
#                 and aligned offsets, split K), then FP64 8192^2, 4096^2, 4097^2 with and without
#                 it in alternated rounds, cuBLAS beside
#   stream-k      the tma family's stream-K kernel (CLGEMM_STREAMK=STREAMK_GROUPS, default 132)
#                 checked at shapes with a partial wave, ptxas's report on its kernels (C7514:
#                 serialised wgmma), then FP16 and TF32 8192^2, 10240^2 (FP16 also 4097^2) with
#                 and without it in alternated rounds, cuBLAS beside
#   streamk-fixup the CUDA-core families' stream-K fix-up timed (the call's last command) and
#                 checked, FP32 squares 1536^2 ... 3072^2 and narrow shapes by default, with
#                 stream-K forced and with it off, in alternated rounds; FP32 8192^2 and 4096^2
#                 with stream-K over their partial last wave; whole-wave shapes beside 8192^2
#                 (FP32, FP64); the partial wave's tiles K split (CLGEMM_TAIL) checked and
#                 timed at FP64 and FP32 8192^2, cuBLAS beside
#   streamk-waves the FP32 stream-K rule (from one whole wave of 128 x 128 tiles, two an SM):
#                 squares and rectangles of 1 to 2.2 waves by default and with stream-K off
#                 (CLGEMM_STREAMK=0), two alternated rounds, cuBLAS beside
#   tail-registers whether the register-blocked FP32 kernel built for the partial-wave split
#                 (LINEAR_TILES=1: 130 registers on the H200, one work-group an SM) keeps its
#                 speed when capped at 128 registers (.maxnreg, as the patched-PTX step can add):
#                 its 2-D build, its 1-D build, and the 1-D build capped, launched through CUDA
#                 at 8192^2 (ptx_launch.py), with ptxas's registers and spills
#   tile-bands    the mma family's FP64 tiles in bands of 8 tile rows (its default; cl/common.cl
#                 TILE_BANDS) against the plain order (through CLGEMM_BUILD_OPTIONS): checked,
#                 then FP64 squares 2048^2 ... 8192^2, 4097^2 and narrow shapes in two alternated
#                 rounds, cuBLAS beside
#   narrow-tiles  FP16 and BF16 with one side of 64: 64 x 64 tiles of 8 and 6 stages checked,
#                 then the defaults (64 x 256 or 128 x 64 tiles, the planner's K split), the
#                 default tiles split to one wave, and 64 x 64 tiles in one wave, alternated
#                 rounds, cuBLAS beside
#   batched       strided batches of FP32, FP64, FP16 and BF16 matrices beside CLBlast and torch.bmm
#   types         every element type and compute mode, squares at 8192 and below
#   tensor-cores  FP16, BF16, TF32, 3xTF32 at 8192^2, 4096^2, 2048^2, 4097^2, FP16 and BF16
#                 with a side of 64 (8192 x 64 x 8192 and 64 x 8192 x 8192) and strided batches
#                 of 1000 x 256^3: every figure of issue 30's table from one run, then the
#                 8192^2 FP16, BF16 and TF32 problems alternated with cuBLAS in three rounds (TC_ENV:
#                 environment words for the clgemm side, e.g. a family's variables, so that a
#                 new kernel family runs the same problems)
#   tf32-registers TF32 and 3xTF32 with CLGEMM_TMA_A_REGISTERS=1 (cl/tma.cl's AREG: a
#                 column-major A stored MN-major loaded into registers, and split there for
#                 3xTF32, instead of copied and split beforehand): test_tensor_cores's TF32 and
#                 3xTF32 matrices on the tma family with it, then row-major NN squares (the
#                 call's B is that A) without and with it in alternation, beside cuBLAS TF32
#                 and FP32
#   tma-simt      FP32 on the CUDA cores fed by the tma family's bulk copies (the tma_simt
#                 family): its candidates checked through test_tensor_cores, ptxas's report on
#                 their kernels, then FP32 8192^2 and 4096^2 row-major NN (and TN) on the default
#                 (register-blocked) and on each candidate forced, two alternated rounds, cuBLAS
#                 beside
#   tma-fp64      FP64 on the DMMA tensor cores fed by the tma family's bulk copies (the tma_fp64
#                 family, no defaults): its candidates checked through test_tensor_cores, ptxas's
#                 report on their kernels, the 128 x 128 tiles checked in full on every
#                 transpose, then FP64 8192^2 and 4096^2 row-major NN, TN, NT and TT on the default
#                 (the mma family) and on each candidate forced, two alternated rounds, cuBLAS
#                 beside
#   fp32-fp64-vs-cublas  issue 32's table in one run (clgemm on a queue without profiling, as a
#                 user's): FP32 and FP64 8192^2, 4096^2, 4097^2
#                 (row-major NN) alternated with cuBLAS in three rounds, FP64 4097^2 also without
#                 the alignment copies, the narrow and long-K shapes in two rounds, the mid
#                 squares and short K (8192^2 and 4096^2 at K 256 and 1024) beside cuBLAS,
#                 strided batches in two rounds beside torch.bmm, then
#                 test_gemm, test_split, test_batched, test_types, test_pack and test_tma
#   fp32-layouts  FP32 on every transpose (row-major NN, TN, NT, TT): the products over the
#                 MN-major copies checked in full, then the defaults against the same without the
#                 copies and the register-blocked default, tma_simt's tiles at 2048^2-3072^2, two
#                 alternated rounds, cuBLAS on the same transposes
#   fp32-mn-major-tiles  FP32 row-major TN (both operands MN-major) at 1536^2-3584^2: the default
#                 against the register-blocked 128 x 128 and 128 x 64 tiles and tma_simt's 128 x 128
#                 forced, two alternated rounds, row-major NN's default, cuBLAS TN
#   fp32-nn-mid-tiles  FP32 row-major NN at 2048^2-3072^2: the default against stream-K off and the
#                 register-blocked 256 x 128 and 128 x 64 tiles forced, two alternated rounds, then
#                 TN's default at 1536^2-2048^2, cuBLAS beside
#   fp32-narrow-warpgroups  tma_simt's narrow FP32 defaults (32 x 128 tiles of one 32-row
#                 warpgroup for 16 to 32 rows, 128 x 64 tiles of one 128-row warpgroup for at most
#                 64 columns) against the tiles they replaced, forced: its candidates through
#                 test_tensor_cores, then two rounds with cuBLAS in each
#   fp32-tma-simt-shapes  FP32 narrow, long-K shapes and strided batches: the default against
#                 tma_simt's device-checked candidates forced, two alternated rounds, cuBLAS and
#                 torch.bmm beside
#   setmaxnreg    the tma family's producer warpgroup (SETMAXNREG=2, registers moved to the
#                 consumers): its candidates through test_tensor_cores (TF32 also with its A from
#                 registers), ptxas's report on every tma kernel the run built
#                 (bench/gpu/ptxas_report.py: registers, spills, serialised wgmma), then TF32 and
#                 3xTF32 row-major NN (A from registers in 128 x 256 tiles with it, against the
#                 defaults) and FP16 8192^2 (the persistent staged default with it), alternated,
#                 beside cuBLAS
#   wgmma         the wgmma family forced beside mma.sync and cuBLAS, and where its time goes
#   eight-bit     INT8 and FP8 on their defaults, K-major and with B MN-major, beside cuBLASLt
#                 (torch._int_mm, torch._scaled_mm with and without fast accumulation), and
#                 FP8's error at growing K on both sides
#   mma8          the mma.sync family's 8-bit kernels (INT8, FP8 E4M3 and E5M2) forced, through
#                 test_tensor_cores's correctness matrix (TC_FAMILY=mma TC_TYPES=i8,e4m3,e5m2)
#   tma           the TMA-fed wgmma kernel (cl/tma.cl) run directly: the static local limit and
#                 tensor-map service found, its correctness matrix (FP16, BF16, TF32, INT8, FP8),
#                 its kernel time at the tensor-core shapes beside cuBLAS (bench/tma_check.c)
#   squares       tune the default shapes, then every square beside CLBlast (defaults and
#                 H200-tuned Xgemm parameters) into a CSV for bench/plot.sh, cuBLAS beside
#   call-cost     host time of a warm call, and the BLAS drop-in against the host API
#   multi-gpu     host-array FP64 and FP32 16384^2 and 32768^2 across 1, 2 and 4 GPUs of the
#                 machine (clgemm_multi_gemm_ex_host; a count above the GPUs present is skipped)
#   tune          the tuner: 180 s against 10-minute searches of its default shapes
#   lapack-factor LAPACK's dgetrf, dpotrf, dgeqrf at 2048 ... 16384 without the BLAS drop-in,
#                 with it at LAPACK's own block size (CLGEMM_BLAS_LAPACK_NB=0), with it at its
#                 default (512 on a GPU; ?geqrf at most n/32), with it and the block size at
#                 FACTOR_NB (unset: no such run), and with it forced onto the device unless
#                 FACTOR_FORCED=0 (bench/lapack_factor.sh; FACTOR_ROUNDS rounds): times,
#                 GFLOPS, copy share, time per BLAS routine; the LAPACK and host BLAS bundled in
#                 .gpu/lib (FACTOR_SIZES, e.g. "2048 4096 8192"; FACTOR_BUDGET_S, default 420 s)
# Environment: BUILD (default build-gpu), CLGEMM_CACHE_DIR (default /tmp/clgemm-kernels),
# SQUARES_CSV (default h200-squares.csv). Libraries bundled by bench/gpu/bundle-libs.sh in
# .gpu/lib are put on LD_LIBRARY_PATH when that folder exists.
set -u
if [ $# -eq 0 ]; then
    sed -n '2,/^set -u$/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//' >&2
    exit 2
fi
if [ "$1" != tune ]; then
    for suite in "$@"; do
        case $suite in
        device-tests | fp32-shapes | fp32-sweep | fp64-shapes | fp64-sweep | align-copies | fp32-loop-addressing | fp64-loop | stream-k | streamk-fixup | streamk-waves | tail-registers | tile-bands | narrow-tiles | batched | types | tensor-cores | tf32-registers | tma-simt | tma-fp64 | fp32-fp64-vs-cublas | fp32-layouts | fp32-mn-major-tiles | fp32-nn-mid-tiles | fp32-narrow-warpgroups | fp32-tma-simt-shapes | setmaxnreg | wgmma | mma8 | tma | eight-bit | squares | call-cost | multi-gpu | lapack-factor) ;;
        *)
            echo "run.sh: unknown suite '$suite' (bench/gpu/run.sh alone lists them)" >&2
            exit 2
            ;;
        esac
    done
fi
cd "$(dirname "$0")/../.." || exit 1
B=${BUILD:-build-gpu}
# shellcheck source=bench/gpu/nvidia-opencl.sh
. bench/gpu/nvidia-opencl.sh
if [ -d .gpu/lib ]; then
    LD_LIBRARY_PATH=$PWD/.gpu/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
    export LD_LIBRARY_PATH
fi
# Built-in defaults: a database that does not exist; compiled kernels kept between suites.
export CLGEMM_TUNING_DB=/tmp/none.json CLGEMM_CACHE_DIR="${CLGEMM_CACHE_DIR:-/tmp/clgemm-kernels}"
CUBLAS="python3 bench/gpu/cublas_reference.py"
BMM="python3 bench/gpu/bmm_reference.py"
BENCH="$B/bench/clgemm-bench --runs 20 --layout row"
# Issue 11's shapes: squares, an odd square, an irregular one, narrow both ways, long K.
SHAPES="4096,4096,4096 4097,4097,4097 2047,2047,2047 8192,64,8192 64,8192,8192 256,256,16384"
SMALL="128,128,128 192,192,192 256,256,256 300,300,300 384,384,384 512,512,512"
BATCHES="10000,32 10000,64 1000,128 1000,256 100,512"
# The SIMT family's FP64 tiles: 128 x 128 for squares, 128 x 64 for long K, 128 x 64 and
# 64 x 128 for the narrow shapes (the K split is the planner's).
SIMT_SQ=MWG=128,NWG=128,KWG=8,MDIMC=16,NDIMC=16,KWI=4,VWM=2,VWN=2
SIMT_TALL=MWG=128,NWG=64,KWG=8,MDIMC=16,NDIMC=8,KWI=4,VWM=2,VWN=2
SIMT_WIDE=MWG=64,NWG=128,KWG=8,MDIMC=8,NDIMC=16,KWI=4,VWM=2,VWN=2
# CLBlast's own tuning result for FP32 on the H200 (docs/BENCH.md).
CLBLAST_H200=GEMMK=0,KREG=1,KWG=32,KWI=2,MDIMA=32,MDIMC=16,MWG=128,NDIMB=16,NDIMC=8,NWG=128,SA=1,SB=1,STRM=0,STRN=1,VWM=4,VWN=2

shape_args() { # M,N,K... -> --shape M,N,K ...
    for s in "$@"; do printf -- '--shape %s ' "$s"; done
}
bench_rows() { # clgemm-bench's result lines (one per problem) and any mismatch
    grep -E "^[sdh] |MISMATCH"
}
mode_args() { # MODE PROBLEM... -> MODE:PROBLEM ... (clgemm-types-bench, clgemm-batched-bench)
    m=$1
    shift
    for b in "$@"; do printf '%s:%s ' "$m" "$b"; done
}

run_tests() { # TEST... : each test binary of the build, its failures and closing line
    for t in "$@"; do
        echo "== $t"
        timeout 300 "$B/tests/$t" 2>&1 | grep -E "FAIL|Synthesis|Assert" | head -20
    done
}

device_tests() {
    run_tests test_gemm test_split test_batched test_types test_faults test_invalid test_unit
}

fp32_shapes() {
    # shellcheck disable=SC2046,SC2086
    {
        echo "== FP32 defaults beside CLBlast"
        $BENCH --precision s $(shape_args $SHAPES) 2>&1 | bench_rows
        echo "== cuBLAS"
        $CUBLAS $SHAPES
        echo "== FP32 defaults again (after cuBLAS)"
        $BENCH --precision s $(shape_args $SHAPES) 2>&1 | bench_rows
        echo "== FP32 small squares, defaults, beside CLBlast and cuBLAS"
        $B/bench/clgemm-bench --runs 30 --layout row --precision s $(shape_args $SMALL) 2>&1 |
            bench_rows
        $CUBLAS $SMALL
    }
}

# fp32-sweep: issue 32's candidates (two local buffers, deeper slices where the static local
# memory allows them). One types-bench process times them all (each kernel built once, in a
# fresh kernel cache so that the driver's -cl-nv-verbose report of each build reaches the log).
fp32_sweep() {
    list=${FP32_SWEEP_LIST:-bench/gpu/fp32-sweep.list}
    forced() { # PROBLEM... -> --force regblock:P PROBLEM... for every candidate, then the first
        grep -v '^#' "$list" | awk 'NF {print $2}' | while read -r p; do
            printf -- '--force regblock:%s %s ' "$p" "$*"
        done
        printf -- '--force regblock:%s %s' "$(grep -v '^#' "$list" | awk 'NF {print $2; exit}')" "$*"
    }
    cache=$(mktemp -d /tmp/clgemm-fp32-sweep.XXXXXX)
    echo "== candidates (bench/gpu/fp32-sweep.list)"
    grep -v '^#' "$list" | awk 'NF'
    echo "== cuBLAS FP32"
    $CUBLAS 4096,4096,4096 8192,8192,8192
    echo "== candidates forced at 4096^2 and 8192^2, row-major NN (the default again last)"
    # shellcheck disable=SC2046
    CLGEMM_CACHE_DIR=$cache CLGEMM_LOG=1 CLGEMM_BUILD_OPTIONS=-cl-nv-verbose \
        "$B/bench/clgemm-types-bench" $(forced s:4096,4096,4096 s:8192,8192,8192) \
        2>"$cache/build.log"
    echo "== registers and spills per build (driver's ptxas, -cl-nv-verbose), and the bench's complaints"
    grep -E "types-bench:|(build log of|build of) regblock.cl|Used [0-9]+ registers|spill" \
        "$cache/build.log" | sed -E 's/ -DTYPE_AB=[^)]*-DMWG=/ MWG=/; s/ -D/ /g'
    echo "== cuBLAS FP32 again"
    $CUBLAS 4096,4096,4096 8192,8192,8192
    # NN and TT: both ways of loading each operand (a transpose is a kernel build of its own, a
    # few seconds each on the driver, so NT and TN are left to device-tests).
    echo "== each candidate at 2049 x 1537 x 1031, NN and TT (sampled error)"
    # shellcheck disable=SC2046
    CLGEMM_CACHE_DIR=$cache "$B/bench/clgemm-types-bench" --runs 1 \
        $(forced --trans NN s:2049,1537,1031 --trans TT s:2049,1537,1031) 2>&1 |
        awk '/err/ {e = $0; sub(/.*err /, "", e); sub(/ .*/, "", e);
                    print (e + 0 > 1e-5 || e ~ /nan|inf/ ? "BAD " : "ok  ") $0; next} {print}'
    rm -rf "$cache"
}

fp64_shapes() {
    # shellcheck disable=SC2046,SC2086
    {
        echo "== FP64 defaults beside CLBlast"
        $BENCH --precision d $(shape_args $SHAPES) 2>&1 | bench_rows
        echo "== cuBLAS FP64"
        $CUBLAS --fp64 $SHAPES
        echo "== FP64 on the SIMT family: 128 x 128 squares and long K, 128 x 64 long K and narrow"
        $BENCH --no-clblast --precision d $(shape_args 4096,4096,4096 4097,4097,4097 \
            2047,2047,2047 256,256,16384) --family regblock --params $SIMT_SQ 2>&1 | bench_rows
        $BENCH --no-clblast --precision d $(shape_args 256,256,16384 64,8192,8192) \
            --family regblock --params $SIMT_TALL 2>&1 | bench_rows
        $BENCH --no-clblast --precision d --shape 8192,64,8192 --family regblock \
            --params $SIMT_WIDE 2>&1 | bench_rows
    }
}

# fp64-sweep: which FP64 set the H200 default should be (issue 32). A set whose check fails
# must not become a default, whatever its speed.
fp64_sweep() {
    sets=$(awk '!/^#/ && NF == 6 {
        printf "mma:MWG=%s,NWG=%s,KWG=%s,WM=%s,WN=%s,STAGES=%s\n", $1, $2, $3, $4, $5, $6 }' \
        bench/gpu/fp64_sets.txt)
    out=$(mktemp -d)
    echo "== every set checked (clgemm-types-bench --check, one process per set, in parallel)"
    i=0
    for s in $sets; do
        i=$((i + 1))
        "$B/bench/clgemm-types-bench" --check --force "$s" d:1031,517,263 >"$out/$i" 2>&1 &
    done
    wait
    for f in $(seq 1 "$i"); do cat "$out/$f"; done
    rm -rf "$out"
    echo "== every set timed (the first is the default)"
    first=$(echo "$sets" | head -n 1)
    # shellcheck disable=SC2046
    "$B/bench/clgemm-types-bench" --no-clblast $(for s in $sets $first; do
        printf -- '--force %s d:4096,4096,4096 d:8192,8192,8192 d:4097,4097,4097 ' "$s"
    done)
    echo "== cuBLAS FP64"
    $CUBLAS --fp64 4096,4096,4096 8192,8192,8192 4097,4097,4097
}

# align-copies: where copying an operand off 16 bytes first pays (src/exec/pack.c's alignment
# copies, off by default until this suite measures them).
ALIGN_SHAPES="1025,1025,1025 2049,2049,2049 4097,4097,4097 8193,8193,8193 8193,65,8193 65,8193,8193"
align_copies() {
    echo "== checks with the copies (6 cases each: odd and aligned leading dimensions, transposes)"
    CLGEMM_ALIGN_COPIES=1 timeout 300 "$B/bench/clgemm-types-bench" --check d:1031,517,263 \
        d:264,260,72 s:1031,517,263 s:264,260,72 tf32:1031,517,263 3xtf32:1031,517,263 \
        i8:1031,517,263
    for round in 1 2; do
        for a in 0 1; do
            echo "== CLGEMM_ALIGN_COPIES=$a, round $round"
            # shellcheck disable=SC2046
            CLGEMM_ALIGN_COPIES=$a "$B/bench/clgemm-types-bench" --no-clblast --runs 10 \
                $(for s in $ALIGN_SHAPES; do printf 'd:%s s:%s ' "$s" "$s"; done) \
                $(for m in tf32 3xtf32 i8; do printf '%s:4097,4097,4097 %s:8193,8193,8193 ' $m $m; done) |
                grep median
        done
    done
    # shellcheck disable=SC2086
    $CUBLAS --fp64 $ALIGN_SHAPES
    # shellcheck disable=SC2086
    $CUBLAS $ALIGN_SHAPES
    $CUBLAS --tf32 4097,4097,4097 8193,8193,8193
    $CUBLAS --int8 4097,4097,4097 8193,8193,8193
}

# option_rounds OPTIONS CHECKS SQUARES: the problems CHECKS checked in full with
# CLGEMM_BUILD_OPTIONS=OPTIONS, then SQUARES timed without and with them in two alternated rounds.
option_rounds() {
    TB="$B/bench/clgemm-types-bench"
    # shellcheck disable=SC2086 # the problems as words
    CLGEMM_BUILD_OPTIONS="$1" timeout 300 "$TB" --check $2
    for round in 1 2; do
        echo "== round $round: default, then $1"
        # shellcheck disable=SC2086
        "$TB" --no-clblast --runs 10 $3 | grep median
        # shellcheck disable=SC2086
        CLGEMM_BUILD_OPTIONS="$1" "$TB" --no-clblast --runs 10 $3 | grep median
    done
}

# fp32-loop-addressing: whether cl/regblock.cl's LOOP_ADDR pays (predicted +1 to +2.5 %: the
# loop is 90 % FFMA, the option removes 3 % of its instructions). The checks: small enough for
# the host's long-double reference (6 cases each), large enough for inside work-groups of the
# 256 x 128 tiles; K cut inside a slice.
fp32_loop_addressing() {
    option_rounds -DLOOP_ADDR=1 "s:520,300,76 s:513,257,37 s:1024,512,100" \
        "s:8192,8192,8192 s:4096,4096,4096 s:4097,4097,4097"
    $CUBLAS 8192,8192,8192 4096,4096,4096 4097,4097,4097
}

# fp64-loop: whether cl/mma.cl's F64_LOOP pays. Offline its loop takes 161.5 instructions a
# slice against the default's 309 (without NOPs 108 against 255; cuBLAS's 203), no spill.
# Predicted 8192^2 46 -> 49-53 TFLOPS (the last such cut, 444 -> 300, gave +13 %; the DMMA pipe
# and the power limit bound the rest). 1031 x 517 x 263 holds edge tiles (their own loop) and
# inner ones; 520 x 300 x 76 a K cut inside a slice.
fp64_loop() {
    option_rounds -DF64_LOOP=1 "d:1031,517,263 d:520,300,76 d:1024,512,256" \
        "d:8192,8192,8192 d:4096,4096,4096 d:4097,4097,4097"
    $CUBLAS --fp64 8192,8192,8192 4096,4096,4096 4097,4097,4097
}

# stream-k: whether the tma family's stream-K kernel still has ptxas serialise its wgmma (C7514)
# now that its accumulators are fenced after the K loop's last wait (cl/tma.cl), and if not,
# whether it pays. Stream-K there shares out the last, partial wave: FP16 8192^2 in 128 x 256
# tiles is 2048 tiles on 132 SMs (15.5 waves), 10240^2 3200 (24.2 waves), 4097^2 561 (4.25).
# Its earlier form lost 15-25 % everywhere (h200-tma-stream-k-*.log). Predicted without the
# serialisation: 8192^2 and 10240^2 +1 to +3 % (the half-empty or quarter-full last wave
# shared, less the parts' sums), 4097^2 +3 to +10 %. Checked first (the host's long-double
# reference at shapes with a partial wave), then ptxas's report on the kernels the run built,
# then alternated rounds against the default, cuBLAS beside.
STREAMK_GROUPS=${STREAMK_GROUPS:-132}
stream_k() {
    TB="$B/bench/clgemm-types-bench"
    sk_cache=$(mktemp -d)
    echo "== checks with CLGEMM_STREAMK=$STREAMK_GROUPS"
    CLGEMM_STREAMK=$STREAMK_GROUPS CLGEMM_CACHE_DIR="$sk_cache" timeout 300 "$TB" --check \
        h:1031,517,263 h:2000,1500,1000 b:1031,517,263 tf32:1031,517,263 tf32:2000,1500,1000
    sq="h:8192,8192,8192 h:10240,10240,10240 h:4097,4097,4097 tf32:8192,8192,8192 tf32:10240,10240,10240"
    CLGEMM_STREAMK=$STREAMK_GROUPS CLGEMM_CACHE_DIR="$sk_cache" timeout 300 "$TB" --no-clblast \
        --runs 3 $sq | grep median
    echo "== ptxas on the tma kernels this run built (STREAMK=1 ones: is C7514 gone?)"
    python3 bench/gpu/ptxas_report.py "$sk_cache"
    for round in 1 2; do
        echo "== round $round: default, then CLGEMM_STREAMK=$STREAMK_GROUPS"
        # shellcheck disable=SC2086 # the problems as words
        "$TB" --no-clblast --runs 10 $sq | grep median
        # shellcheck disable=SC2086
        CLGEMM_STREAMK=$STREAMK_GROUPS "$TB" --no-clblast --runs 10 $sq | grep median
    done
    $CUBLAS --fp16 8192,8192,8192 10240,10240,10240 4097,4097,4097
    $CUBLAS --tf32 8192,8192,8192 10240,10240,10240
    rm -rf "$sk_cache"
}

# streamk-fixup: the CUDA-core families' stream-K fix-up (cl/streamk.cl). In a stream-K schedule
# the fix-up is the call's last command, so the bench's "last command" column times it. Measured
# on an H100 with one 16 x 16 work-group a boundary striding over the whole tile: 54-134 us for
# FP32's 128 x 128 and 128 x 64 tiles (12 us for FP64's 128 x 64 at 3072^2), so the narrow FP32
# shapes ran 15 % slower with their default stream-K than without. Now up to 8 work-groups a
# boundary share the tile's columns and each work-item keeps 4 rows' loads in flight. Predicted:
# FP32 fix-up under 15 us (a quarter of the work a work-item, four loads at once); FP32
# 64 x 8192 x 1024 with its default stream-K about 0.09 ms against 0.155 without. Checked first
# (FP32 and FP64, tiles of more than 32 parts), then default, CLGEMM_STREAMK=264 and
# CLGEMM_STREAMK=0 in two alternated rounds (the planner's stream-K thresholds were measured with
# the slow fix-up: 1536^2 ... 2560^2 lost it then), the narrow shapes that split K by default,
# cuBLAS beside.
streamk_fixup() {
    TB="$B/bench/clgemm-types-bench"
    sq="s:1536,1536,1536 s:2176,2176,2176 s:2304,2304,2304 s:2560,2560,2560 s:3072,3072,3072"
    narrow="s:64,8192,1024 s:8192,64,1024 d:64,8192,1024 d:3072,3072,3072"
    echo "== checks with CLGEMM_STREAMK=264 and 5000 (a tile of more than 32 parts)"
    # (--check's host reference takes minutes past about 1e9 multiply-adds: 2000 x 1500 x 1000 ran
    # out of time, so the shapes stay small)
    CLGEMM_STREAMK=264 timeout 300 "$TB" --no-clblast --check --runs 1 s:1031,517,263 d:1031,517,263 \
        s:1536,1536,1536 d:1100,1100,130 s:64,8192,256
    CLGEMM_STREAMK=5000 timeout 300 "$TB" --no-clblast --check --runs 1 s:200,200,8192 d:200,200,8192
    for round in 1 2; do
        for sk in "" 264 0; do
            echo "== round $round: CLGEMM_STREAMK=${sk:-(default)}"
            # shellcheck disable=SC2086 # the problems as words
            CLGEMM_STREAMK=$sk timeout 300 "$TB" --no-clblast --runs 20 $sq $narrow | grep median
        done
    done
    # FP32 8192^2 and 4096^2 run 128 x 128 tiles two an SM: 4096 tiles are 15.52 waves of 264,
    # 1024 are 3.88, so the last round is half or an eighth empty, about 3 % of the call: the
    # size of their gap to cuBLAS (0.96, 0.97). DP_ENOUGH keeps them data-parallel; with the
    # fix-up cheap, stream-K over the last one or two waves' worth of tiles may close it.
    # Predicted: +1 to +2 % (the head ends on whole columns of tiles, not whole waves, and the
    # stream-K kernel ran 7 % slower a tile).
    for round in 1 2; do
        for sk in "" 264 264,2; do
            echo "== round $round: FP32 8192^2, 4096^2, CLGEMM_STREAMK=${sk:-(default)}"
            CLGEMM_STREAMK=$sk timeout 300 "$TB" --no-clblast --runs 20 s:8192,8192,8192 \
                s:4096,4096,4096 | grep median
        done
    done
    $CUBLAS 8192,8192,8192 4096,4096,4096
    # Whether the partial last round is the gap: shapes of whole waves beside 8192^2 (FP32:
    # 7680 x 8448 is 60 x 66 tiles, 15 waves of 264; FP64's 128 x 128 tiles one an SM: 7936 x
    # 8448 is 62 x 66, 31 waves of 132, where 8192^2 is 31.03). Predicted if it is: TFLOPS 2-3 %
    # above 8192^2's on both sides, and cuBLAS's not.
    echo "== whole waves against 8192^2, two rounds, cuBLAS beside"
    for round in 1 2; do
        timeout 300 "$TB" --no-clblast --runs 20 s:8192,8192,8192 s:7680,8448,8192 \
            d:8192,8192,8192 d:7936,8448,8192 | grep median
    done
    $CUBLAS 8192,8192,8192 7680,8448,8192
    $CUBLAS --fp64 8192,8192,8192 7936,8448,8192
    # The partial wave's tiles K split (CLGEMM_TAIL, src/plan/plan.c clgemm__plan_tail): the
    # whole waves along a 1-D grid, then the rest split to about a wave; by default the mma
    # family's with at most half a wave left (FP64 8192^2: 4 tiles left, 32 layers). Checked
    # with waves of 7 and of the device, then FP64 and FP32 8192^2 (136 left: 8 tiles in 32
    # layers, 128 in 2) with it forced and off, two rounds (measured: FP64 +2.1-2.6 %; FP32
    # -21 %, its LINEAR_TILES build at 130 registers: h200-partial-wave-split.log).
    echo "== the partial wave split: checks (CLGEMM_TAIL=7, 1)"
    for t in 7 1; do
        CLGEMM_TAIL=$t timeout 300 "$TB" --no-clblast --check --runs 1 d:1031,517,263 \
            s:1031,517,263 d:1100,1100,130 s:1100,1100,130
    done
    for round in 1 2; do
        for t in 0 1; do
            echo "== round $round: CLGEMM_TAIL=${t:-(default)}"
            CLGEMM_TAIL=$t timeout 300 "$TB" --no-clblast --runs 20 d:8192,8192,8192 \
                s:8192,8192,8192 | grep median
        done
    done
    echo "== narrow shapes that split K by default (K from a quarter of the long side)"
    timeout 300 "$TB" --no-clblast --runs 20 s:64,8192,4096 s:8192,64,4096 s:64,8192,2048 \
        d:64,8192,4096 d:8192,64,2048 | grep median
    $CUBLAS 1536,1536,1536 2176,2176,2176 2304,2304,2304 2560,2560,2560 3072,3072,3072 \
        64,8192,1024 8192,64,1024 64,8192,4096 8192,64,4096 64,8192,2048
    $CUBLAS --fp64 64,8192,1024 3072,3072,3072 64,8192,4096 8192,64,2048
}

# streamk-waves: predicted from the forced runs of the fix-up's measurement (h200-streamk-fixup-
# tile-bands.log): 2176^2 (1.09 waves) about 1.14 x faster, 2560^2 (1.52) 1.05 x, 2304^2 (1.23)
# alike, 3072^2 as before (stream-K already); 1792^2 and 2048^2 unchanged (below a wave, and 0.97
# of one: data-parallel both ways).
streamk_waves() {
    TB="$B/bench/clgemm-types-bench --no-clblast --runs 20"
    sq="s:1792,1792,1792 s:2048,2048,2048 s:2176,2176,2176 s:2304,2304,2304 s:2560,2560,2560 \
s:2816,2816,2816 s:3072,3072,3072 s:2176,3072,2176 s:3072,2304,4096"
    for round in 1 2; do
        for sk in "" 0; do
            echo "== round $round: CLGEMM_STREAMK=${sk:-(default)}"
            # shellcheck disable=SC2086 # the problems as words
            CLGEMM_STREAMK=$sk timeout 300 $TB $sq | grep median
        done
    done
    $CUBLAS 1792,1792,1792 2048,2048,2048 2176,2176,2176 2304,2304,2304 2560,2560,2560 \
        2816,2816,2816 3072,3072,3072 2176,3072,2176 3072,2304,4096
}

# tail-registers: the partial-wave split (CLGEMM_TAIL) lost 21 % at FP32 8192^2 because the
# register-blocked kernel's 1-D build took 130 registers to the 2-D build's 127 (256 work-items:
# one work-group an SM instead of two); the driver ignores -cl-nv-maxrregcount. A .maxnreg cap in
# the PTX, which the patched-PTX step can add per entry, is honoured by ptxas. Predicted: capped
# at 128 the 1-D build spills a few bytes at most and runs within 1 % of the 2-D build (which
# times about 22.6 ms through OpenCL); uncapped about 25 % slower. If so the library can cap
# that build and split FP32's partial waves too (+1.5-2.5 % at 8192^2).
tail_registers() {
    cache=$(mktemp -d)
    CLGEMM_CACHE_DIR=$cache CLGEMM_TAIL=1 timeout 120 "$B/bench/clgemm-types-bench" --no-clblast \
        --runs 3 s:8192,8192,8192 | grep median
    # (matched against the cache key's options line: the 2-D build has MWG right after CONJB)
    plain='-DCONJB=0 -DMWG=128 -DNWG=128 '
    linear='-DLINEAR_TILES=1 -DMWG=128 -DNWG=128 '
    for build in plain linear linear-capped; do
        case $build in
        plain) match=$plain cap=0 ;;
        linear) match=$linear cap=0 ;;
        *) match=$linear cap=128 ;;
        esac
        echo "== $build (.maxnreg $cap: 0 none)"
        MATCH=$match MAXNREG=$cap timeout 120 python3 bench/gpu/ptx_launch.py "$cache" 8192 8192 \
            8192 20
    done
    echo "== ptxas -v on the cached builds (uncapped)"
    timeout 60 python3 bench/gpu/ptxas_report.py "$cache" 2>&1 | tail -6
    rm -rf "$cache"
}

# tile-bands: the mma family's FP64 tiles in bands of 8 tile rows (its default, src/families/mma.c)
# against the plain order (CLGEMM_BUILD_OPTIONS=-DTILE_BANDS=1, which the build options' last
# definition sets). Measured on an H100 (one run, bands forced on every kernel): FP64 4096^2 +3 to
# +6 %, 8192^2 unchanged, SM clock at 1980 MHz either way; FP32's register-blocked kernel took 130
# registers in bands and lost 22 %, so it keeps the plain order. Checked first at shapes whose
# tile rows are not a multiple of 8, then FP64 squares and odd shapes in two alternated rounds,
# cuBLAS beside. Predicted: the mid squares (2048^2 to 6144^2: 256 to 2304 tiles, a few waves)
# gain like 4096^2; 8192^2 and the narrow shapes within 1 %.
tile_bands() {
    TB="$B/bench/clgemm-types-bench"
    shapes="d:2048,2048,2048 d:3072,3072,3072 d:4096,4096,4096 d:4097,4097,4097 \
        d:6144,6144,6144 d:8192,8192,8192 d:64,8192,8192 d:8192,64,8192"
    for bands in 8 1; do
        CLGEMM_BUILD_OPTIONS=-DTILE_BANDS=$bands timeout 200 "$TB" --no-clblast --check --runs 1 \
            d:1031,517,263 d:1100,1100,130 d:2000,300,500 d:300,2000,500
    done
    for round in 1 2; do
        for bands in 8 1; do
            echo "== round $round: TILE_BANDS=$bands"
            # shellcheck disable=SC2086 # the problems as words
            CLGEMM_BUILD_OPTIONS=-DTILE_BANDS=$bands timeout 200 "$TB" --no-clblast --runs 20 \
                $shapes | grep median
        done
    done
    $CUBLAS --fp64 2048,2048,2048 3072,3072,3072 4096,4096,4096 4097,4097,4097 6144,6144,6144 \
        8192,8192,8192 64,8192,8192 8192,64,8192
}

# narrow-tiles: whether one wave of work-groups pays for FP16 and BF16 with one side of 64. The
# defaults split K over 32 or 64 tiles and sum the layers in a second kernel (9 us of the 0.072 ms
# call at 8192 x 64 x 8192; cuBLAS's whole call takes 0.063). The planner counts the work-groups
# an SM holds by registers and threads, not local memory: 128 x 64 tiles of 8 stages (197 KiB,
# one an SM) count as two, so 64 x 8192 x 8192 is split 4 ways into two waves, and 64 x 64 tiles
# of 8 stages (132 KiB, one an SM) as three. Forced here: the default tiles split to one wave,
# and 64 x 64 tiles (128 of them at 8192) unsplit in 8 stages or split 2 ways in 6 (99 KiB, two
# an SM). Predicted: 64 x 64 in one wave 0.048-0.055 ms at 8192 (155-180 TFLOPS: the 128 MB
# operand at about 3 TB/s, no workspace or reduction); the default tiles in one wave a few
# per cent over their two.
NARROW_SHAPES="8192,64,8192 64,8192,8192 16384,64,16384 64,16384,16384"
narrow_tiles() {
    TB="$B/bench/clgemm-types-bench"
    t64="tma:MWG=64,NWG=64,KWG=64"
    for s in 8 6; do
        echo "== checks of 64 x 64 tiles in $s stages (6 cases each)"
        timeout 150 "$TB" --check --force "$t64,STAGES=$s" h:1031,64,520 h:64,1031,520 \
            b:300,40,777 h:130,64,4100
    done
    for round in 1 2; do
        echo "== round $round: the defaults (the planner's split)"
        # shellcheck disable=SC2046,SC2086
        "$TB" --no-clblast --runs 20 $(mode_args h $NARROW_SHAPES) b:8192,64,8192 \
            b:64,8192,8192 | grep median
        echo "== round $round: the default tiles in one wave (128 x 64: split 2 at 8192, 1 at 16384)"
        CLGEMM_KSPLIT=2 "$TB" --no-clblast --runs 20 h:64,8192,8192 b:64,8192,8192 | grep median
        CLGEMM_KSPLIT=1 "$TB" --no-clblast --runs 20 h:64,16384,16384 | grep median
        echo "== round $round: 64 x 64 tiles, 8 stages unsplit, then 6 stages split 2 ways (8192)"
        # shellcheck disable=SC2046,SC2086
        CLGEMM_KSPLIT=1 "$TB" --no-clblast --runs 20 --force "$t64,STAGES=8" \
            $(mode_args h $NARROW_SHAPES) b:8192,64,8192 b:64,8192,8192 | grep median
        CLGEMM_KSPLIT=2 "$TB" --no-clblast --runs 20 --force "$t64,STAGES=6" h:8192,64,8192 \
            h:64,8192,8192 | grep median
    done
    # shellcheck disable=SC2086
    $CUBLAS --fp16 $NARROW_SHAPES
    $CUBLAS --bf16 8192,64,8192 64,8192,8192
}

batched() {
    # shellcheck disable=SC2046,SC2086
    for p in s d h b; do
        echo "== batched $p beside CLBlast (b: BF16, without it)"
        $B/bench/clgemm-batched-bench --runs 20 $(mode_args $p $BATCHES) 2>&1 | grep -vE "^#|^$|^-"
    done
    # shellcheck disable=SC2086
    for p in "" --fp64 --fp16 --bf16; do
        $BMM $p $BATCHES
    done
}

types() {
    echo "== every type and compute mode"
    "$B/bench/clgemm-types-bench" h:8192,8192,8192 hs:8192,8192,8192 b:8192,8192,8192 \
        bs:8192,8192,8192 tf32:8192,8192,8192 3xtf32:8192,8192,8192 d:8192,8192,8192 \
        s:8192,8192,8192 h:4096,4096,4096 h:4097,4097,4097 h:2048,2048,2048 h:1024,1024,1024 \
        h:8192,64,8192 d:4096,4096,4096 d:4097,4097,4097 d:2048,2048,2048 d:1024,1024,1024 \
        tf32:4096,4096,4096 3xtf32:4096,4096,4096 s:4096,4096,4096 c:4096,4096,4096 \
        c:1024,1024,1024 z:2048,2048,2048 z:1024,1024,1024
    echo "== cuBLAS"
    $CUBLAS --fp16 8192,8192,8192 4096,4096,4096 4097,4097,4097 2048,2048,2048 1024,1024,1024 \
        8192,64,8192
    $CUBLAS --bf16 8192,8192,8192
    $CUBLAS --tf32 8192,8192,8192 4096,4096,4096
    $CUBLAS --fp64 8192,8192,8192 4096,4096,4096 4097,4097,4097 2048,2048,2048 1024,1024,1024
    $CUBLAS 8192,8192,8192 4096,4096,4096
}

tf32_registers() {
    sq="8192,8192,8192 4096,4096,4096 2048,2048,2048"
    echo "== test_tensor_cores: tma family, TF32 and 3xTF32, CLGEMM_TMA_A_REGISTERS=1"
    CLGEMM_TMA_A_REGISTERS=1 TC_FAMILY=tma TC_TYPES=s timeout 400 \
        "$B/tests/test_tensor_cores" 2>&1 | grep -E "FAIL|Synthesis|wrong|Assert" | head -20
    # shellcheck disable=SC2046
    for round in 1 2; do
        echo "== round $round: row-major NN, B copied (flag off), then read into registers"
        "$B/bench/clgemm-types-bench" $(mode_args tf32 $sq) $(mode_args 3xtf32 $sq)
        CLGEMM_TMA_A_REGISTERS=1 "$B/bench/clgemm-types-bench" $(mode_args tf32 $sq) \
            $(mode_args 3xtf32 $sq)
    done
    # shellcheck disable=SC2086
    $CUBLAS --tf32 $sq
    # shellcheck disable=SC2086
    $CUBLAS $sq
}

# tma-simt: predicted from the offline PTX (2048 FFMA, 128 16-byte local loads and about 56
# other instructions a 32-deep slice: FFMA 92 % of the loop, against the register-blocked
# kernel's 86 %): 128 x 128 tiles at 8192^2 about 49 TFLOPS if the SMs issue as often as for the
# register-blocked kernel (80 % of cycles), less if 8 warps an SM cannot hide the local loads'
# latency; 128 x 256 (8 x 16 blocks, 95 % FFMA) up to 51 if its registers hold; 64 x 128 tiles
# (two or three work-groups an SM, each its own pipeline) between the two.
tma_simt() {
    echo "== test_tensor_cores: the tma_simt candidates"
    TC_FAMILY=tma_simt timeout 300 "$B/tests/test_tensor_cores" -j16 2>&1 |
        grep -E "FAIL|Synthesis|wrong|Assert" | head -20
    echo "== ptxas on the tma_simt kernels this run built (WG_TYPE=6)"
    python3 bench/gpu/ptxas_report.py "$CLGEMM_CACHE_DIR" | grep "WG_TYPE=6"
    TB="$B/bench/clgemm-types-bench --no-clblast --runs 10"
    sq="s:8192,8192,8192 s:4096,4096,4096"
    for round in 1 2; do
        echo "== round $round: the default, then each candidate (row-major NN, then TN)"
        # shellcheck disable=SC2086
        $TB $sq --trans TN $sq | grep median
        for c in STAGES=4 STAGES=6 STAGES=4,PERSIST=2 NWG=256,STAGES=4,SETMAXNREG=2 \
            NWG=256,STAGES=3,PERSIST=2,SETMAXNREG=2 MWG=64,STAGES=4 MWG=64,STAGES=3; do
            echo "-- tma_simt $c"
            # shellcheck disable=SC2086
            timeout 120 $TB --force "tma_simt:MWG=128,NWG=128,KWG=32,$c" $sq --trans TN $sq |
                grep median
        done
    done
    $CUBLAS 8192,8192,8192 4096,4096,4096
}

# tma-fp64: predicted from the offline PTX (ptxas sm_90a): the K loop of 128 x 128 tiles takes 16
# DMMA.16x8x16, 24 local loads (32 where both operands are K-major or both MN-major: one of them
# read 8 bytes a value) and about 10 other instructions a 16-deep slice, the rest NOPs that stand
# for the DMMAs' stalls, where the mma family's default loop takes 155-164 instructions a slice;
# one DMMA.16x8x16 keeps a scheduler's FP64 tensor core 64 cycles, so two consumer warps a
# scheduler should keep it busy if the stages arrive in time. Row-major NN reads A MN-major and B
# K-major (every load 16 bytes into a fragment pair), TT the mirror (the instruction's A is then
# op(B)), NT both K-major (A's loads two to a bank), TN both MN-major.
tma_fp64() {
    echo "== test_tensor_cores: the tma_fp64 candidates"
    TC_FAMILY=tma_fp64 timeout 300 "$B/tests/test_tensor_cores" -j16 2>&1 |
        grep -E "FAIL|Synthesis|wrong|Assert" | head -20
    echo "== ptxas on the tma_fp64 kernels this run built (WG_TYPE=7)"
    python3 bench/gpu/ptxas_report.py "$CLGEMM_CACHE_DIR" | grep "WG_TYPE=7"
    TB="$B/bench/clgemm-types-bench --no-clblast --runs 10"
    echo "== 128 x 128 tiles checked in full, every transpose"
    for t in NN TN NT TT; do
        # shellcheck disable=SC2086
        timeout 120 $TB --force "tma_fp64:MWG=128,NWG=128,KWG=16,STAGES=4,SETMAXNREG=2" \
            --trans $t --check d:1031,517,263 d:2049,1031,97
    done
    sq="d:8192,8192,8192 d:4096,4096,4096"
    for round in 1 2; do
        echo "== round $round: the default (mma), then each candidate (row-major NN, TN, NT, TT)"
        # shellcheck disable=SC2086
        $TB $sq --trans TN $sq --trans NT $sq --trans TT $sq | grep median
        for c in MWG=128,NWG=128,STAGES=4,SETMAXNREG=2 MWG=128,NWG=128,STAGES=6,SETMAXNREG=2 \
            MWG=128,NWG=64,STAGES=6 MWG=128,NWG=64,STAGES=8 MWG=64,NWG=128,STAGES=6 \
            MWG=128,NWG=128,STAGES=4,PERSIST=2,SETMAXNREG=2 MWG=64,NWG=64,STAGES=4; do
            echo "-- tma_fp64 $c"
            # shellcheck disable=SC2086
            timeout 120 $TB --force "tma_fp64:KWG=16,$c" $sq --trans TN $sq --trans NT $sq \
                --trans TT $sq | grep median
        done
    done
    for t in NN TN NT TT; do
        $CUBLAS --fp64 --trans $t 8192,8192,8192 4096,4096,4096
    done
}

# fp32-fp64-vs-cublas: see the list above. Each clgemm line is the median of warm whole calls;
# cuBLAS and torch.bmm print theirs from the same process order, so ratios pair within a round.
fp32_fp64_vs_cublas() {
    # On a queue without profiling, as a user's is by default: NVIDIA's driver takes more host
    # time a launch on a profiling queue (H100: 7-15 us more on a narrow call of two or three
    # launches, bench/results/h100-profiling-queue-narrow-calls.log).
    TB="timeout 150 $B/bench/clgemm-types-bench --no-clblast --no-profiling"
    BB="timeout 150 $B/bench/clgemm-batched-bench --no-clblast --runs 20"
    sq="8192,8192,8192 4096,4096,4096 4097,4097,4097"
    narrow="8192,64,8192 4096,64,8192 16384,64,4096 8192,32,8192 64,8192,8192 256,256,16384"
    mid="1024 1536 2048 2304 2560 3072 3584 5000"
    mid=$(for n in $mid; do printf '%s,%s,%s ' "$n" "$n" "$n"; done)
    short="8192,8192,256 8192,8192,1024 4096,4096,1024"
    # shellcheck disable=SC2046,SC2086
    {
        for round in 1 2 3; do
            echo "-- round $round: squares, FP32 then FP64, cuBLAS beside"
            $TB --runs 10 $(mode_args s $sq) $(mode_args d $sq) | grep -E "^[sd] |rror"
            $CUBLAS $sq
            $CUBLAS --fp64 $sq
        done
        echo "-- FP64 4097^2 without the alignment copies, then with them"
        CLGEMM_ALIGN_COPIES=0 $TB --runs 10 d:4097,4097,4097 | grep -E "^d |rror"
        $TB --runs 10 d:4097,4097,4097 | grep -E "^d |rror"
        for round in 1 2; do
            echo "-- round $round: narrow and long K, cuBLAS beside"
            $TB --runs 20 $(mode_args s $narrow) $(mode_args d $narrow) | grep -E "^[sd] |rror"
            $CUBLAS $narrow
            $CUBLAS --fp64 $narrow
        done
        echo "-- mid squares, cuBLAS beside"
        $TB --runs 20 $(mode_args s $mid) $(mode_args d $mid) | grep -E "^[sd] |rror"
        $CUBLAS $mid
        $CUBLAS --fp64 $mid
        echo "-- short K, cuBLAS beside"
        $TB --runs 20 $(mode_args s $short) $(mode_args d $short) | grep -E "^[sd] |rror"
        $CUBLAS $short
        $CUBLAS --fp64 $short
        for round in 1 2; do
            echo "-- round $round: strided batches, torch.bmm beside"
            $BB $(mode_args s $BATCHES) $(mode_args d $BATCHES) 2>&1 | grep -E "clgemm|rror"
            $BMM $BATCHES
            $BMM --fp64 $BATCHES
        done
    }
    run_tests test_gemm test_split test_batched test_types test_pack test_tma
}

# fp32-layouts: FP32 in the default mode on every transpose (row-major NN, TN, NT, TT): the
# products over the MN-major copies checked in full first, then two alternated rounds of the
# defaults (tma_simt where both operands are MN-major, K-major ones copied so first where that
# pays), the same without the copies (CLGEMM_MN_MAJOR_COPIES=0) and the register-blocked default
# forced, tma_simt's tiles at the squares below its default's, and cuBLAS on the same transposes.
fp32_layouts() {
    echo "== test_pack on this device"
    timeout 300 "$B/tests/test_pack" 2>&1 | grep -E "FAIL|Synthesis|wrong|Assert" | head -20
    TB="$B/bench/clgemm-types-bench --no-clblast --runs 10"
    rb="regblock:MWG=256,NWG=128,KWG=8,MDIMC=16,NDIMC=16,KWI=8,VWM=4,VWN=4,VLOAD=2"
    echo "== checked in full (each transpose, edges, offsets, K split 3 ways)"
    $TB --check s:4096,4096,100 s:4160,4000,67
    sq="s:8192,8192,8192 s:4096,4096,4096 s:3072,3072,3072"
    small="s:3072,3072,3072 s:2560,2560,2560 s:2048,2048,2048"
    for round in 1 2; do
        for t in NN TN NT TT; do
            echo "-- round $round, row-major $t: default; no copies; $rb"
            # shellcheck disable=SC2086
            {
                $TB --trans $t $sq
                CLGEMM_MN_MAJOR_COPIES=0 $TB --trans $t $sq
                $TB --force $rb --trans $t $sq
            }
        done
        for c in NWG=128,STAGES=6 NWG=128,STAGES=4 NWG=64,STAGES=6 NWG=256,STAGES=4,SETMAXNREG=2; do
            echo "-- round $round, row-major TN, tma_simt $c"
            # shellcheck disable=SC2086
            $TB --force "tma_simt:MWG=128,KWG=32,$c" --trans TN $small
        done
    done
    for t in NN TN NT TT; do
        $CUBLAS --trans $t 8192,8192,8192 4096,4096,4096 3072,3072,3072 2560,2560,2560 \
            2048,2048,2048
    done
}

# fp32-mn-major-tiles: FP32 with both operands MN-major (row-major TN) below the tma_simt
# family's sizes: the default (256 x 128 tiles there) against the register-blocked tiles the
# row-major NN default takes (128 x 128, 128 x 64, 16-byte loads) and tma_simt's 128 x 128 tiles,
# forced, two alternated rounds, then row-major NN's default at the same squares, cuBLAS beside.
fp32_mn_major_tiles() {
    TB="$B/bench/clgemm-types-bench --no-clblast --runs 20"
    rb="regblock:KWG=8,MDIMC=16,KWI=8,VWM=4,VWN=4,VLOAD=2"
    sq="s:1536,1536,1536 s:1792,1792,1792 s:2048,2048,2048 s:2304,2304,2304 s:2560,2560,2560"
    sq="$sq s:2816,2816,2816 s:3072,3072,3072 s:3584,3584,3584"
    for round in 1 2; do
        echo "-- round $round, row-major TN: default, $rb 128x128, 128x64, tma_simt 128x128"
        # shellcheck disable=SC2086
        {
            $TB --trans TN $sq
            $TB --force "$rb,MWG=128,NWG=128,NDIMC=16" --trans TN $sq
            $TB --force "$rb,MWG=128,NWG=64,NDIMC=8" --trans TN $sq
            $TB --force "tma_simt:MWG=128,NWG=128,KWG=32,STAGES=4" --trans TN $sq
        }
    done
    echo "-- row-major NN: default"
    # shellcheck disable=SC2086
    $TB $sq
    # shellcheck disable=SC2086
    $CUBLAS --trans TN $(echo "$sq" | sed 's/s://g')
}

# fp32-nn-mid-tiles: FP32 row-major NN (B K-major) at the mid squares where 128 x 128 tiles
# leave a partial wave (2048^2-3072^2, 2176 x 3072 x 2176): the default against the register-blocked 256 x 128 and
# 128 x 64 tiles (16-byte loads) forced and against the default with stream-K off, two alternated
# rounds, then row-major TN's default at 1536^2 and 1792^2, cuBLAS beside.
fp32_nn_mid_tiles() {
    TB="$B/bench/clgemm-types-bench --no-clblast --runs 20"
    rb="regblock:KWG=8,MDIMC=16,KWI=8,VWM=4,VWN=4,VLOAD=2"
    sq="s:2048,2048,2048 s:2176,2176,2176 s:2304,2304,2304 s:2432,2432,2432 s:2560,2560,2560"
    sq="$sq s:2816,2816,2816 s:3072,3072,3072 s:2176,3072,2176"
    for round in 1 2; do
        echo "-- round $round, row-major NN: default, stream-K off, $rb 256x128, 128x64"
        # shellcheck disable=SC2086
        {
            $TB $sq
            CLGEMM_STREAMK=0 $TB $sq
            $TB --force "$rb,MWG=256,NWG=128,NDIMC=16" $sq
            $TB --force "$rb,MWG=128,NWG=64,NDIMC=8" $sq
        }
    done
    echo "-- row-major TN: default"
    $TB --trans TN s:1536,1536,1536 s:1792,1792,1792 s:2048,2048,2048
    # shellcheck disable=SC2086
    $CUBLAS $(echo "$sq" | sed 's/s://g')
    $CUBLAS --trans TN 1536,1536,1536 1792,1792,1792
}

# fp32-narrow-warpgroups: see the list above. The 32-row shapes' former default is 64 x 128 tiles
# in 4 stages (16 rows: the register-blocked family), the narrow-N shapes' 128 x 64 in 6; both
# forced keep the planner's K split.
fp32_narrow_warpgroups() {
    echo "== test_tensor_cores: the tma_simt candidates"
    TC_FAMILY=tma_simt timeout 300 "$B/tests/test_tensor_cores" -j16 2>&1 |
        grep -E "FAIL|Synthesis|wrong|Assert" | head -20
    TB="$B/bench/clgemm-types-bench --no-clblast --runs 20"
    rows="8192,32,8192 4096,32,8192 16384,32,4096 8192,16,8192"
    cols="64,8192,8192 64,4096,8192"
    for round in 1 2; do
        echo "-- round $round: defaults; 64 x 128 S4 (the 32-row shapes); 128 x 64 S6 (narrow N)"
        # shellcheck disable=SC2046,SC2086
        {
            $TB $(mode_args s $rows $cols)
            $TB --force tma_simt:MWG=64,NWG=128,KWG=32,STAGES=4 $(mode_args s $rows)
            $TB --force tma_simt:MWG=128,NWG=64,KWG=32,STAGES=6 $(mode_args s $cols)
            $CUBLAS $rows $cols
        }
    done
}

# fp32-tma-simt-shapes: FP32 shapes the defaults keep on the register-blocked family, with
# tma_simt's device-checked candidates forced: the narrow and long-K shapes (row-major NN, K split
# as planned) and strided batches (row-major NN, B K-major), two alternated rounds, cuBLAS and
# torch.bmm beside.
fp32_tma_simt_shapes() {
    TB="$B/bench/clgemm-types-bench --no-clblast --runs 20"
    BB="$B/bench/clgemm-batched-bench --runs 20"
    shapes="s:8192,64,8192 s:64,8192,8192 s:256,256,16384"
    batches="s:10000,64 s:1000,128 s:1000,256 s:300,384 s:100,512"
    for round in 1 2; do
        echo "-- round $round: default, then tma_simt forced"
        # shellcheck disable=SC2086
        {
            $TB $shapes
            $BB $batches 2>&1 | grep -vE "^#|^$|^-"
            for c in MWG=64,NWG=128,STAGES=6 MWG=128,NWG=64,STAGES=6 MWG=128,NWG=128,STAGES=4 \
                MWG=128,NWG=256,STAGES=4,SETMAXNREG=2; do
                echo "-- tma_simt $c"
                $TB --force "tma_simt:KWG=32,$c" $shapes
                $BB --force "tma_simt:KWG=32,$c" $batches 2>&1 | grep -vE "^#|^$|^-"
            done
        }
    done
    $CUBLAS 8192,64,8192 64,8192,8192 256,256,16384
    $BMM 10000,64 1000,128 1000,256 300,384 100,512
}

setmaxnreg() {
    echo "== test_tensor_cores: tma candidates with SETMAXNREG=2 (TF32 also from registers)"
    TC_FAMILY=tma TC_MATCH=SETMAXNREG=2 timeout 300 "$B/tests/test_tensor_cores" -j16 2>&1 |
        grep -E "FAIL|Synthesis|wrong|Assert" | head -20
    CLGEMM_TMA_A_REGISTERS=1 TC_FAMILY=tma TC_TYPES=s TC_MATCH=SETMAXNREG=2 timeout 300 \
        "$B/tests/test_tensor_cores" -j16 2>&1 | grep -E "FAIL|Synthesis|wrong|Assert" | head -20
    echo "== ptxas on the tma kernels this run built"
    python3 bench/gpu/ptxas_report.py "$CLGEMM_CACHE_DIR"
    tf="tma:MWG=128,NWG=256,KWG=32,STAGES=4,STAGE_C=2,SETMAXNREG=2"
    h="tma:MWG=128,NWG=256,KWG=64,STAGES=4,PERSIST=2,STAGE_C=2,SETMAXNREG=2"
    sq="8192,8192,8192 4096,4096,4096"
    # shellcheck disable=SC2046
    for round in 1 2; do
        echo "== round $round: defaults, then A from registers with SETMAXNREG=2 (TF32, 3xTF32)"
        "$B/bench/clgemm-types-bench" $(mode_args tf32 $sq) $(mode_args 3xtf32 $sq) \
            $(mode_args h 8192,8192,8192)
        CLGEMM_TMA_A_REGISTERS=1 "$B/bench/clgemm-types-bench" --force "$tf" \
            $(mode_args tf32 $sq) $(mode_args 3xtf32 $sq)
        "$B/bench/clgemm-types-bench" --force "$h" $(mode_args h 8192,8192,8192)
    done
    # shellcheck disable=SC2086
    $CUBLAS --tf32 $sq
    # shellcheck disable=SC2086
    $CUBLAS $sq
    $CUBLAS --fp16 8192,8192,8192
}

tensor_cores() {
    # The clgemm side runs under TC_ENV (empty: the built-in choice of family).
    sq="8192,8192,8192 4096,4096,4096 2048,2048,2048 4097,4097,4097"
    narrow="8192,64,8192 64,8192,8192"
    # shellcheck disable=SC2046,SC2086
    {
        echo "== FP16, BF16, TF32, 3xTF32 (types bench; TC_ENV='${TC_ENV:-}')"
        env ${TC_ENV:-} "$B/bench/clgemm-types-bench" $(mode_args h $sq $narrow) \
            $(mode_args b $sq $narrow) $(mode_args tf32 $sq) $(mode_args 3xtf32 $sq)
        echo "== FP16 and BF16 strided batches of 1000 x 256^3"
        env ${TC_ENV:-} "$B/bench/clgemm-batched-bench" --runs 20 h:1000,256 b:1000,256 2>&1 |
            grep -vE "^#|^$|^-"
        echo "== cuBLAS (3xTF32's reference: FP32), torch.bmm"
        $CUBLAS --fp16 $sq $narrow
        $CUBLAS --bf16 $sq $narrow
        $CUBLAS --tf32 $sq
        $CUBLAS $sq
        $BMM --fp16 1000,256
        $BMM --bf16 1000,256
        # cuBLAS's own 8192^2 figures move by 3-8 % from call to call (TF32 385-416 in one
        # session), more than the ratios in question: the headline squares alternate with it.
        echo "== 8192^2 FP16, BF16, TF32 alternated with cuBLAS, three rounds (median round)"
        for round in 1 2 3; do
            echo "-- round $round"
            env ${TC_ENV:-} "$B/bench/clgemm-types-bench" $(mode_args h 8192,8192,8192) \
                $(mode_args b 8192,8192,8192) $(mode_args tf32 8192,8192,8192)
            $CUBLAS --fp16 8192,8192,8192
            $CUBLAS --bf16 8192,8192,8192
            $CUBLAS --tf32 8192,8192,8192
        done
    }
}

tma() {
    # One device call's worth: the offline compile check's figures as the driver sees them
    # (-cl-nv-verbose: ptxas's registers, spills and local memory), the correctness matrix
    # (every type, C type, transpose, tile; edges, beta 0 with C poisoned, a batch), then kernel
    # time at issue 30's squares beside cuBLAS in the same run.
    sq="8192,8192,8192 4096,4096,4096 2048,2048,2048"
    echo "== clgemm-tma-check check"
    CLGEMM_BUILD_OPTIONS=-cl-nv-verbose "$B/bench/clgemm-tma-check" check
    echo "== clgemm-tma-check time"
    # shellcheck disable=SC2086
    "$B/bench/clgemm-tma-check" time $sq 4097,4097,4096 8192,64,8192 64,8192,8192
    echo "== cuBLAS"
    # shellcheck disable=SC2086
    $CUBLAS --fp16 $sq
    $CUBLAS --bf16 8192,8192,8192
    # shellcheck disable=SC2086
    $CUBLAS --tf32 8192,8192,8192 4096,4096,4096
}

mma8() {
    # Every 8-bit candidate of the mma family (its --quick list with K slices of 32 bytes or
    # more) through the tensor-core suite: both layouts, all transposes, edges, offsets, beta, host
    # arrays, K split in 3, against a long-double reference; Criterion's closing line and any
    # failure.
    echo "== test_tensor_cores, mma family, INT8 / E4M3 / E5M2"
    TC_FAMILY=mma TC_TYPES=i8,e4m3,e5m2 timeout 300 "$B/tests/test_tensor_cores" -j16 2>&1 |
        grep -E "FAIL|Synthesis|Assert|wrong" | head -40
}

eight_bit() {
    # INT8 and FP8 on their defaults (the tma family on an H200): both operands K-major (row-major
    # NT, as cuBLASLt's 8-bit products take them), then row-major NN (B copied K-major first),
    # beside cuBLASLt through PyTorch (its FP8 with and without fast accumulation), and FP8's
    # error at growing K on both sides.
    sq="8192,8192,8192 4096,4096,4096"
    echo "== 8-bit, row-major NT, then NN"
    # shellcheck disable=SC2046,SC2086
    "$B/bench/clgemm-types-bench" --trans NT $(mode_args i8 $sq) $(mode_args e4m3 $sq) \
        $(mode_args e4m3b $sq) $(mode_args e5m2 $sq) --trans NN $(mode_args i8 $sq) \
        $(mode_args e4m3b $sq)
    echo "== cuBLASLt"
    # shellcheck disable=SC2086
    {
        $CUBLAS --int8 $sq
        $CUBLAS --e4m3 $sq
        $CUBLAS --e4m3b $sq
        $CUBLAS --e4m3 --fast $sq
        $CUBLAS --e4m3b --fast $sq
    }
    echo "== FP8 error at growing K (clgemm: 64 sampled entries; cuBLASLt: all)"
    k="256,256,32 256,256,256 256,256,1024 256,256,8192"
    # shellcheck disable=SC2046,SC2086
    "$B/bench/clgemm-types-bench" --runs 2 --trans NT $(mode_args e4m3 $k)
    # shellcheck disable=SC2086
    python3 bench/gpu/fp8_accuracy.py $k
}

wgmma() {
    # The wgmma family forced (its default 128 x 128 tiles, then 128 x 256), beside mma.sync and
    # cuBLAS in the same run, then where its time goes (kernel build options: the copies alone,
    # the products alone, MN-major operands in the 32-byte swizzle, products draining behind the
    # next slice, the unswizzled layout, no proxy fence).
    sq="8192,8192,8192 4096,4096,4096 2048,2048,2048 4097,4097,4097"
    w2="wgmma:MWG=128,NWG=128,KWG=16,WM=64,WN=128,STAGES=6"
    w="wgmma:MWG=128,NWG=256,KWG=16,WM=64,WN=256,STAGES=4"
    wt="wgmma:MWG=128,NWG=256,KWG=8,WM=64,WN=256,STAGES=4"
    m="mma:MWG=128,NWG=128,KWG=32,WM=64,WN=64,STAGES=3"
    mt="mma:MWG=128,NWG=128,KWG=16,WM=64,WN=64,STAGES=3"
    # shellcheck disable=SC2046,SC2086
    {
        echo "== wgmma and mma.sync forced: FP16, BF16, TF32"
        "$B/bench/clgemm-types-bench" --force $w2 $(mode_args h $sq) b:8192,8192,8192 \
            --force $w $(mode_args h $sq) b:8192,8192,8192 \
            --force $wt tf32:8192,8192,8192 --force $m $(mode_args h $sq) b:8192,8192,8192 \
            --force $mt tf32:8192,8192,8192
        for o in -DDIAG_NO_MMA=1 -DDIAG_NO_LOAD=1 -DMN_SW128=0 "-DMN_SW128=0 -DDIAG_NO_MMA=1"; do
            echo "== wgmma 128 x 128 FP16 8192^2 built with $o"
            CLGEMM_BUILD_OPTIONS=$o "$B/bench/clgemm-types-bench" --force $w2 h:8192,8192,8192
        done
        for o in -DDIAG_NO_MMA=1 -DDIAG_NO_LOAD=1 -DMN_SW128=0 -DWAIT0=0 -DSW32=0 \
            -DDIAG_NO_PROXY_FENCE=1; do
            echo "== wgmma 128 x 256 FP16 8192^2 built with $o"
            CLGEMM_BUILD_OPTIONS=$o "$B/bench/clgemm-types-bench" --force $w h:8192,8192,8192
        done
        echo "== cuBLAS"
        $CUBLAS --fp16 $sq
        $CUBLAS --bf16 8192,8192,8192
        $CUBLAS --tf32 8192,8192,8192
    }
}

squares() {
    csv=${SQUARES_CSV:-h200-squares.csv}
    db=/tmp/clgemm-squares-tuning.json
    rm -f "$db"
    echo "== tune FP32 (squares and long K; FP64 keeps its defaults), database $db"
    "$B/tools/clgemm-tune" --precision s --shape 512 --shape 1024 --shape 2048 --shape 4096 \
        --shape 256,256,16384 --budget 75 --output "$db" 2>&1 | tail -8
    echo "== every square beside CLBlast (defaults and H200-tuned), CSV $csv"
    CLGEMM_TUNING_DB=$db "$B/bench/clgemm-bench" --preset gpu --clblast-params "$CLBLAST_H200" \
        --clblast-params-d none --csv "$csv" 2>&1 | grep -vE "^$"
    echo "== cuBLAS"
    $CUBLAS 512,512,512 1024,1024,1024 2048,2048,2048 4096,4096,4096 8192,8192,8192
    $CUBLAS --fp64 1024,1024,1024 4096,4096,4096 8192,8192,8192
    echo "plot: bench/plot.sh -o bench/results/h200-squares $csv"
}

call_cost() {
    echo "== warm call"
    "$B/bench/clgemm-overhead" --calls 3000 32 128 2>&1 | tail -8
    echo "== BLAS drop-in against the host API"
    "$B/bench/clgemm-blas-overhead" --runs 5 1024 8192
}

# multi-gpu: one host-array GEMM across the GPUs (issue 25), each count against one GPU of the
# same run; about 24 GiB of host arrays for FP64 32768^2.
multi_gpu() {
    nvidia-smi -L 2>/dev/null
    "$B/bench/clgemm-multi-bench" --runs 3 --devices 1,2,4 d:16384 d:32768 s:16384 s:32768
}

# lapack-factor: issue 35's factorizations, FACTOR_ROUNDS rounds (default one), the forced runs
# unless FACTOR_FORCED=0, the sizes run while FACTOR_BUDGET_S allows (bench/lapack_factor.sh predicts each from the one before). The LAPACK and BLAS are
# the ones bundled in .gpu/lib when there (reference LAPACK, which calls the BLAS entry points
# the drop-in takes; OpenBLAS as the host BLAS: the reference BLAS would take about half an hour
# for dgetrf at 16384 alone); what they resolve to is printed first.
lapack_factor() {
    lapack="" blas=""
    [ -e .gpu/lib/liblapack.so.3 ] && lapack=$PWD/.gpu/lib/liblapack.so.3
    [ -e .gpu/lib/libblas.so.3 ] && blas=$PWD/.gpu/lib/libblas.so.3
    # shellcheck disable=SC2086
    LAPACK=$lapack BLAS=$blas ROUNDS=${FACTOR_ROUNDS:-1} REPS=1 WARM=1 OWN_NB=1 NB=${FACTOR_NB:-} \
        FORCED=${FACTOR_FORCED:-1} \
        BUDGET_S=${FACTOR_BUDGET_S:-420} sh bench/lapack_factor.sh "$B" ${FACTOR_SIZES:-2048 4096 8192 12288 16384}
}

# tune: on a machine with two GPUs, for each default GPU shape of clgemm-tune (FP32 256^3,
# 1024^3, 4096^3), a 180 s search against a 10-minute one of the same space. Every search runs
# cold and alone on its GPU (its own database and kernel cache, the driver's cache off), and
# each pair's two results are then re-timed from their databases by clgemm-bench, alternating,
# beside the built-in default: the searches' own timings are not what is compared. The searches
# outlast one command of 10 minutes: `tune start S` copies the build to $W and runs one chain per
# GPU in the background, `tune wait S` waits at most S seconds for both (repeat until both are
# done). Each prints the logs so far.
W=/tmp/clgemm-tune-compare
tune_collect() {
    for f in "$W"/logs/*.log; do
        echo "#### $f"
        cat "$f"
    done
}
tune_one() { # gpu side budget tag
    mkdir -p "$W/kern-$4"
    echo "$(date -u +%T) tune $2^3 for $3 s on GPU $1 ($4)"
    CUDA_VISIBLE_DEVICES=$1 CUDA_CACHE_DISABLE=1 CLGEMM_CACHE_DIR=$W/kern-$4 \
        "$B/tools/clgemm-tune" --shape "$2" --budget "$3" --output "$W/db-$4.json" \
        >"$W/logs/tune-$4.log" 2>&1
    echo "$(date -u +%T) done: $(grep -E '^s NN' "$W/logs/tune-$4.log")"
}
tune_retime() { # gpu side: the 180 s and 600 s results and the default, 3 rounds, alternating
    for round in 1 2 3; do
        for db in "$W/db-$2-180.json" "$W/db-$2-600.json" /tmp/none.json; do
            printf '%s round %s %-28s' "$2^3" $round "$(basename "$db")"
            CUDA_VISIBLE_DEVICES=$1 CLGEMM_TUNING_DB=$db "$B/bench/clgemm-bench" --no-clblast \
                --precision s --layout col --runs 30 --shape "$2,$2,$2" 2>&1 | grep -E "^s " |
                awk '{print " " $8 " GFLOPS  " $0}' | cut -c1-200
        done
    done
}
tune() {
    case "${1:-}" in
    start)
        rm -rf "$W"
        mkdir -p "$W/logs"
        cp -r "$B" bench "$W/"
        [ -d .gpu ] && cp -r .gpu "$W/"
        nvidia-smi -L
        for g in 0 1; do
            echo "CUDA_VISIBLE_DEVICES=$g:"
            CUDA_VISIBLE_DEVICES=$g "$B/tools/clgemm-tune" --list | grep -E "^ +[0-9]+:"
        done
        (cd "$W" && setsid sh bench/gpu/run.sh tune chain0 >"$W/logs/chain0.log" 2>&1 </dev/null &)
        (cd "$W" && setsid sh bench/gpu/run.sh tune chain1 >"$W/logs/chain1.log" 2>&1 </dev/null &)
        sleep "${2:-60}"
        nvidia-smi --query-gpu=index,utilization.gpu,memory.used --format=csv
        tune_collect
        ;;
    wait)
        end=$(($(date +%s) + ${2:-585}))
        while [ "$(date +%s)" -lt $end ] && ! { [ -e "$W/done0" ] && [ -e "$W/done1" ]; }; do
            sleep 5
        done
        nvidia-smi --query-gpu=index,utilization.gpu,memory.used --format=csv
        tune_collect
        ;;
    chain0)
        export CLGEMM_CACHE_DIR=/tmp/clgemm-tune-compare-bench0
        tune_one 0 4096 600 4096-600
        tune_one 0 1024 600 1024-600
        tune_retime 0 1024
        touch "$W/done0"
        ;;
    chain1)
        export CLGEMM_CACHE_DIR=/tmp/clgemm-tune-compare-bench1
        tune_one 1 256 600 256-600
        tune_one 1 4096 180 4096-180
        tune_one 1 1024 180 1024-180
        tune_one 1 256 180 256-180
        tune_retime 1 4096
        tune_retime 1 256
        touch "$W/done1"
        ;;
    *)
        echo "usage: bench/gpu/run.sh tune start|wait [SECONDS]" >&2
        return 2
        ;;
    esac
}

header() {
    echo "#### $1: $(date -u '+%F %T') UTC, built at $(cat "$B/bench/build-commit" 2>/dev/null || echo unknown)"
    nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null
}

if [ "$1" = tune ]; then
    shift
    case "${1:-}" in chain*) ;; *) header tune ;; esac
    tune "$@"
    exit
fi
for suite in "$@"; do
    header "$suite"
    case $suite in
    device-tests) device_tests ;;
    fp32-shapes) fp32_shapes ;;
    fp32-sweep) fp32_sweep ;;
    fp64-shapes) fp64_shapes ;;
    fp64-sweep) fp64_sweep ;;
    align-copies) align_copies ;;
    fp32-loop-addressing) fp32_loop_addressing ;;
    fp64-loop) fp64_loop ;;
    stream-k) stream_k ;;
    streamk-fixup) streamk_fixup ;;
    streamk-waves) streamk_waves ;;
    tail-registers) tail_registers ;;
    tile-bands) tile_bands ;;
    narrow-tiles) narrow_tiles ;;
    batched) batched ;;
    types) types ;;
    tensor-cores) tensor_cores ;;
    tf32-registers) tf32_registers ;;
    tma-simt) tma_simt ;;
    tma-fp64) tma_fp64 ;;
    fp32-fp64-vs-cublas) fp32_fp64_vs_cublas ;;
    fp32-layouts) fp32_layouts ;;
    fp32-mn-major-tiles) fp32_mn_major_tiles ;;
    fp32-nn-mid-tiles) fp32_nn_mid_tiles ;;
    fp32-narrow-warpgroups) fp32_narrow_warpgroups ;;
    fp32-tma-simt-shapes) fp32_tma_simt_shapes ;;
    setmaxnreg) setmaxnreg ;;
    wgmma) wgmma ;;
    mma8) mma8 ;;
    tma) tma ;;
    eight-bit) eight_bit ;;
    squares) squares ;;
    call-cost) call_cost ;;
    multi-gpu) multi_gpu ;;
    lapack-factor) lapack_factor ;;
    esac
    echo "#### $suite: end $(date -u +%T)"
done
