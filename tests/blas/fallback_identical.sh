#!/bin/sh
# fallback_identical.sh: on a host without a usable OpenCL device (an empty ICD folder), LAPACK's
# dgetrf, dpotrf and dgeqrf through the preloaded drop-in give the same bits as through the
# system BLAS alone: every call the drop-in takes (?gemm, ?syrk, ?trsm, ?trmm) must reach the
# system BLAS's own routine whole, not a blocked or tiled form of it. Compared by
# clgemm-lapack-factor-bench's hash of each factor (FNV-1a of its bits and of ipiv / tau), with
# the drop-in's settings as they come and with every call above a threshold of 0 and blocks of
# 16 (what would put every call on a device, and split every ?trsm / ?trmm, had there been one);
# the drop-in's summary must show the calls it took, all on the system BLAS. Reference LAPACK
# (it calls the BLAS entry points; OpenBLAS's own LAPACK would not) in front of whatever
# libblas.so.3 resolves to.
# Usage: fallback_identical.sh CLGEMM_LAPACK_FACTOR_BENCH LIBCLGEMM_BLAS.so
set -u
bench=$1
lib=$(readlink -f "$2")
lapack=/usr/lib/x86_64-linux-gnu/lapack/liblapack.so.3
[ -e "$lapack" ] || { echo "reference LAPACK missing ($lapack): skipped"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/links" "$work/empty-icd"
ln -s "$(readlink -f "$lapack")" "$work/links/liblapack.so.3"
export LD_LIBRARY_PATH="$work/links${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
# The sizes compared: 200, and 520, whose largest updates reach the default 1e8 flops.
"$bench" -r 1 -w 0 200 520 > "$work/system" 2> /dev/null || { echo "FAIL: the bench without the drop-in"; exit 1; }
failed=0
for settings in "" "CLGEMM_BLAS_MIN_FLOPS=0 CLGEMM_BLAS_BLOCK=16"; do
    # shellcheck disable=SC2086
    env $settings OCL_ICD_VENDORS="$work/empty-icd" CLGEMM_BLAS_LOG=1 LD_PRELOAD="$lib" \
        "$bench" -r 1 -w 0 200 520 > "$work/dropin" 2> "$work/log"
    echo "== drop-in, no device, settings: ${settings:-default}"
    cat "$work/dropin"
    grep "calls:" "$work/log"
    # routine n seconds gflops checksum hash: the hashes must agree line by line.
    if ! awk 'NR == FNR { h[$1 " " $2] = $6; next } FNR > 1 && h[$1 " " $2] != $6 { bad = 1;
              print "FAIL: " $1 " " $2 ": hash " $6 ", system BLAS alone " h[$1 " " $2] }
              END { exit bad }' "$work/system" "$work/dropin"; then
        failed=1
    fi
    [ "$(grep -c '' "$work/dropin")" -eq 7 ] || { echo "FAIL: not every factorization ran"; failed=1; }
    for r in dgemm dtrsm dsyrk dtrmm; do
        line=$(grep " $r calls:" "$work/log")
        system=$(echo "$line" | sed -n 's/.* system=\([0-9]*\).*/\1/p')
        device=$(echo "$line" | sed -n 's/.* device=\([0-9]*\).*/\1/p')
        if [ "${system:-0}" -eq 0 ] || [ "${device:-1}" -ne 0 ]; then
            echo "FAIL: $r: expected its calls on the system BLAS only ($line)"
            failed=1
        fi
    done
done
[ $failed -eq 0 ] && echo "the factors are bit-identical with and without the drop-in"
exit $failed
