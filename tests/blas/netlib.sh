#!/bin/sh
# netlib.sh: runs netlib's Level-3 BLAS and CBLAS test programs (Debian libblas-test) with
# libclgemm_blas preloaded and checks that every test of the routines it provides (?gemm, ?syrk,
# ?trsm, ?trmm, ?symm, ?syr2k, and ?herk, ?hemm, ?her2k for c/z) passed, error exits included,
# and that the calls went where the mode says:
#   device   CLGEMM_BLAS_MIN_FLOPS=0: every call that computes runs on the device; with
#            CLGEMM_BLAS_BLOCK=4 the blocked routines (?trsm ... ?her2k) split every call larger
#            than 4 into GEMM updates on the device and diagonal blocks on the system BLAS
#            (calls no larger than one block go to the system BLAS whole)
#   system   no OpenCL device (an empty ICD folder): every one goes to the system BLAS
#   builtin  no device and CLGEMM_BLAS_FALLBACK=none: the built-in host loops
# The problem sizes are cut to 0 1 9 33 (33 crosses the kernels' tile edges) to keep it short.
# Usage: netlib.sh LIBCLGEMM_BLAS.so MODE [TYPES]   (TYPES: some of "s d c z", default all; meson
# runs device mode one type per test, each within its own timeout)
set -u
lib=$(readlink -f "$1")
mode=$2
types=${3:-s d c z}
dir=/usr/lib/x86_64-linux-gnu/blas
[ -x "$dir/xblat3d" ] && [ -x "$dir/xdcblat3" ] || { echo "libblas-test missing: skipped"; exit 77; }
# The types the device computes (all four since clgemm has cgemm/zgemm).
device_types="s d c z"

# The system BLAS (whatever libblas.so.3 resolves to here: the reference, or OpenBLAS where it is
# the alternative or on LD_LIBRARY_PATH), the fallback the system and device modes test. The CBLAS
# testers are reference CBLAS's programs and need its globals (RowMajorStrg, which OpenBLAS
# lacks), so the reference is preloaded by its path behind the drop-in for them, and the drop-in
# is told the system BLAS's path so that its fallback stays the system's.
system_blas=$(ldd "$dir/xblat3d" | awk '$1 == "libblas.so.3" { print $3 }')
[ -n "$system_blas" ] || { echo "libblas.so.3 not found"; exit 1; }
echo "system BLAS: $system_blas -> $(readlink -f "$system_blas")"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
export CLGEMM_BLAS_LOG=1
case $mode in
device) export CLGEMM_BLAS_MIN_FLOPS=0 CLGEMM_BLAS_BLOCK=4 ;;
system) mkdir empty-icd && export OCL_ICD_VENDORS="$work/empty-icd" ;;
builtin) mkdir empty-icd && export OCL_ICD_VENDORS="$work/empty-icd" CLGEMM_BLAS_FALLBACK=none ;;
*) echo "unknown mode $mode"; exit 2 ;;
esac

# Smaller sizes: the line after "NUMBER OF VALUES OF N" lists them.
shrink() {
    awk '/NUMBER OF VALUES OF N/ { print "4                 NUMBER OF VALUES OF N"; getline;
                                   print "0 1 9 33          VALUES OF N"; next } { print }' "$1"
}

failed=0
fail() {
    echo "FAIL: $*"
    failed=1
}

for t in $types; do
    T=$(echo $t | tr sdcz SDCZ)
    routines="gemm syrk symm trmm trsm syr2k"
    case $t in c | z) routines="$routines herk hemm her2k" ;; esac
    for kind in fortran cblas; do
        if [ $kind = fortran ]; then
            prog=xblat3$t; shrink "$dir/${t}blat3.in" > in; out=${t}blat3.out
        else
            prog=x${t}cblat3; shrink "$dir/${t}in3" > in; out=stdout
        fi
        if [ $kind = fortran ]; then
            LD_PRELOAD="$lib" "$dir/$prog" < in > stdout 2> stderr
        else
            CLGEMM_BLAS_FALLBACK=${CLGEMM_BLAS_FALLBACK:-$system_blas} \
                LD_PRELOAD="$lib $dir/libblas.so.3" "$dir/$prog" < in > stdout 2> stderr
        fi
        status=$?
        log="$prog ($mode)"
        [ $status -eq 0 ] || fail "$log: exit status $status"
        grep -q "END OF TESTS" "$out" || fail "$log: did not reach END OF TESTS"
        if grep -E "FAIL|SUSPECT|NOT DETECTED|\*\*\*\*\*" "$out" stderr; then fail "$log: failures above"; fi
        for r in $routines; do
            R=$(echo $r | tr a-z A-Z)
            if [ $kind = fortran ]; then name="$T$R"; else name="cblas_$t$r"; fi
            grep -q "$name *PASSED THE TESTS OF ERROR-EXITS" "$out" || fail "$log: $name error exits"
            want=1
            [ $kind = cblas ] && want=2 # column-major and row-major
            got=$(grep -c "$name *PASSED THE .*COMPUTATIONAL TESTS" "$out")
            [ "$got" -eq $want ] || fail "$log: $name computational tests ($got of $want passed)"
            # Where the calls went: clgemm_blas's summary line, e.g. "dgemm calls: device=1458 ...".
            counts=$(grep " $t$r calls:" stderr)
            device=$(echo "$counts" | sed -n 's/.*device=\([0-9]*\).*/\1/p')
            system=$(echo "$counts" | sed -n 's/.*system=\([0-9]*\).*/\1/p')
            builtin=$(echo "$counts" | sed -n 's/.*builtin=\([0-9]*\).*/\1/p')
            echo "$log: $counts"
            [ -n "$device" ] || { fail "$log: no $t$r call summary"; continue; }
            case $mode in
            device)
                case $r in gemm | syrk | herk) ;; *) # blocked: blocks of one call on the host
                    [ "$device" -gt 0 ] && [ "$builtin" -eq 0 ] ||
                        fail "$log: no $t$r call on the device"
                    continue ;;
                esac
                case " $device_types " in
                *" $t "*) [ "$device" -gt 0 ] && [ "$system" -eq 0 ] && [ "$builtin" -eq 0 ] ||
                    fail "$log: not every $t$r call on the device" ;;
                *) [ "$system" -gt 0 ] || fail "$log: expected the system BLAS" ;;
                esac ;;
            system) [ "$device" -eq 0 ] && [ "$system" -gt 0 ] && [ "$builtin" -eq 0 ] ||
                fail "$log: expected the system BLAS only for $t$r" ;;
            builtin) [ "$device" -eq 0 ] && [ "$system" -eq 0 ] && [ "$builtin" -gt 0 ] ||
                fail "$log: expected the built-in loops only for $t$r" ;;
            esac
        done
    done
done
[ $failed -eq 0 ] && echo "netlib ($mode): every test of the Level-3 routines passed"
exit $failed
