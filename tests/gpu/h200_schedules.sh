#!/bin/sh
# h200_schedules.sh: the session's closing H200 call (issues 10 and 11), from the repository
# root after `. .gpu/nvidia-opencl.sh`, with LD_LIBRARY_PATH=.gpu/lib and build-gpu a release
# build: the device suites that run the schedules, the issue-11 shapes with the planner's
# choices beside cuBLAS, FP64 with the SIMT family forced, a 60 s tune at 1024^3 and a 60 s
# batched tune at 1000 x 128^3 (each then timed against the untuned default), the batched table
# beside CLBlast and torch.bmm, and the cost of a warm call.
. tests/gpu/lib.sh
suites test_split test_batched test_faults test_gemm
BENCH="$B/bench/clgemm-bench --runs 20 --layout row"
SHAPES="--shape 4096,4096,4096 --shape 4097,4097,4097 --shape 2047,2047,2047 --shape 8192,64,8192 --shape 64,8192,8192 --shape 256,256,16384"
echo "== issue 11: FP32, FP64 (planner)"
$BENCH --no-clblast --precision s $SHAPES 2>&1 | grep -E "^s |MISMATCH"
$BENCH --no-clblast --precision d $SHAPES 2>&1 | grep -E "^d |MISMATCH"
echo "== issue 11: FP64 on the SIMT family (forced: 128 x 128 squares, 64 x 64 skinny)"
$BENCH --no-clblast --precision d --shape 4096,4096,4096 --shape 4097,4097,4097 \
    --shape 2047,2047,2047 --family regblock \
    --params MWG=128,NWG=128,KWG=8,MDIMC=16,NDIMC=16,KWI=4,VWM=2,VWN=2 2>&1 | grep -E "^d "
$BENCH --no-clblast --precision d --shape 8192,64,8192 --shape 64,8192,8192 \
    --shape 256,256,16384 --family regblock \
    --params MWG=64,NWG=64,KWG=16,MDIMC=16,NDIMC=16,KWI=2,VWM=2,VWN=2 2>&1 | grep -E "^d "
echo "== cuBLAS"
python3 .gpu/cublas_reference.py 4096,4096,4096 4097,4097,4097 2047,2047,2047 8192,64,8192 \
    64,8192,8192 256,256,16384
python3 .gpu/cublas_reference.py --fp64 4096,4096,4096 4097,4097,4097 2047,2047,2047 \
    8192,64,8192 64,8192,8192 256,256,16384
echo "== tune 60 s at 1024^3 (FP32), then the tuned entry against the default"
rm -f /tmp/tune1024.json
t0=$(date +%s)
$B/tools/clgemm-tune --budget 60 --shape 1024 --output /tmp/tune1024.json 2>&1 | tail -6
echo "$(($(date +%s) - t0)) s wall"
$BENCH --no-clblast --precision s --shape 1024,1024,1024 2>&1 | grep -E "^s "
CLGEMM_TUNING_DB=/tmp/tune1024.json $BENCH --no-clblast --precision s --shape 1024,1024,1024 2>&1 | grep -E "^s "
echo "== batched (issue 10): default, then a 60 s tune of 1000 x 128^3"
$BENCH --precision s --batched 10000,32 --batched 10000,64 --batched 1000,128 \
    --batched 1000,256 --batched 100,512 2>&1 | grep -vE "^#|^$|^-"
python3 bench/gpu/bmm_reference.py 10000,32 10000,64 1000,128 1000,256 100,512
rm -f /tmp/tuneb.json
t0=$(date +%s)
$B/tools/clgemm-tune --budget 60 --batch 1000 --shape 128 --output /tmp/tuneb.json 2>&1 | tail -6
echo "$(($(date +%s) - t0)) s wall"
CLGEMM_TUNING_DB=/tmp/tuneb.json $BENCH --precision s --batched 1000,128 2>&1 | grep -vE "^#|^$|^-"
echo "== overhead"
$B/bench/clgemm-overhead --calls 3000 32 128 2>&1 | tail -8
