#!/bin/sh
# check_tma_ptx.sh: compiles cl/tma.cl (the TMA-fed wgmma kernel) offline for each configuration
# below, as NVIDIA's driver would build it through the patched-PTX route: clang's OpenCL C to
# PTX (tma.cl's parts as the library joins them, listed by the meson build's kernel-parts, after
# a prelude of built-ins), the
# "// @" markers removed and the target set to sm_90a (src/exec/ptx_patch.c's rewrite), then
# ptxas -arch=sm_90a. Each must
# assemble with no stack, no spills, registers within what its work-group may hold on one SM
# (16,384 / (32 x its warps per scheduler), rounded down to 8, at most 255: 168 for 288 threads)
# and local memory within 232,448 bytes.
# Usage: check_tma_ptx.sh [SOURCE_ROOT [KERNEL_PARTS]] (KERNEL_PARTS: the kernel-parts program,
# default SOURCE_ROOT/build/tests/kernel-parts); exit 77 (skipped) without clang-14 or ptxas.
set -eu
KERNEL=tma.cl
# shellcheck source=scripts/nvptx/setup.sh
. "$(dirname "$0")/nvptx/setup.sh"
fails=0
# name | type of A and B, of C (clgemm_precision: 0 FP32, 1 FP64, 4 FP16, 5 BF16, 6 INT8, 7 INT32,
# 8 E4M3, 9 E5M2) | WG_TYPE | TRANSA TRANSB | MWG NWG STAGES | further options (SPLIT3: the 3xTF32
# mode);
# tf32a: TF32 with A MN-major (TRANSA 0), its fragments loaded into registers (tf32x3a: and split
# there); _p: persistent (PERSIST=2; AREG at 128 x 256 needs 231 registers there, past the cap);
# _sc: C staged through local memory (STAGE_C=2); _sk: stream-K (STREAMK=1, the tail wave shared);
# _r: a producer warpgroup giving its registers to the consumers (SETMAXNREG=2, .maxnreg as the
# patch adds it; ptxas reports the entry's cap, the consumers' code may use up to their 232);
# ffma: FP32 on the CUDA cores (WG_TYPE 6; _t: TALL=2, a consumer warpgroup of 128 rows; 32 x N:
# one of 32); dmma: FP64 on the DMMA tensor cores (WG_TYPE 7);
# SPILLS_KNOWN: spills (or ptxas serialises its wgmma) under the device's register cap (168 for
# 288 threads); not a default (dmma_nt_128x128_s4_r spilt 24 bytes, none in the K loop, while its
# loads ignored the stage; reading each slice's own stage through one base it spills none)
while read -r name tab tc wgt ta tb mwg nwg stages extra; do
    [ -n "$name" ] || continue
    opts="-DTYPE_AB=$tab -DTYPE_C=$tc -DWG_TYPE=$wgt -DTRANSA=$ta -DTRANSB=$tb \
-DMWG=$mwg -DNWG=$nwg -DSTAGES=$stages $extra"
    # shellcheck disable=SC2086
    if ! to_ptx $opts; then
        echo "FAIL $name: clang"; cat "$work/clang.log"; fails=$((fails + 1)); continue
    fi
    sed -e 's#// @##' -e 's/^\.version .*/.version 8.0/' -e 's/^\.target .*/.target sm_90a/' \
        "$work/k.ptx" > "$work/p.ptx"
    # NVIDIA's compiler states the work-group size (reqd_work_group_size) as `.reqntid`, so
    # ptxas fits the registers to it: the PTX here says so too.
    producer=32; case "$extra" in *SETMAXNREG=2*) producer=128 ;; esac
    rows=64; case "$extra" in *TALL=2*) rows=128 ;; esac # a consumer warpgroup's rows
    [ "$mwg" = 32 ] && rows=32
    threads=$((128 * mwg / rows + producer))
    # An SM's registers are four files of 16,384, one per scheduler, whose warps the work-group's
    # are dealt over: the scheduler with the most (threads / 32 / 4, rounded up) bounds them.
    per_scheduler=$(((threads / 32 + 3) / 4 * 32))
    cap=$((16384 / per_scheduler / 8 * 8)); [ "$cap" -gt 255 ] && cap=255
    # setmaxnreg needs the entry's cap (ptx_patch.c's CLGEMM_PTX_CAP_FROM_THREADS): as there.
    maxnreg=""; grep -q "setmaxnreg" "$work/p.ptx" && maxnreg="\\n.maxnreg $cap"
    sed -i "/^\.entry clgemm_tma(/,/^)/ s/^)\$/)$maxnreg\n.reqntid $threads/" "$work/p.ptx"
    if ! "$ptxas" -arch=sm_90a -v -o "$work/k.cubin" "$work/p.ptx" > "$work/ptxas.log" 2>&1; then
        echo "FAIL $name: ptxas"; cat "$work/ptxas.log"; fails=$((fails + 1)); continue
    fi
    report=$(sed -n "/entry function 'clgemm_tma'/,/Used/p" "$work/ptxas.log")
    regs=$(echo "$report" | sed -n 's/.*Used \([0-9]*\) registers.*/\1/p')
    smem=$(echo "$report" | sed -n 's/.* \([0-9]*\) bytes smem.*/\1/p')
    spill=$(echo "$report" | sed -n 's/.*stack frame, \([0-9]*\) bytes spill stores.*/\1/p')
    stack=$(echo "$report" | sed -n 's/.* \([0-9]*\) bytes stack frame.*/\1/p')
    mma=$(grep -c "wgmma.mma_async.sync.aligned.m64n${nwg}" "$work/p.ptx" || true)
    # FP32 on the CUDA cores (WG_TYPE 6): its multiply-adds in place of the wgmma
    [ "$wgt" = 6 ] && mma=$(grep -c "fma.rn.f32" "$work/p.ptx" || true)
    # FP64 on the DMMA tensor cores (WG_TYPE 7): its mma.sync instructions
    [ "$wgt" = 7 ] && mma=$(grep -c "mma.sync.aligned.m16n8k16.row.col.f64" "$work/p.ptx" || true)
    copies=$(grep -c "cp.async.bulk.tensor.3d" "$work/p.ptx" || true)
    status=ok
    # A row marked SPILLS_KNOWN spills where the device's cap binds (none the defaults take):
    # reported, not failed, unless it stops spilling (then the mark is stale).
    spilled=no; { [ "${spill:-1}" != 0 ] || [ "${stack:-1}" != 0 ]; } && spilled=yes
    # ptxas's notes that it serialised the wgmma instructions (C7510-C7519) count as spills do.
    notes=$(grep -o "(C751[0-9])" "$work/ptxas.log" | sort -u | tr -d '()' | tr '\n' ' ')
    [ -n "$notes" ] && spilled=yes
    known=no; case "$extra" in *SPILLS_KNOWN*) known=yes ;; esac
    if [ -z "$regs" ] || [ "$regs" -gt "$cap" ] || [ "$spilled" != "$known" ] ||
        [ "${smem:-999999}" -gt 232448 ] || [ "$mma" = 0 ] || [ "$copies" = 0 ]; then
        status=FAIL; fails=$((fails + 1))
    elif [ "$known" = yes ]; then
        status="ok (spills known)"
    fi
    echo "$status $name: $regs registers (cap $cap), spills ${spill:-?}, stack ${stack:-?}," \
        "$smem bytes local, $mma wgmma (FFMA for WG_TYPE 6, DMMA for 7), $copies bulk copies${notes:+, serialised: $notes}"
done << 'LIST'
fp16_tn_128x256_s4_c32   4 0 0 1 0 128 256 4
fp16_nn_128x256_s4_c32   4 0 0 0 0 128 256 4
fp16_tt_128x256_s4_c16   4 4 0 1 1 128 256 4
fp16_nt_128x128_s6_c16   4 4 0 0 1 128 128 6
fp16_tn_64x256_s5_c32    4 0 0 1 0 64 256 5
fp16_tn_256x128_s4_c32   4 0 0 1 0 256 128 4
fp16_tn_128x64_s8_c32    4 0 0 1 0 128 64 8
bf16_tn_128x256_s4_c16   5 5 1 1 0 128 256 4
bf16_nt_128x256_s3_c32   5 0 1 0 1 128 256 3
tf32_tn_128x256_s4_c32   0 0 2 1 0 128 256 4
tf32_tn_128x128_s6_c32   0 0 2 1 0 128 128 6
tf32a_nn_128x256_s4_c32  0 0 2 0 0 128 256 4 -DSPILLS_KNOWN
tf32a_nn_128x128_s6_c32  0 0 2 0 0 128 128 6
tf32a_nn_64x256_s5_c32   0 0 2 0 0 64 256 5
tf32a_nn_256x128_s4_c32  0 0 2 0 0 256 128 4 -DSPILLS_KNOWN
tf32a_nn_128x64_s8_c32   0 0 2 0 0 128 64 8
tf32x3a_nn_128x256_s4_c32 0 0 2 0 0 128 256 4 -DSPLIT3=1 -DSPILLS_KNOWN
tf32x3a_nn_128x128_s6_c32 0 0 2 0 0 128 128 6 -DSPLIT3=1
tf32x3a_nn_64x256_s5_c32 0 0 2 0 0 64 256 5 -DSPLIT3=1
tf32x3a_nn_256x128_s4_c32 0 0 2 0 0 256 128 4 -DSPLIT3=1 -DSPILLS_KNOWN
tf32x3a_nn_128x64_s8_c32 0 0 2 0 0 128 64 8 -DSPLIT3=1
tf32x3_tn_128x256_s4_c32 0 0 2 1 0 128 256 4 -DSPLIT3=1
tf32x3_tn_128x128_s6_c32 0 0 2 1 0 128 128 6 -DSPLIT3=1
tf32x3p_tn_128x256_s4_c32 0 0 2 1 0 128 256 4 -DSPLIT3=1 -DSPLIT3_PAIRED=1
i8_tn_128x256_s4_c32     6 7 3 1 0 128 256 4
i8_tn_128x128_s6_c32     6 7 3 1 0 128 128 6
e4m3_tn_128x256_s4_c32   8 0 4 1 0 128 256 4
e4m3_tn_128x256_s4_cbf16 8 5 4 1 0 128 256 4
e4m3_tn_128x128_s6_c16   8 4 4 1 0 128 128 6
e5m2_tn_128x256_s4_c32   9 0 5 1 0 128 256 4
fp16_nn_128x128_s3_p     4 4 0 0 0 128 128 3 -DPERSIST=2
fp16_tn_128x256_s4_p     4 0 0 1 0 128 256 4 -DPERSIST=2
bf16_tt_128x128_s3_p     5 5 1 1 1 128 128 3 -DPERSIST=2
tf32_tn_128x256_s4_p     0 0 2 1 0 128 256 4 -DPERSIST=2
tf32a_nn_128x128_s3_p    0 0 2 0 0 128 128 3 -DPERSIST=2
tf32x3_tn_128x256_s4_p   0 0 2 1 0 128 256 4 -DSPLIT3=1 -DPERSIST=2
tf32x3a_nn_128x256_s4_p  0 0 2 0 0 128 256 4 -DSPLIT3=1 -DPERSIST=2 -DSPILLS_KNOWN
tf32x3p_tn_128x256_s4_p  0 0 2 1 0 128 256 4 -DSPLIT3=1 -DSPLIT3_PAIRED=1 -DPERSIST=2
i8_tn_128x128_s3_p       6 7 3 1 0 128 128 3 -DPERSIST=2
fp16_nn_128x128_s3_p_sc  4 4 0 0 0 128 128 3 -DPERSIST=2 -DSTAGE_C=2
fp16_tn_128x256_s4_p_sc  4 4 0 1 0 128 256 4 -DPERSIST=2 -DSTAGE_C=2
fp16_tn_128x256_s4_p_sc32 4 0 0 1 0 128 256 4 -DPERSIST=2 -DSTAGE_C=2
bf16_tt_128x128_s3_p_sc  5 5 1 1 1 128 128 3 -DPERSIST=2 -DSTAGE_C=2
tf32_tn_128x256_s4_sc    0 0 2 1 0 128 256 4 -DSTAGE_C=2
tf32_tn_128x256_s4_p_sc  0 0 2 1 0 128 256 4 -DPERSIST=2 -DSTAGE_C=2
fp16_tn_256x128_s4_sc    4 4 0 1 0 256 128 4 -DSTAGE_C=2
fp16_tn_128x256_s4_p_sc_sk 4 4 0 1 0 128 256 4 -DPERSIST=2 -DSTAGE_C=2 -DSTREAMK=1 -DSK_TAIL_WAVES=1 -DSPILLS_KNOWN
bf16_nn_128x256_s4_p_sk  5 0 1 0 0 128 256 4 -DPERSIST=2 -DSTREAMK=1 -DSK_TAIL_WAVES=1
tf32_tn_128x256_s4_p_sc_sk 0 0 2 1 0 128 256 4 -DPERSIST=2 -DSTAGE_C=2 -DSTREAMK=1 -DSK_TAIL_WAVES=1 -DSPILLS_KNOWN
i8_tn_128x256_s4_p_sc_sk 6 7 3 1 0 128 256 4 -DPERSIST=2 -DSTAGE_C=2 -DSTREAMK=1 -DSK_TAIL_WAVES=1 -DSPILLS_KNOWN
fp16_nn_128x128_s3_p_sk  4 4 0 0 0 128 128 3 -DPERSIST=2 -DSTREAMK=1 -DSK_TAIL_WAVES=1
tf32a_nn_128x256_s4_r   0 0 2 0 0 128 256 4 -DSETMAXNREG=2
tf32a_nn_128x256_s4_sc_r 0 0 2 0 0 128 256 4 -DSTAGE_C=2 -DSETMAXNREG=2
tf32x3a_nn_128x256_s4_r 0 0 2 0 0 128 256 4 -DSPLIT3=1 -DSETMAXNREG=2
tf32x3a_nn_128x256_s4_p_r 0 0 2 0 0 128 256 4 -DSPLIT3=1 -DPERSIST=2 -DSETMAXNREG=2
tf32_tn_128x256_s4_r    0 0 2 1 0 128 256 4 -DSETMAXNREG=2
fp16_nn_128x256_s4_p_sc_r 4 4 0 0 0 128 256 4 -DPERSIST=2 -DSTAGE_C=2 -DSETMAXNREG=2
fp16_nn_128x256_s4_p_sc_sk_r 4 4 0 0 0 128 256 4 -DPERSIST=2 -DSTAGE_C=2 -DSTREAMK=1 -DSK_TAIL_WAVES=1 -DSETMAXNREG=2
fp16_tn_128x64_s8_sc     4 4 0 1 0 128 64 8 -DSTAGE_C=2
i8_tn_128x128_s3_p_sc    6 7 3 1 0 128 128 3 -DPERSIST=2 -DSTAGE_C=2
e4m3_tn_128x256_s4_sc16  8 4 4 1 0 128 256 4 -DSTAGE_C=2
tf32a_nn_128x256_s4_sc   0 0 2 0 0 128 256 4 -DSTAGE_C=2 -DSPILLS_KNOWN
tf32a_nn_128x128_s6_sc   0 0 2 0 0 128 128 6 -DSTAGE_C=2
tf32x3a_nn_128x256_s4_sc 0 0 2 0 0 128 256 4 -DSPLIT3=1 -DSTAGE_C=2 -DSPILLS_KNOWN
tf32x3a_nn_128x128_s6_sc 0 0 2 0 0 128 128 6 -DSPLIT3=1 -DSTAGE_C=2
tf32x3_tn_128x256_s4_sc  0 0 2 1 0 128 256 4 -DSPLIT3=1 -DSTAGE_C=2
i8_tn_128x256_s4_sc      6 7 3 1 0 128 256 4 -DSTAGE_C=2
ffma_nn_128x128_s4       0 0 6 0 0 128 128 4
ffma_tn_128x128_s4       0 0 6 1 0 128 128 4
ffma_nt_128x128_s4       0 0 6 0 1 128 128 4
ffma_tt_128x128_s4       0 0 6 1 1 128 128 4
ffma_nn_128x64_s6        0 0 6 0 0 128 64 6
ffma_nn_128x64_s4_t      0 0 6 0 0 128 64 4 -DTALL=2
ffma_tn_128x64_s4_t      0 0 6 1 0 128 64 4 -DTALL=2
ffma_nt_128x64_s4_t      0 0 6 0 1 128 64 4 -DTALL=2
ffma_tt_128x64_s4_t      0 0 6 1 1 128 64 4 -DTALL=2
ffma_nn_32x256_s3        0 0 6 0 0 32 256 3
ffma_tn_32x256_s4        0 0 6 1 0 32 256 4
ffma_nt_32x128_s4        0 0 6 0 1 32 128 4
ffma_tt_32x256_s3        0 0 6 1 1 32 256 3
ffma_nn_64x128_s6        0 0 6 0 0 64 128 6
ffma_nn_128x128_s4_p     0 0 6 0 0 128 128 4 -DPERSIST=2
ffma_nn_64x64_s4_p       0 0 6 0 0 64 64 4 -DPERSIST=2
ffma_nn_64x128_s4_p      0 0 6 0 0 64 128 4 -DPERSIST=2
ffma_tn_64x128_s4_p      0 0 6 1 0 64 128 4 -DPERSIST=2
ffma_nt_64x128_s4_p      0 0 6 0 1 64 128 4 -DPERSIST=2
ffma_tt_64x128_s4_p      0 0 6 1 1 64 128 4 -DPERSIST=2
ffma_nn_128x128_s4_p_sk  0 0 6 0 0 128 128 4 -DPERSIST=2 -DSTREAMK=1 -DSK_TAIL_WAVES=1
ffma_nn_128x256_s4_r     0 0 6 0 0 128 256 4 -DSETMAXNREG=2 -DSPILLS_KNOWN
ffma_tn_128x256_s4_r     0 0 6 1 0 128 256 4 -DSETMAXNREG=2 -DSPILLS_KNOWN
ffma_nn_128x256_s3_p_r   0 0 6 0 0 128 256 3 -DPERSIST=2 -DSETMAXNREG=2 -DSPILLS_KNOWN
dmma_nn_128x128_s4_r     1 1 7 0 0 128 128 4 -DSETMAXNREG=2
dmma_tn_128x128_s4_r     1 1 7 1 0 128 128 4 -DSETMAXNREG=2
dmma_nt_128x128_s4_r     1 1 7 0 1 128 128 4 -DSETMAXNREG=2
dmma_tt_128x128_s4_r     1 1 7 1 1 128 128 4 -DSETMAXNREG=2
dmma_tt_128x128_s6_r     1 1 7 1 1 128 128 6 -DSETMAXNREG=2
dmma_nn_128x64_s6        1 1 7 0 0 128 64 6
dmma_tt_128x64_s8        1 1 7 1 1 128 64 8
dmma_nt_64x128_s6        1 1 7 0 1 64 128 6
dmma_tn_64x64_s4         1 1 7 1 0 64 64 4
dmma_nn_128x128_s4_p_r   1 1 7 0 0 128 128 4 -DPERSIST=2 -DSETMAXNREG=2
dmma_tt_128x128_s4_p_sk_r 1 1 7 1 1 128 128 4 -DPERSIST=2 -DSTREAMK=1 -DSK_TAIL_WAVES=1 -DSETMAXNREG=2
LIST
[ "$fails" = 0 ] || { echo "$fails configuration(s) failed"; exit 1; }
