#!/bin/sh
# streamk_explore.sh: one H200 device call that measures the schedules of issue 11 (run from
# the repository root after `. .gpu/nvidia-opencl.sh`, LD_LIBRARY_PATH=.gpu/lib, with
# build-gpu a release build): the table's shapes with the planner's own choice, stream-K off and
# forced to 1-3 work-groups per SM, and the skinny shapes with tiles that fit their narrow side,
# beside cuBLAS in the same run. Row-major, as cublas_reference.py.
B=build-gpu/bench/clgemm-bench
export CLGEMM_TUNING_DB=/tmp/none.json CLGEMM_CACHE_DIR=/tmp/clgemm-kernels
git log --oneline -1 2>/dev/null
SHAPES="--shape 4096,4096,4096 --shape 4097,4097,4097 --shape 2047,2047,2047 --shape 8192,64,8192 --shape 64,8192,8192 --shape 256,256,16384"
run() { # label, then bench options
    label=$1; shift
    echo "== $label"
    $B --no-clblast --runs 10 --layout row "$@" 2>&1 | grep -vE "^$|^-"
}
for p in s d; do
    run "$p planner" --precision $p $SHAPES
    CLGEMM_STREAMK=0 run "$p streamk off" --precision $p $SHAPES
    for g in 132 264 396; do
        CLGEMM_STREAMK=$g run "$p streamk $g" --precision $p $SHAPES
    done
done
# Skinny: tiles matched to the narrow side (row-major M x N is the column-major N x M).
SK1="--shape 8192,64,8192"
SK2="--shape 64,8192,8192"
SK3="--shape 256,256,16384"
RB="--family regblock --params"
for g in 0 132 264 528; do
    CLGEMM_STREAMK=$g run "s 64-wide tiles streamk=$g" --precision s $SK1 \
        $RB MWG=64,NWG=128,KWG=8,MDIMC=8,NDIMC=16,KWI=8,VWM=4,VWN=4
    CLGEMM_STREAMK=$g run "s 64-wide tiles N streamk=$g" --precision s $SK2 \
        $RB MWG=128,NWG=64,KWG=8,MDIMC=16,NDIMC=8,KWI=8,VWM=4,VWN=4
    CLGEMM_STREAMK=$g run "s 128x128 streamk=$g" --precision s $SK1 $SK2 $SK3 \
        $RB MWG=128,NWG=128,KWG=8,MDIMC=16,NDIMC=16,KWI=8,VWM=4,VWN=4
    CLGEMM_STREAMK=$g run "s 64x64 streamk=$g" --precision s $SK1 $SK2 $SK3 \
        $RB MWG=64,NWG=64,KWG=32,MDIMC=16,NDIMC=8,KWI=8,VWM=2,VWN=2
    CLGEMM_STREAMK=$g run "d 64x64 streamk=$g" --precision d $SK1 $SK2 $SK3 \
        $RB MWG=64,NWG=64,KWG=16,MDIMC=16,NDIMC=16,KWI=2,VWM=2,VWN=2
done
for s in 4 8 16 32; do
    CLGEMM_KSPLIT=$s run "s 128x128 ksplit=$s" --precision s $SK3 \
        $RB MWG=128,NWG=128,KWG=8,MDIMC=16,NDIMC=16,KWI=8,VWM=4,VWN=4
    CLGEMM_KSPLIT=$s run "s 64x64 ksplit=$s" --precision s $SK3 \
        $RB MWG=64,NWG=64,KWG=32,MDIMC=16,NDIMC=8,KWI=8,VWM=2,VWN=2
done
echo "== cuBLAS"
python3 .gpu/cublas_reference.py 4096,4096,4096 4097,4097,4097 2047,2047,2047 8192,64,8192 \
    64,8192,8192 256,256,16384
python3 .gpu/cublas_reference.py --fp64 4096,4096,4096 4097,4097,4097 2047,2047,2047 \
    8192,64,8192 64,8192,8192 256,256,16384
