#!/bin/sh
# cblas_against_reference.sh: runs cblas_calls built against the drop-in and against reference
# CBLAS (loaded by its path) and fails unless both print the same lines (numbers to a relative
# 1e-4): every layout and letter
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
    # The same words, and the same numbers to a relative 1e-4: with another BLAS as the system
    # BLAS (OpenBLAS's ctrsm, say) a solve's last printed digit may differ (0.8 against
    # 0.800001), while a wrong letter map changes whole results.
    differing=$(awk 'NR == FNR { ref[FNR] = $0; n = FNR; next }
        function num(x) { return x ~ /^-?[0-9]+(\.[0-9]*)?(e[-+]?[0-9]+)?$/ }
        function near(x, y,   d, s) {
            d = x - y; if (d < 0) d = -d; s = x < 0 ? -x : x; if (s < 1) s = 1
            return d <= 1e-4 * s
        }
        { if ($0 == ref[FNR]) next
          k = split(ref[FNR], a, " "); if (split($0, b, " ") != k) { bad++; next }
          for (i = 1; i <= k; i++)
              if (a[i] != b[i] && !(num(a[i]) && num(b[i]) && near(a[i] + 0, b[i] + 0))) { bad++; next } }
        END { if (FNR != n) bad++; print bad + 0 }' "$work/reference" "$work/$mode")
    if [ "$differing" -ne 0 ]; then
        echo "FAIL ($mode): $differing of $lines calls differ from reference CBLAS (< reference, > drop-in):"
        diff "$work/reference" "$work/$mode" | head -40
        failed=1
    elif ! cmp -s "$work/reference" "$work/$mode"; then
        echo "$mode: all $lines calls as reference CBLAS, $(diff "$work/reference" "$work/$mode" | grep -c '^<') within rounding"
    else
        echo "$mode: all $lines calls as reference CBLAS"
    fi
done
exit $failed
