#!/bin/sh
# session4_reduce.sh: the split-K reduction reading eight layers at a time and 16 x 32 tiles for
# small FP32 matrices, against the build before them (.old/build-gpu, commit 5774a27), two
# alternating rounds in one call, cuBLAS in the same call. Predicted: long-K calls (33 layers of
# 256 x 256) gain ~10% (the reduction waited on one load at a time, ~20 us of a ~130 us call),
# narrow ones (8 layers) a few %, 4096^2 nothing; 128-300 squares 1.1-1.5 x, 384+ unchanged.
. tests/gpu/lib.sh
SHAPES="4096,4096,4096 4097,4097,4097 2047,2047,2047 8192,64,8192 64,8192,8192 256,256,16384"
ARGS=$(for s in $SHAPES; do printf -- "--shape %s " $s; done)
SQ="--shape 128,128,128 --shape 192,192,192 --shape 256,256,256 --shape 300,300,300 --shape 384,384,384 --shape 512,512,512"
SIMT="--family regblock --params MWG=128,NWG=128,KWG=8,MDIMC=16,NDIMC=16,KWI=4,VWM=2,VWN=2"
row() { awk -v t="$1" '/^[sd] /{printf "%s %-5s %s %sx%sx%s %s\n", t, $1, $2, $4, $5, $6, $8}'; }
for round in 1 2; do
    for b in .old/build-gpu build-gpu; do
        t=$([ $b = build-gpu ] && echo new || echo old)
        BENCH="$b/bench/clgemm-bench --runs 30 --layout row --no-clblast"
        echo "== $(date -u +%T) round $round $t"
        $BENCH --precision s $ARGS 2>&1 | row "$t"
        $BENCH --precision d --shape 4096,4096,4096 --shape 256,256,16384 $SIMT 2>&1 | row "$t-simt"
        $BENCH --precision d --shape 8192,64,8192 --shape 64,8192,8192 --shape 256,256,16384 2>&1 |
            row "$t"
        $BENCH --precision s $SQ 2>&1 | row "$t"
    done
done
echo "== cuBLAS"
python3 .gpu/cublas_reference.py $SHAPES
python3 .gpu/cublas_reference.py --fp64 8192,64,8192 64,8192,8192 256,256,16384
suites test_split test_gemm test_batched
echo "== $(date -u +%T) end"
