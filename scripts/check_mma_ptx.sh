#!/bin/sh
# check_mma_ptx.sh: compiles cl/mma.cl's FP64 kernel (MMA_TYPE=4, m16n8k16 f64) offline for each
# parameter set of bench/gpu/fp64_sets.txt, as check_tma_ptx.sh does for tma.cl: clang's OpenCL C
# to PTX (mma.cl's parts as the library joins them, listed by kernel-parts, after the prelude of
# built-ins), then ptxas for compute capability 9.0. Each set is built in five variants: the four
# transpose pairs with 16-byte cp.async copies (ALIGNED 1) and NN with scalar loads (ALIGNED 0, an
# odd offset or leading dimension), and in a sixth, NN with copies and F64_LOOP=1 (off by default:
# checked to assemble within the registers and local memory, its spills printed, not bounded).
# Printed per variant: registers, spill stores, local memory.
# A set fails where a variant does not assemble, needs more registers than its work-group may
# hold on one SM (65,536 / threads, rounded down to 8, at most 255), more local memory than
# 232,448 bytes, or spills more than half as much again as the first set (the 48 KiB default)
# does at worst in variants of the same kind (copies, scalar loads): clang-14's PTX spills where
# NVIDIA's own compiler did not (the default: 20-92 bytes here with copies, none on the H200;
# 380 here with scalar loads, 4-100 there), and a few tens of bytes come and go with the stage
# count, so the default is the yardstick, not zero; what spills far more (KWG 32: 260-400 bytes
# with copies, 64 x 64 warp tiles: 1.5 KiB) fails.
# The PTX targets sm_90a only for the size check: the standalone ptxas keeps CUDA's 48 KiB for
# static shared arrays of plain sm_90, which NVIDIA's OpenCL compiler does not (its probe build of
# 231,424 bytes passed on the H200; device_info.local_mem_static); the kernel uses nothing of 90a.
# Usage: check_mma_ptx.sh [SOURCE_ROOT [KERNEL_PARTS [SETS]]]; exit 77 (skipped) without clang-14
# or ptxas.
set -eu
KERNEL=mma.cl
# shellcheck source=scripts/nvptx/setup.sh
. "$(dirname "$0")/nvptx/setup.sh"
sets=${3:-$root/bench/gpu/fp64_sets.txt}
# compile MWG NWG KWG WM WN STAGES TRANSA TRANSB ALIGNED F64_LOOP: "registers spills smem", or ""
# on failure
compile() {
    if ! to_ptx -DTYPE_AB=1 -DTYPE_C=1 -DMMA_TYPE=4 -DF64_K16=1 -DF64_LOOP="${10}" \
        -DSWIZZLE=1 -DC_INPUT=0 -DCONJA=0 -DCONJB=0 -DMWG="$1" -DNWG="$2" -DKWG="$3" -DWM="$4" \
        -DWN="$5" -DSTAGES="$6" -DTRANSA="$7" -DTRANSB="$8" -DALIGNED_A="$9" -DALIGNED_B="$9"; then
        cat "$work/clang.log" >&2
        return
    fi
    sed -e 's/^\.version .*/.version 8.0/' -e 's/^\.target .*/.target sm_90a/' "$work/k.ptx" \
        > "$work/p.ptx"
    if ! "$ptxas" -arch=sm_90a -v -o "$work/k.cubin" "$work/p.ptx" > "$work/ptxas.log" 2>&1; then
        cat "$work/ptxas.log" >&2
        return
    fi
    [ "$(grep -c 'mma.sync.aligned.m16n8k16.row.col.f64' "$work/p.ptx")" -gt 0 ] || return
    report=$(sed -n "/entry function 'clgemm_mma'/,/Used/p" "$work/ptxas.log")
    echo "$(echo "$report" | sed -n 's/.*Used \([0-9]*\) registers.*/\1/p')" \
        "$(echo "$report" | sed -n 's/.* \([0-9]*\) bytes spill stores.*/\1/p')" \
        "$(echo "$report" | sed -n 's/.* \([0-9]*\) bytes smem.*/\1/p')"
}
variants="0 0 1 0
1 0 1 0
0 1 1 0
1 1 1 0
0 0 0 0
0 0 1 1"
fails=0 first=1 worst_copies=0 worst_scalar=0
while read -r mwg nwg kwg wm wn stages; do
    case $mwg in '#'* | '') continue ;; esac
    threads=$((32 * (mwg / wm) * (nwg / wn)))
    cap=$((65536 / threads / 8 * 8)); [ "$cap" -gt 255 ] && cap=255
    name="${mwg}x${nwg}x${kwg} ${wm}x${wn} S${stages}"
    line="" status=ok
    while read -r ta tb al f64; do
        fig=$(compile "$mwg" "$nwg" "$kwg" "$wm" "$wn" "$stages" "$ta" "$tb" "$al" "$f64")
        label="$ta$tb a$al"
        [ "$f64" = 1 ] && label="$label F64_LOOP"
        # shellcheck disable=SC2086 # the three figures as words
        set -- $fig
        if [ $# != 3 ]; then
            status=FAIL line="$line | $label: build failed"
            continue
        fi
        regs=$1 spill=$2 smem=$3
        if [ "$first" = 1 ] && [ "$f64" = 0 ]; then
            if [ "$al" = 1 ] && [ "$spill" -gt "$worst_copies" ]; then worst_copies=$spill; fi
            if [ "$al" = 0 ] && [ "$spill" -gt "$worst_scalar" ]; then worst_scalar=$spill; fi
        fi
        bound=$((worst_copies * 3 / 2))
        [ "$al" = 0 ] && bound=$((worst_scalar * 3 / 2))
        [ "$f64" = 1 ] && bound=$spill
        if [ "$regs" -gt "$cap" ] || [ "$smem" -gt 232448 ] || [ "$spill" -gt "$bound" ]; then
            status=FAIL
        fi
        line="$line | $label: $regs regs, spills $spill"
    done << VARIANTS
$variants
VARIANTS
    first=0
    [ "$status" = ok ] || fails=$((fails + 1))
    echo "$status $name: $threads threads (cap $cap registers), $smem bytes local$line"
done < "$sets"
[ "$fails" = 0 ] || { echo "$fails set(s) failed"; exit 1; }
