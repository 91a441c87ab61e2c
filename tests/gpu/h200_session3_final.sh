#!/bin/sh
# h200_session3_final.sh: the closing H200 call of the session's planner work (issues 10 and
# 11), run like h200_schedules.sh: device suites, then issue 11's table (FP32, FP64 defaults and
# FP64 on the SIMT family) and issue 10's FP32 table, each beside cuBLAS / torch.bmm in the
# same call.
. tests/gpu/lib.sh
suites test_split test_batched test_faults test_gemm
BENCH="$B/bench/clgemm-bench --runs 20 --layout row --no-clblast"
SHAPES="4096,4096,4096 4097,4097,4097 2047,2047,2047 8192,64,8192 64,8192,8192 256,256,16384"
ARGS=$(for s in $SHAPES; do printf -- "--shape %s " $s; done)
echo "== issue 11: FP32, FP64 (planner)"
$BENCH --precision s $ARGS 2>&1 | grep -E "^s |MISMATCH"
$BENCH --precision d $ARGS 2>&1 | grep -E "^d |MISMATCH"
echo "== FP64 on the SIMT family: 128x128 squares, 128x64 / 64x128 narrow (its list's tiles)"
$BENCH --precision d --shape 4096,4096,4096 --shape 4097,4097,4097 --shape 2047,2047,2047 \
    --family regblock --params MWG=128,NWG=128,KWG=8,MDIMC=16,NDIMC=16,KWI=4,VWM=2,VWN=2 \
    2>&1 | grep -E "^d "
simt_narrow "$BENCH"
echo "== cuBLAS"
python3 .gpu/cublas_reference.py $SHAPES
python3 .gpu/cublas_reference.py --fp64 $SHAPES
echo "== batched FP32 (issue 10)"
$B/bench/clgemm-batched-bench --runs 20 s:10000,32 s:10000,64 s:1000,128 s:1000,256 s:100,512 \
    2>&1 | grep -vE "^#|^$|^-"
python3 bench/gpu/bmm_reference.py 10000,32 10000,64 1000,128 1000,256 100,512
echo "== warm call"
$B/bench/clgemm-overhead --calls 3000 32 128 2>&1 | tail -8
