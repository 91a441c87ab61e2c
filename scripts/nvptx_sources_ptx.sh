#!/bin/sh
# nvptx_sources_ptx.sh: compiles the tensor-core kernels' assembled sources (cl/mma.cl,
# cl/wgmma.cl, cl/tma.cl with its 8-bit types, each after the common parts and the parts it names, as
# src/build/program.c assembles them) to PTX with clang-14 for a list of configurations, one PTX
# file per configuration in OUT_DIR. Comparing two such folders shows whether a change to the
# sources changes what they compile to. Usage: nvptx_sources_ptx.sh OUT_DIR [SOURCE_ROOT];
# exit 77 (skipped) without clang-14.
# The lists below are split into words on purpose.
# shellcheck disable=SC2086
set -eu
out=$1
root=${2:-$(dirname "$0")/..}
clang=$(command -v clang-14 || true)
[ -n "$clang" ] || { echo "skipped: clang-14 missing"; exit 77; }
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# After check_tma_ptx.sh's prelude of built-ins, the parts as src/build/program.c joins them (each
# ended by a newline): types.cl, gemm_args.h and ptx.cl where the tree has them (an older tree,
# for a comparison, may not), common.cl (after gemm_args.h), ptx.cl (the tensor-core families'
# parts, family.h's TENSOR_CORE_FAMILY) and the kernel's own file.
assemble() {
    parts=types.cl
    [ -f "$root/cl/gemm_args.h" ] && parts="$parts gemm_args.h"
    parts="$parts common.cl"
    [ -f "$root/cl/ptx.cl" ] && parts="$parts ptx.cl"
    {
        cat "$root/scripts/nvptx/prelude.cl"
        for p in $parts "$1"; do cat "$root/cl/$p"; echo; done
    } > "$work/$1"
}
for f in mma.cl wgmma.cl tma.cl; do assemble "$f"; done
fails=0
compile() { # name file options...
    name=$1 file=$2; shift 2
    if "$clang" -x cl -cl-std=CL1.2 -target nvptx64-nvidia-nvcl -O3 -S -Dasm=__asm__ \
        -Xclang -finclude-default-header "$@" -o "$out/$name.ptx" "$work/$file" 2> "$work/log"; then
        echo "ok $name"
    else
        echo "FAIL $name"; cat "$work/log"; fails=$((fails + 1))
    fi
}
# mma: MMA_TYPE (and its TYPE_AB) x C_INPUT x transposes x tile (the large one copied by cp.async)
for t in "0 4" "1 5" "2 0" "3 0" "4 1"; do
    set -- $t; mt=$1 tab=$2
    case $mt in 0|1) tile1="128 128 32 64 64 3"; cins="0 1" ;;
                2|3) tile1="128 128 16 64 64 3"; cins=0 ;;
                4) tile1="128 64 16 64 32 2"; cins=0 ;; esac
    for cin in $cins; do
        tc=$tab; { [ "$cin" = 0 ] && [ "$mt" -le 1 ]; } && tc=0
        for tr in "0 0" "1 0" "0 1" "1 1"; do
            set -- $tr; ta=$1 tb=$2
            for tile in "1 $tile1" "0 64 64 16 32 32 2"; do
                set -- $tile; al=$1; shift
                f64=; [ "$mt" = 4 ] && f64=-DF64_K16=1
                compile "mma_t${mt}_c${cin}_${ta}${tb}_a${al}_$1x$2x$3_$4x$5_s$6" mma.cl \
                    -DTYPE_AB=$tab -DTYPE_C=$tc -DTRANSA=$ta -DTRANSB=$tb -DCONJA=0 -DCONJB=0 \
                    -DMWG=$1 -DNWG=$2 -DKWG=$3 -DWM=$4 -DWN=$5 -DSTAGES=$6 -DMMA_TYPE=$mt \
                    -DC_INPUT=$cin -DALIGNED_A=$al -DALIGNED_B=$al -DSWIZZLE=1 $f64
            done
        done
    done
done
# wgmma: WG_TYPE x C_INPUT x transposes x tile (the first copied by cp.async)
for t in "0 4" "1 5" "2 0"; do
    set -- $t; wt=$1 tab=$2
    case $wt in 2) kwg=8; cins=0 ;; *) kwg=16; cins="0 1" ;; esac
    for cin in $cins; do
        tc=$tab; [ "$cin" = 0 ] && tc=0
        for tr in "0 0" "1 0" "0 1" "1 1"; do
            set -- $tr; ta=$1 tb=$2
            for tile in "1 128 256 $kwg 64 256 4" "0 128 128 $kwg 64 128 4"; do
                set -- $tile; al=$1; shift
                compile "wgmma_t${wt}_c${cin}_${ta}${tb}_a${al}_$1x$2x$3_$4x$5_s$6" wgmma.cl \
                    -DTYPE_AB=$tab -DTYPE_C=$tc -DTRANSA=$ta -DTRANSB=$tb -DCONJA=0 -DCONJB=0 \
                    -DMWG=$1 -DNWG=$2 -DKWG=$3 -DWM=$4 -DWN=$5 -DSTAGES=$6 -DWG_TYPE=$wt \
                    -DC_INPUT=$cin -DALIGNED_A=$al -DALIGNED_B=$al
            done
        done
    done
done
# tma: WG_TYPE x C's type x transposes (TF32 and 8-bit: K-major only) x MWG NWG STAGES. C of
# FP16/BF16/TF32 is FP32 (c0) or, C_INPUT, the input type (c1); INT8's is INT32 (7), FP8's FP32,
# FP16 or BF16 (0, 4, 5: clgemm_precision's numbers, named so).
for t in "0 4" "1 5" "2 0" "3 6" "4 8" "5 9"; do
    set -- $t; wt=$1 tab=$2
    case $wt in 0|1) tcs="0 $tab"; trs="00 10 01 11" ;; 2) tcs=0; trs=10 ;;
                3) tcs=7; trs=10 ;; *) tcs="0 4 5"; trs=10 ;; esac
    for tc in $tcs; do
        cin=0; [ "$wt" -le 2 ] && [ "$tc" != 0 ] && cin=1
        cname=c$cin; [ "$wt" -ge 3 ] && cname=c$tc
        for tr in $trs; do
            ta=${tr%?} tb=${tr#?}
            for tile in "128 256 4" "64 128 6" "256 128 4"; do
                set -- $tile
                compile "tma_t${wt}_${cname}_${ta}${tb}_$1x$2_s$3" tma.cl \
                -DTYPE_AB=$tab -DTYPE_C=$tc -DTRANSA=$ta -DTRANSB=$tb -DCONJA=0 -DCONJB=0 \
                -DMWG=$1 -DNWG=$2 -DSTAGES=$3 -DWG_TYPE=$wt -DC_INPUT=$cin
            done
        done
    done
done
# Batch tables (BATCH_TABLE=1; C's offset and beta from the table, TABLE_C=1, or from the
# arguments, 0): mma and wgmma, a 16-bit type with C in the input type and a 32/64-bit one.
for tcb in 1 0; do
    for k in "mma 0 4 4 128x128x32_64x64_s3" "mma 4 1 1 128x64x16_64x32_s2" \
             "wgmma 0 4 4 128x256x16_64x256_s4" "wgmma 2 0 0 128x128x8_64x128_s4"; do
        set -- $k; fam=$1 ty=$2 tab=$3 tc=$4 tile=$5
        cin=0; [ "$tc" != 0 ] && [ "$ty" -le 1 ] && cin=1
        dims=$(echo "$tile" | sed 's/[x_s]/ /g')
        set -- $dims
        tyopt=-DMMA_TYPE=$ty; [ "$fam" = wgmma ] && tyopt=-DWG_TYPE=$ty
        f64=; [ "$fam" = mma ] && [ "$ty" = 4 ] && f64=-DF64_K16=1
        compile "${fam}_t${ty}_c${cin}_table${tcb}_$tile" "$fam.cl" -DBATCH_TABLE=1 \
            -DTABLE_C=$tcb -DTYPE_AB=$tab -DTYPE_C=$tc -DTRANSA=1 -DTRANSB=0 -DCONJA=0 -DCONJB=0 \
            -DMWG=$1 -DNWG=$2 -DKWG=$3 -DWM=$4 -DWN=$5 -DSTAGES=$6 $tyopt -DC_INPUT=$cin \
            -DALIGNED_A=1 -DALIGNED_B=1 $f64
    done
done
[ "$fails" = 0 ] || { echo "$fails configuration(s) failed"; exit 1; }
