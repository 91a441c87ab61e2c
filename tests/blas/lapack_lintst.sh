#!/bin/sh
# lapack_lintst.sh: LAPACK's own double-precision linear-equation tester (xlintstd from Debian's
# liblapack-test) with the drop-in preloaded and every BLAS call it can take forced onto the
# device (CLGEMM_BLAS_MIN_FLOPS=0; CLGEMM_BLAS_BLOCK=4, so every ?trsm/?trmm/?symm/?syr2k larger
# than 4 is split into GEMM updates on the device), judged by the tester's own output: it must
# reach "End of tests" with no test over its threshold, no error-exit failure and no error code
# from a routine, and the drop-in's summary must show dgemm and the blocked routines on the
# device (else the run would not have tested the drop-in). Reference LAPACK is preloaded by its
# path: an optimised LAPACK (OpenBLAS's, where it is the liblapack.so.3 alternative) calls its
# own kernels instead of dgemm_ and friends, so nothing would reach the drop-in.
# Usage: lapack_lintst.sh LIBCLGEMM_BLAS.so [INPUT]   (INPUT: xlintstd's data file; default the
# package's dtest.in, all 44 groups: 1 to 3.5 min on PoCL with 2 shared cores, kernels cached)
set -u
lib=$(readlink -f "$1")
dir=/usr/lib/x86_64-linux-gnu/lapack
input=$(readlink -f "${2:-$dir/dtest.in}")
[ -x "$dir/xlintstd" ] && [ -e "$dir/liblapack.so.3" ] && [ -e "$input" ] ||
    { echo "liblapack-test missing: skipped"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
start=$(date +%s)
CLGEMM_BLAS_MIN_FLOPS=0 CLGEMM_BLAS_BLOCK=4 CLGEMM_BLAS_LOG=1 \
    LD_PRELOAD="$lib $dir/liblapack.so.3" "$dir/xlintstd" < "$input" > out 2> err
status=$?
echo "xlintstd: exit status $status after $(($(date +%s) - start)) s"
failed=0
fail() {
    echo "FAIL: $*"
    failed=1
}
# It exits 0 with tests over the threshold too: the output is the verdict.
[ $status -eq 0 ] || fail "exit status $status"
grep -q "End of tests" out || fail "did not reach End of tests"
# Its failure lines: "... out of ... tests failed to pass the threshold", "*** Error code from
# ...", "*** Illegal value of parameter ...", "*** XERBLA was not called ..." and the like.
pattern="fail|\*\*\*"
if grep -q -i -E "$pattern" out err; then
    grep -n -i -E "$pattern" out err | head -40
    fail "$(grep -c -i -E "$pattern" out) failure lines (the first 40 above)"
fi
groups=$(grep -c "passed the threshold" out)
exits=$(grep -c "passed the tests of the error exits" out)
echo "xlintstd: $groups groups passed the threshold, $exits passed the error exits"
[ "$groups" -gt 0 ] && [ "$exits" -gt 0 ] || fail "no passed group in the output"
for r in dgemm dtrsm dtrmm dsymm; do
    counts=$(grep " $r calls:" err)
    echo "$counts"
    device=$(echo "$counts" | sed -n 's/.*device=\([0-9]*\).*/\1/p')
    [ -n "$device" ] && [ "$device" -gt 0 ] || fail "no $r call on the device"
done
[ $failed -eq 0 ] && echo "xlintstd: every test passed with the drop-in on the device"
[ $failed -eq 0 ] || { echo "--- last lines of the output:"; tail -30 out; }
exit $failed
