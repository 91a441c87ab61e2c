#!/bin/sh
# check_mma8_ptx.sh: compiles cl/mma.cl's 8-bit kernels (INT8 m16n8k32 s8, FP8 m16n8k32 e4m3 /
# e5m2) offline for each configuration below, as NVIDIA's driver would build them: clang's OpenCL
# C to PTX (mma.cl's parts as the library joins them, listed by the meson build's kernel-parts,
# after a prelude of built-ins), the PTX version and target set, then ptxas for each target of
# the configuration: INT8 for sm_80 (PTX ISA 7.0, the first with m16n8k32 s8 and cp.async) and
# sm_90 (7.8), FP8 for sm_89 and sm_90 (8.4, the first with FP8 mma.sync; ptxas refuses it
# below). Each must assemble with no stack, no spills, registers within what its work-group may
# hold on one SM (65,536 / threads, rounded down to 8, at most 255), local memory within
# 49,152 bytes (the built-in defaults' budget) and mma.sync of the type in the PTX.
# Usage: check_mma8_ptx.sh [SOURCE_ROOT [KERNEL_PARTS]] (KERNEL_PARTS: the kernel-parts program,
# default SOURCE_ROOT/build/tests/kernel-parts); exit 77 (skipped) without clang-14 or ptxas.
set -eu
KERNEL=mma.cl
# shellcheck source=scripts/nvptx/setup.sh
. "$(dirname "$0")/nvptx/setup.sh"
fails=0
# name | type of A and B, of C (clgemm_precision: 0 FP32, 4 FP16, 5 BF16, 6 INT8, 7 INT32,
# 8 E4M3, 9 E5M2) | MMA_TYPE | TRANSA TRANSB | ALIGNED_A ALIGNED_B | MWG NWG KWG WM WN STAGES |
# targets. FP8 in 64 x 32 warp tiles is assembled for sm_90 only K-major: stored MN-major it
# spills 8-16 bytes there (254-255 registers; sm_89 holds it in 180-210), which the built-in
# defaults never meet (compute capability 9.0 runs 8-bit on the tma family) but a forced
# configuration may.
while read -r name tab tc mt ta tb ala alb mwg nwg kwg wm wn stages archs; do
    [ -n "$name" ] || continue
    # shellcheck disable=SC2254 # ONLY is a glob on purpose
    case $name in ${ONLY:-*}) ;; *) continue ;; esac
    opts="-DTYPE_AB=$tab -DTYPE_C=$tc -DMMA_TYPE=$mt -DTRANSA=$ta -DTRANSB=$tb -DALIGNED_A=$ala \
-DALIGNED_B=$alb -DSWIZZLE=1 -DMWG=$mwg -DNWG=$nwg -DKWG=$kwg -DWM=$wm -DWN=$wn -DSTAGES=$stages"
    # shellcheck disable=SC2086
    if ! to_ptx $opts; then
        echo "FAIL $name: clang"; cat "$work/clang.log"; fails=$((fails + 1)); continue
    fi
    case $mt in
    5) want="m16n8k32.row.col.s32.s8.s8.s32" ;;
    6) want="m16n8k32.row.col.f32.e4m3.e4m3.f32" ;;
    *) want="m16n8k32.row.col.f32.e5m2.e5m2.f32" ;;
    esac
    mma=$(grep -c "mma.sync.aligned.$want" "$work/k.ptx" || true)
    threads=$((32 * (mwg / wm) * (nwg / wn)))
    cap=$((65536 / threads / 8 * 8)); [ "$cap" -gt 255 ] && cap=255
    line="$name:"
    status=ok
    for arch in $(echo "$archs" | tr , ' '); do
        version=8.4 # FP8 mma.sync
        if [ "$mt" = 5 ]; then version=7.0; [ "$arch" = sm_90 ] && version=7.8; fi
        sed -e "s/^\.version .*/.version $version/" -e "s/^\.target .*/.target $arch/" \
            "$work/k.ptx" > "$work/p.ptx"
        if ! "$ptxas" -arch="$arch" -v -o "$work/k.cubin" "$work/p.ptx" > "$work/ptxas.log" 2>&1; then
            echo "FAIL $name: ptxas $arch"; head -5 "$work/ptxas.log"; status=FAIL; continue
        fi
        report=$(sed -n "/entry function 'clgemm_mma'/,/Used/p" "$work/ptxas.log")
        regs=$(echo "$report" | sed -n 's/.*Used \([0-9]*\) registers.*/\1/p')
        smem=$(echo "$report" | sed -n 's/.* \([0-9]*\) bytes smem.*/\1/p')
        spill=$(echo "$report" | sed -n 's/.*stack frame, \([0-9]*\) bytes spill stores.*/\1/p')
        stack=$(echo "$report" | sed -n 's/.* \([0-9]*\) bytes stack frame.*/\1/p')
        if [ -z "$regs" ] || [ "$regs" -gt "$cap" ] || [ "${spill:-1}" != 0 ] ||
            [ "${stack:-1}" != 0 ] || [ "${smem:-999999}" -gt 49152 ] || [ "$mma" = 0 ]; then
            status=FAIL
        fi
        line="$line $arch $regs registers, spills ${spill:-?}, stack ${stack:-?}, $smem bytes local;"
    done
    [ "$status" = ok ] || fails=$((fails + 1))
    echo "$status $line cap $cap, $mma mma.sync"
done << 'LIST'
i8_tn_128x128x64_w64x32_aligned    6 7 5 1 0 1 1 128 128 64 64 32 3 sm_80,sm_90
i8_nn_128x128x64_w64x32_aligned    6 7 5 0 0 1 1 128 128 64 64 32 3 sm_80,sm_90
i8_nt_128x128x64_w64x32_unaligned  6 7 5 0 1 0 0 128 128 64 64 32 3 sm_80,sm_90
i8_tt_128x128x64_w64x32_unaligned  6 7 5 1 1 0 0 128 128 64 64 32 3 sm_80,sm_90
i8_tn_64x64x64_w32x32_aligned      6 7 5 1 0 1 1 64 64 64 32 32 3 sm_80,sm_90
i8_nt_64x64x64_w32x32_unaligned    6 7 5 0 1 0 0 64 64 64 32 32 3 sm_80,sm_90
i8_tn_128x128x32_w64x64_aligned    6 7 5 1 0 1 1 128 128 32 64 64 3 sm_80,sm_90
i8_nt_128x128x32_w64x64_unaligned  6 7 5 0 1 0 0 128 128 32 64 64 3 sm_80,sm_90
e4m3_tn_128x128x64_w64x32_c32      8 0 6 1 0 1 1 128 128 64 64 32 3 sm_89,sm_90
e4m3_nt_128x128x64_w64x32_cbf16    8 5 6 0 1 1 1 128 128 64 64 32 3 sm_89
e4m3_nn_128x128x64_w64x32_c16_un   8 4 6 0 0 0 0 128 128 64 64 32 3 sm_89
e4m3_nt_64x64x64_w32x32_cbf16_un   8 5 6 0 1 0 0 64 64 64 32 32 3 sm_89,sm_90
e4m3_nn_64x64x64_w32x32_c16        8 4 6 0 0 1 1 64 64 64 32 32 3 sm_89,sm_90
e5m2_tn_128x128x64_w64x32_c32      9 0 7 1 0 1 1 128 128 64 64 32 3 sm_89,sm_90
e5m2_tt_128x128x64_w64x32_c16_un   9 4 7 1 1 0 0 128 128 64 64 32 3 sm_89
e5m2_nt_64x64x64_w32x32_cbf16      9 5 7 0 1 1 1 64 64 64 32 32 3 sm_89,sm_90
LIST
[ "$fails" = 0 ] || { echo "$fails configuration(s) failed"; exit 1; }
