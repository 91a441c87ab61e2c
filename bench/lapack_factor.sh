#!/bin/sh
# lapack_factor.sh: LAPACK's dgetrf, dpotrf, dgeqrf (clgemm-lapack-factor-bench) in up to five runs
# a size: host, without the drop-in; own_nb, libclgemm_blas preloaded (its measured rule: each call
# where calls like it have been faster) with LAPACK's own block size (CLGEMM_BLAS_LAPACK_NB=0);
# dropin, the same with the drop-in's default block size (512 with a GPU device, LAPACK's own with
# a CPU one: then it repeats own_nb); block, the same with LAPACK's block size NB
# (CLGEMM_BLAS_LAPACK_NB); forced, the drop-in's defaults with every call of CLGEMM_BLAS_MIN_FLOPS
# or more on the device (CLGEMM_BLAS_RULE=flops: what the device alone does, and how much of that
# is copies). CLGEMM_BLAS_LAPACK_NB of the caller is dropped. Tables
# (bench/lapack_factor_report.awk): per routine and size the median seconds and GFLOPS of each run,
# the speed-up over the host run and whether the factors agree; the speed-ups round by round (the
# host run's seconds over each kind's of the same round: median, min-max); from one more run of
# each drop-in kind with CLGEMM_BLAS_LOG=2 (not timed: its line a call costs time), the share of
# the time the copies to and from the device took (the copy commands' device time; copies
# overlap the multiplies, so it says how long the bus was busy, not time added) with the bytes
# moved, and the share of each BLAS routine the log times, with its calls on the device / calls.
#
# Usage: bench/lapack_factor.sh BUILD_DIR N...
# Environment: ROUNDS (2; rounds alternate the runs), REPS (1; timed calls a run), WARM (1: each
# drop-in run factors once untimed first: kernels, buffers, the rule's measurements; the host run
# is not warmed), OWN_NB (1: the own_nb run), NB (unset: no block run), FORCED (1: the forced run),
# LAPACK and BLAS (the liblapack.so.3 and libblas.so.3 put first on LD_LIBRARY_PATH; LAPACK
# defaults to Debian's reference LAPACK where installed: OpenBLAS's own liblapack.so.3 factors
# inside OpenBLAS and calls no BLAS entry point the drop-in could take), BUDGET_S (0: none; else a
# size, or its forced run, starts only if the time so far plus a prediction from the size before
# (its time times the ratio of n^3) fits). TERM or INT: the tables of the runs done so far.
set -eu
build=$(readlink -f "$1")
shift
here=$(dirname "$(readlink -f "$0")")
rounds=${ROUNDS:-2} reps=${REPS:-1} warm=${WARM:-1} nb=${NB:-} forced=${FORCED:-1}
own_nb=${OWN_NB:-1} budget=${BUDGET_S:-0}
unset CLGEMM_BLAS_LAPACK_NB
bench="$build/bench/clgemm-lapack-factor-bench"
lib="$build/blas/libclgemm_blas.so"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
reference_lapack=/usr/lib/x86_64-linux-gnu/lapack/liblapack.so.3
lapack=${LAPACK:-}
[ -z "$lapack" ] && [ -e "$reference_lapack" ] && lapack=$reference_lapack
mkdir "$work/links"
[ -n "$lapack" ] && ln -s "$(readlink -f "$lapack")" "$work/links/liblapack.so.3"
[ -n "${BLAS:-}" ] && ln -s "$(readlink -f "$BLAS")" "$work/links/libblas.so.3"
LD_LIBRARY_PATH="$work/links${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export LD_LIBRARY_PATH

avx512=no
grep -q avx512f /proc/cpuinfo 2> /dev/null && avx512=yes
echo "CPU: $(lscpu | sed -n 's/^Model name: *//p' | head -1) (AVX-512: $avx512), $(nproc) cores"
echo "command: ROUNDS=$rounds REPS=$reps WARM=$warm OWN_NB=$own_nb NB=$nb FORCED=$forced BUDGET_S=$budget bench/lapack_factor.sh BUILD $*"
{ ldd "$bench"; ldd "$lib"; } |
    awk '$1 ~ /^(liblapack|libblas|libopenblas|libgfortran|libclgemm|libOpenCL)/ && !seen[$1]++ { print $1, $3 }' |
    while read -r name path; do echo "$name -> $(readlink -f "$path")"; done

now_ms() { echo $(($(date +%s%N) / 1000000)); }
start=$(now_ms)
# run KIND N ROUND: one process of the bench at one size. ROUND p is the drop-in's profile run:
# CLGEMM_BLAS_LOG=2 writes a line per BLAS call (a few microseconds each: dpotrf 2048 makes
# over 4,000 calls), so the timed rounds run without it and only the profile run's log gives
# the shares of time (its own seconds are not in the tables).
run() {
    out="$work/$1.$2.$3"
    log=1
    [ "$3" = p ] && log=2
    case $1 in
    host) "$bench" -r "$reps" -w 0 "$2" > "$out" 2> /dev/null ;;
    own_nb) CLGEMM_BLAS_LAPACK_NB=0 CLGEMM_BLAS_LOG=$log LD_PRELOAD="$lib" \
        "$bench" -r "$reps" -w "$warm" "$2" > "$out" 2> "$out.log" ;;
    dropin) CLGEMM_BLAS_LOG=$log LD_PRELOAD="$lib" "$bench" -r "$reps" -w "$warm" "$2" > "$out" 2> "$out.log" ;;
    block) CLGEMM_BLAS_LAPACK_NB=$nb CLGEMM_BLAS_LOG=$log LD_PRELOAD="$lib" \
        "$bench" -r "$reps" -w "$warm" "$2" > "$out" 2> "$out.log" ;;
    forced) CLGEMM_BLAS_RULE=flops CLGEMM_BLAS_LOG=$log LD_PRELOAD="$lib" \
        "$bench" -r "$reps" -w "$warm" "$2" > "$out" 2> "$out.log" ;;
    esac
}
# fits MS: whether the budget has room for MS more milliseconds.
fits() {
    [ "$budget" -eq 0 ] || [ $(($(now_ms) - start + $1)) -le $((budget * 1000)) ]
}
# scale MS: a time of the size before (prev_n), predicted for n.
scale() { awk -v t="$1" -v n="$n" -v p="$prev_n" 'BEGIN { printf "%d", p ? t * (n / p) ^ 3 : 0 }'; }
# report: the tables of every run so far.
report() {
    sed -n 's/^clgemm_blas: device: /device: /p' "$work"/*.log 2> /dev/null | head -1
    echo "elapsed: $((($(now_ms) - start) / 1000)) s"
    echo
    # shellcheck disable=SC2046
    (cd "$work" && awk -v reps="$reps" -f "$here/lapack_factor_report.awk" \
        $(printf '%s\n' ./* | sed 's|^\./||' | grep -E '^(host|own_nb|dropin|block|forced)\.[0-9]+\.([0-9]+|p)(\.log)?$' |
            sort -t. -k2,2n -k3,3n -k1,1))
}
trap 'echo "stopped after $((($(now_ms) - start) / 1000)) s"; report; exit 143' TERM INT

main_kinds=host
[ "$own_nb" = 1 ] && main_kinds="$main_kinds own_nb"
main_kinds="$main_kinds dropin"
[ -n "$nb" ] && main_kinds="$main_kinds block"
prev_n=0 prev_main=0 prev_forced=0
for n in "$@"; do
    if ! fits "$(scale $prev_main)"; then
        echo "skipped: n = $n and above (predicted $(($(scale $prev_main) / 1000)) s, past BUDGET_S)"
        break
    fi
    if [ "$forced" = 1 ] && ! fits "$(($(scale $prev_main) + $(scale $prev_forced)))"; then
        echo "skipped: the forced runs from n = $n on (predicted $(($(scale $prev_forced) / 1000)) s more)"
        forced=0
    fi
    main_ms=0 forced_ms=0 r=1
    while [ "$r" -le "$rounds" ]; do
        t0=$(now_ms)
        for kind in $main_kinds; do run "$kind" "$n" "$r"; done
        t1=$(now_ms)
        main_ms=$((main_ms + t1 - t0))
        if [ "$forced" = 1 ]; then
            run forced "$n" "$r"
            forced_ms=$((forced_ms + $(now_ms) - t1))
        fi
        r=$((r + 1))
    done
    # The profile runs (ROUND p), after the timed ones: where the drop-in runs' time went.
    for kind in $main_kinds; do [ "$kind" = host ] || run "$kind" "$n" p; done
    [ "$forced" = 1 ] && run forced "$n" p
    prev_n=$n prev_main=$main_ms prev_forced=$forced_ms
done
report
