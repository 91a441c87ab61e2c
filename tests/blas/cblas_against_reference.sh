#!/bin/sh
# cblas_against_reference.sh: runs cblas_calls built against the drop-in and against reference
# CBLAS (loaded by its path) and fails unless both print the same lines: every layout and letter
# value (side, uplo, transpose, diagonal) and bad size of cblas_?gemm/?syrk/?herk/?trsm/?trmm/
# ?symm/?hemm/?syr2k/?her2k computes the same C (B), or is refused by the same handler with the
# same routine, number and message. The drop-in runs twice: small
# calls on the system BLAS (whatever libblas.so.3 is), and on its built-in loops without one.
# Usage: cblas_against_reference.sh CBLAS_CALLS_DROPIN CBLAS_CALLS_REFERENCE
set -u
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$2" > "$work/reference" || { echo "FAIL: the reference run exited $?"; exit 1; }
lines=$(wc -l < "$work/reference")
# A short output would compare nothing: each kind of outcome must be there.
for want in "no error" "cblas_xerbla(1," "cblas_xerbla(3, cblas_zsyrk, \"Illegal Uplo" \
    "xerbla_(ZSYRK , 2)" "xerbla_(ZHERK , 2)" "xerbla_(DGEMM , 13)" \
    "cblas_xerbla(5, cblas_ztrsm, \"Illegal Diag" "xerbla_(DTRSM , 11)" "xerbla_(STRMM , 9)" \
    "cblas_xerbla(2, cblas_ssymm, \"Illegal Side" "xerbla_(ZHEMM , 9)" \
    "cblas_xerbla(3, cblas_dsyr2k, \"Illegal Uplo" "cblas_xerbla(2, cblas_zher2k, \"Illegal Uplo" \
    "xerbla_(CSYR2K, 2)" "xerbla_(ZHER2K, 2)"; do
    grep -qF "$want" "$work/reference" || { echo "FAIL: no \"$want\" in the reference's output"; exit 1; }
done
failed=0
for mode in system builtin; do
    if [ $mode = builtin ]; then
        mkdir -p "$work/empty-icd"
        OCL_ICD_VENDORS="$work/empty-icd" CLGEMM_BLAS_FALLBACK=none "$1" > "$work/$mode"
    else
        "$1" > "$work/$mode"
    fi
    status=$?
    if [ $status -ne 0 ]; then echo "FAIL ($mode): the drop-in run exited $status"; failed=1; fi
    if ! diff "$work/reference" "$work/$mode" > "$work/diff"; then
        echo "FAIL ($mode): $(grep -c '^<' "$work/diff") of $lines calls differ from reference CBLAS (< reference, > drop-in):"
        head -40 "$work/diff"
        failed=1
    else
        echo "$mode: all $lines calls as reference CBLAS"
    fi
done
exit $failed
