#!/bin/sh
# pdgemm.sh: ScaLAPACK's PDGEMM on 4 MPI ranks (examples/pdgemm.c) twice: with
# libclgemm_blas preloaded as every rank's BLAS (threshold 0: each local dgemm on the device)
# and on the system BLAS alone. Both must match the host reference, every rank must have sent
# its dgemm calls to the device, and the two results must be identical: the entries are
# multiples of 2^-10 below 1, so every product and partial sum is exact in double and any
# summation order gives the same bits.
# Usage: pdgemm.sh CLGEMM_PDGEMM LIBCLGEMM_BLAS.so
set -u
exe=$(readlink -f "$1")
lib=$(readlink -f "$2")
command -v mpirun >/dev/null || { echo "mpirun missing: skipped"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# Root in CI; one rank per core is not available on small machines.
run="mpirun --allow-run-as-root --oversubscribe -np 4"
size="300 260 280 32"
failed=0

$run -x CLGEMM_TUNING_DB -x CLGEMM_CACHE_DIR -x LD_PRELOAD="$lib" -x CLGEMM_BLAS_MIN_FLOPS=0 \
    -x CLGEMM_BLAS_LOG=1 "$exe" $size "$work/device" > "$work/device.out" 2>&1 || failed=1
cat "$work/device.out"
$run "$exe" $size "$work/system" > "$work/system.out" 2>&1 || failed=1
cat "$work/system.out"

grep -q "max error .*: ok" "$work/device.out" || { echo "FAIL: device run wrong"; failed=1; }
grep -q "max error .*: ok" "$work/system.out" || { echo "FAIL: system run wrong"; failed=1; }
ranks=$(grep "dgemm calls: device=[1-9][0-9]* system=0 builtin=0" "$work/device.out" | wc -l)
[ "$ranks" -eq 4 ] || { echo "FAIL: $ranks of 4 ranks ran their dgemm calls on the device"; failed=1; }
grep -q "clgemm_blas" "$work/system.out" && { echo "FAIL: the system run loaded clgemm_blas"; failed=1; }
for r in 0 1 2 3; do
    cmp -s "$work/device.$r" "$work/system.$r" || { echo "FAIL: rank $r: results differ"; failed=1; }
done
[ $failed -eq 0 ] && echo "pdgemm on 4 ranks: device and system BLAS agree"
exit $failed
