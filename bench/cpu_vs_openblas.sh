#!/bin/sh
# cpu_vs_openblas.sh: clgemm on a CPU device beside OpenBLAS in the same clgemm-bench run
# (--reference openblas), on the squares and long shapes of issue 34: FP32, FP64, complex FP32
# and FP64, and BF16 A and B with FP32 C (OpenBLAS's cblas_sbgemm, where the library has it: the
# bench says so when not), built-in defaults and no tuning database. Each FP32 and FP64 problem
# runs twice per round, adjacent: as the library plans it ("new") and with the micro-kernel's
# blocked schedule off (CLGEMM_PACK_KC=0: operands read in place, the library before that
# schedule, "off"), so both ratios come from the same minute of a machine whose speed swings;
# the other types run only as planned (complex has been blocked since this family took it, and
# in place it takes minutes a call at 4096^2). Prints the bench's rows prefixed with round and
# mode; bench/cpu_vs_openblas_summary.py turns them into ranges. BASELINE, a build of an earlier
# commit, adds a third mode "base": the same problem in that build, adjacent too, so that a change
# of defaults is timed against the library before it; MODES picks among new, off and base
# (default "new off", and base where BASELINE is set). Each round runs the modes of a problem in
# the opposite order to the round before. PROBLEMS narrows the problems: squares as N, other
# shapes as M,N,K (row-major, as the bench's --shape), default issue 34's list.
# Usage: bench/cpu_vs_openblas.sh BUILD_DIR [ROUNDS]   (OPENBLAS_NUM_THREADS: default 2;
#        POCL_AFFINITY: default 1;
#        PRECISIONS: the bench's letters, default "s d c z b"; BASELINE: a build dir; MODES;
#        PROBLEMS)
set -eu
build=$(readlink -f "$1")
rounds=${2:-3}
precisions=${PRECISIONS:-s d c z b}
problems=${PROBLEMS:-256 512 1024 1536 2048 3000 4096 8192,64,8192 64,8192,8192 256,256,16384}
baseline=${BASELINE:+$(readlink -f "$BASELINE")}
all_modes=${MODES:-new off${baseline:+ base}}
# PoCL's worker threads pinned one a core (POCL_AFFINITY=1) unless the caller says otherwise:
# unpinned, the kernel's scheduler sometimes keeps both on one core for a whole process (short
# calls wake them one after the other), and that process times every problem at half speed.
export CLGEMM_TUNING_DB=/nonexistent.json OPENBLAS_NUM_THREADS="${OPENBLAS_NUM_THREADS:-2}" \
    POCL_AFFINITY="${POCL_AFFINITY:-1}"
echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), commit $(git -C "$(dirname "$0")" rev-parse --short HEAD)"
echo "# CPU: $(lscpu | sed -n 's/^Model name: *//p' | head -1), $(nproc) cores," \
    "AVX-512: $(grep -q avx512f /proc/cpuinfo && echo yes || echo no)"
echo "# command: bench/cpu_vs_openblas.sh BUILD $rounds, OPENBLAS_NUM_THREADS=$OPENBLAS_NUM_THREADS" \
    "POCL_AFFINITY=$POCL_AFFINITY${OPENBLAS_CORETYPE:+ OPENBLAS_CORETYPE=$OPENBLAS_CORETYPE}," \
    "PRECISIONS=\"$precisions\" MODES=\"$all_modes\" PROBLEMS=\"$problems\"${baseline:+ BASELINE: commit $(git -C "$baseline" \
        rev-parse --short HEAD 2>/dev/null || echo "$baseline")}"
for r in $(seq "$rounds"); do
    for p in $precisions; do
        for size in $problems; do
            case "$size" in *,*) prob="--shape $size" ;; *) prob="--sizes $size" ;; esac
            runs=5
            case "$prob" in *3000* | *4096*) runs=3 ;; esac
            modes=""
            for mode in $all_modes; do
                case "$mode,$p" in off,[!sd]) continue ;; esac
                # odd rounds in the order given, even rounds reversed
                if [ $((r % 2)) = 1 ]; then modes="$modes $mode"; else modes="$mode $modes"; fi
            done
            for mode in $modes; do
                pack="" bench="$build"
                [ "$mode" = off ] && pack=0
                [ "$mode" = base ] && bench="$baseline"
                # shellcheck disable=SC2086 # $prob is two words
                CLGEMM_PACK_KC="$pack" "$bench/bench/clgemm-bench" --reference openblas $prob \
                    --precision "$p" --runs "$runs" 2>&1 | grep -E "^[sdczb] |no cblas_sbgemm" |
                    sed "s/^/round $r $mode  /"
            done
        done
    done
done
