#!/bin/sh
# check_regblock_ptx.sh: compiles cl/regblock.cl (the register-blocked kernel) offline for
# NVIDIA compute capability 9.0, FP32, no transposes, for each candidate of bench/gpu/fp32-sweep.list (or the
# list given), the way check_tma_ptx.sh does for tma.cl: clang's OpenCL C to PTX (regblock.cl's
# parts as the library joins them, after a prelude of built-ins), then ptxas for sm_90a with
# the register cap a work-group of that many work-items leaves on one SM (65,536 / work-items,
# rounded down to 8, at most 255: what reqd_work_group_size makes NVIDIA's compiler keep to).
# sm_90a, not sm_90: offline ptxas refuses static shared arrays past 48 KiB for sm_90 ("uses too
# much shared data", 0xc000 max) where the H200's OpenCL driver builds them up to 227 KiB (the
# static local probe, src/build/program.c); the kernel uses nothing of sm_90a, and both targets
# gave it the same registers where both build.
# Prints registers, spill bytes and local memory per candidate; NVIDIA's own OpenCL compiler
# differs (it gave the default 233 registers where this route gives 255), so spills here are a
# warning sign, not a verdict. Exit 1 if a candidate fails to compile; 77 (skipped) without
# clang-14 or ptxas.
# Usage: check_regblock_ptx.sh [SOURCE_ROOT [KERNEL_PARTS [LIST]]]
set -eu
KERNEL=regblock.cl
# shellcheck source=scripts/nvptx/setup.sh
. "$(dirname "$0")/nvptx/setup.sh"
list=${3:-$root/bench/gpu/fp32-sweep.list}
grep -v '^#' "$list" | while read -r name params; do
    [ -n "$name" ] || continue
    opts="-DTYPE_AB=0 -DTYPE_C=0 -DTRANSA=0 -DTRANSB=0 -DCONJA=0 -DCONJB=0"
    for kv in $(echo "$params" | tr ',' ' '); do opts="$opts -D$kv"; done
    threads=$(($(echo "$params" | sed -n 's/.*MDIMC=\([0-9]*\).*/\1/p') *
        $(echo "$params" | sed -n 's/.*NDIMC=\([0-9]*\).*/\1/p')))
    cap=$((65536 / threads / 8 * 8)); [ "$cap" -gt 255 ] && cap=255
    # shellcheck disable=SC2086
    if ! to_ptx $opts; then
        echo "FAIL $name: clang"; cat "$work/clang.log"; exit 1
    fi
    sed -e 's/^\.version .*/.version 8.0/' -e 's/^\.target .*/.target sm_90a/' "$work/k.ptx" > "$work/p.ptx"
    if ! "$ptxas" -arch=sm_90a -maxrregcount=$cap -v -o "$work/k.cubin" "$work/p.ptx" \
        > "$work/ptxas.log" 2>&1; then
        echo "FAIL $name: ptxas"; cat "$work/ptxas.log"; exit 1
    fi
    regs=$(sed -n 's/.*Used \([0-9]*\) registers.*/\1/p' "$work/ptxas.log")
    smem=$(sed -n 's/.* \([0-9]*\) bytes smem.*/\1/p' "$work/ptxas.log")
    spill=$(sed -n 's/.* \([0-9]*\) bytes spill stores.*/\1/p' "$work/ptxas.log")
    printf '%-15s %3s registers (cap %3s, %4s work-items), %4s bytes spilled, %6s bytes local\n' \
        "$name" "$regs" "$cap" "$threads" "${spill:-?}" "$smem"
done
