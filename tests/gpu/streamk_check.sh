#!/bin/sh
# streamk_check.sh: one H200 device call after the stream-K planner change (run from the
# repository root after `. .gpu/nvidia-opencl.sh`, LD_LIBRARY_PATH=.gpu/lib, build-gpu a release
# build and build-gpu/build_report built from tests/gpu/build_report.c): ptxas's registers and
# spills of the FP32 default kernel with and without STREAMK, the issue-11 shapes with the
# planner's choices in FP32 and FP64 beside cuBLAS, 2047^2 in the large tiles, and the split
# and stream-K device tests.
B=build-gpu/bench/clgemm-bench
export CLGEMM_TUNING_DB=/tmp/none.json CLGEMM_CACHE_DIR=/tmp/clgemm-kernels
git log --oneline -1 2>/dev/null
RB256="-DTYPE_AB=0 -DTYPE_C=0 -DMWG=256 -DNWG=128 -DKWG=8 -DMDIMC=16 -DNDIMC=16 -DKWI=8 -DVWM=4 -DVWN=4 -cl-nv-verbose"
for sk in 0 1; do
    echo "== ptxas regblock 256x128 STREAMK=$sk"
    build-gpu/build_report "$RB256 -DSTREAMK=$sk" cl/types.cl cl/common.cl cl/regblock.cl 2>&1 |
        grep -iE "registers|spill|stack|error|build" | head -8
done
SHAPES="--shape 4096,4096,4096 --shape 4097,4097,4097 --shape 2047,2047,2047 --shape 8192,64,8192 --shape 64,8192,8192 --shape 256,256,16384"
for p in s d; do
    echo "== $p planner"
    $B --no-clblast --runs 20 --layout row --precision $p $SHAPES 2>&1 | grep -E "^[sd] |MISMATCH"
done
echo "== s 2047 in 256x128 tiles"
$B --no-clblast --runs 20 --layout row --precision s --shape 2047,2047,2047 --family regblock \
    --params MWG=256,NWG=128,KWG=8,MDIMC=16,NDIMC=16,KWI=8,VWM=4,VWN=4 2>&1 | grep -E "^s "
echo "== cuBLAS"
python3 .gpu/cublas_reference.py 4096,4096,4096 4097,4097,4097 2047,2047,2047 8192,64,8192 \
    64,8192,8192 256,256,16384
python3 .gpu/cublas_reference.py --fp64 4096,4096,4096 4097,4097,4097 2047,2047,2047 \
    8192,64,8192 64,8192,8192 256,256,16384
echo "== test_split"
timeout 300 build-gpu/tests/test_split 2>&1 | grep -E "FAIL|Synthesis|Assert" | head
