#!/bin/sh
# tables.sh: issue 11's FP32 table (built-in defaults) and FP64 on the SIMT family beside
# cuBLAS in the same run, then issue 10's FP32 strided-batched table beside CLBlast and
# torch.bmm (the closing figures of tests/gpu/tune_compare.sh's chain on GPU 0).
. tests/gpu/lib.sh
BENCH="$B/bench/clgemm-bench --runs 20 --layout row --no-clblast"
SHAPES="4096,4096,4096 4097,4097,4097 2047,2047,2047 8192,64,8192 64,8192,8192 256,256,16384"
ARGS=$(for s in $SHAPES; do printf -- "--shape %s " $s; done)
echo "== $(date -u +%T) issue 11: FP32 defaults"
$BENCH --precision s $ARGS 2>&1 | grep -E "^s |MISMATCH"
echo "== FP64 on the SIMT family: 128x128 squares and long K, 128x64 / 64x128 narrow"
$BENCH --precision d --shape 4096,4096,4096 --shape 4097,4097,4097 --shape 2047,2047,2047 \
    --shape 256,256,16384 --family regblock \
    --params MWG=128,NWG=128,KWG=8,MDIMC=16,NDIMC=16,KWI=4,VWM=2,VWN=2 2>&1 | grep -E "^d "
simt_narrow "$BENCH"
echo "== cuBLAS"
python3 .gpu/cublas_reference.py $SHAPES
echo "== FP32 defaults again (after cuBLAS)"
$BENCH --precision s $ARGS 2>&1 | grep -E "^s |MISMATCH"
echo "== batched FP32 (issue 10)"
$B/bench/clgemm-batched-bench --runs 20 s:10000,32 s:10000,64 s:1000,128 s:1000,256 s:100,512 \
    2>&1 | grep -vE "^#|^$|^-"
python3 bench/gpu/bmm_reference.py 10000,32 10000,64 1000,128 1000,256 100,512
echo "== $(date -u +%T) end"
