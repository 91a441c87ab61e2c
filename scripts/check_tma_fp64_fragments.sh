#!/bin/sh
# check_tma_fp64_fragments.sh: cl/tma.cl's FP64 consumer (WG_TYPE 7) on the host: its section
# (from "#if DMMA" before "FP64 on the DMMA tensor cores" to its "#endif") and the consumer
# loop's call of DMMA_SLICE copied out of the kernel, tests/tma_fp64_fragments.c built against
# them by the C compiler for each tile the family allows (MWG, NWG 64 or 128) and each transpose
# pair, and run with the slice in each of four stages: the loads (from that stage only), the order
# over k, the permuted rows, the fragments and the stores, on any machine (no GPU, no ptxas).
# Usage: check_tma_fp64_fragments.sh [SOURCE_ROOT]; exit 77 (skipped) without a C compiler.
set -eu
root=${1:-$(dirname "$0")/..}
cc=${CC:-$(command -v cc || command -v gcc || command -v clang || true)}
[ -n "$cc" ] || { echo "skipped: no C compiler"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
awk 'f { print; if ($0 == "#endif") exit; next }
     prev == "#if DMMA" && /FP64 on the DMMA tensor cores/ { f = 1; print prev; print }
     { prev = $0 }' "$root/cl/tma.cl" > "$work/tma_fp64_section.cl"
if ! grep -q "define DMMA_SLICE" "$work/tma_fp64_section.cl" ||
    ! grep -q "define DMMA_OFFSETS" "$work/tma_fp64_section.cl"; then
    echo "FAIL: no FP64 section in $root/cl/tma.cl"
    exit 1
fi
# The consumer loop's call, as written there (its argument names the loop's stage, `s`): a name
# in it that the section's macros also bind is then caught here.
call='^[[:space:]]*DMMA_SLICE\('
if [ "$(grep -cE "$call" "$root/cl/tma.cl")" != 1 ]; then
    echo "FAIL: not one call of DMMA_SLICE in $root/cl/tma.cl"
    exit 1
fi
grep -E "$call" "$root/cl/tma.cl" > "$work/tma_fp64_call.cl"
fails=0
for tile in "128 128" "128 64" "64 128" "64 64"; do
    # shellcheck disable=SC2086 # the two sides as words
    set -- $tile
    for ta in 0 1; do
        for tb in 0 1; do
            if ! "$cc" -std=gnu11 -O1 -w -I"$work" -DMWG="$1" -DNWG="$2" -DTRANSA=$ta \
                -DTRANSB=$tb "$root/tests/tma_fp64_fragments.c" -o "$work/check" 2> "$work/cc.log"; then
                echo "FAIL MWG $1 NWG $2 TRANSA $ta TRANSB $tb: the compiler"; cat "$work/cc.log"
                fails=$((fails + 1)); continue
            fi
            "$work/check" || fails=$((fails + 1))
        done
    done
done
[ "$fails" = 0 ] || { echo "$fails configuration(s) failed"; exit 1; }
