#!/bin/sh
# skinny_lab.sh: tiles for the narrow shapes of issue 11 on the H200 (run like
# h200_schedules.sh): 64-wide tiles with 256 along the long side, against the 64 x 64 default,
# with stream-K over one and two work-groups per SM.
B=build-gpu/bench/clgemm-bench
export CLGEMM_TUNING_DB=/tmp/none.json CLGEMM_CACHE_DIR=/tmp/clgemm-kernels
run() { # label, options...
    label=$1; shift
    printf '%-34s' "$label"
    $B --no-clblast --runs 20 --layout row --precision s "$@" 2>&1 | grep -E "^s " |
        awk '{printf " %sx%s:%s", $4, $5, $8} END {print ""}'
}
N64="--shape 8192,64,8192"  # column-major 64 x 8192
M64="--shape 64,8192,8192"  # column-major 8192 x 64
run "default" $N64 $M64
for g in 132 264; do
    CLGEMM_STREAMK=$g run "256x64 (16x8x2) sk $g" $M64 --family regblock \
        --params MWG=256,NWG=64,KWG=16,MDIMC=32,NDIMC=8,KWI=8,VWM=4,VWN=4
    CLGEMM_STREAMK=$g run "64x256 (8x32) sk $g" $N64 --family regblock \
        --params MWG=64,NWG=256,KWG=16,MDIMC=8,NDIMC=32,KWI=8,VWM=4,VWN=4
    CLGEMM_STREAMK=$g run "128x64 k16 sk $g" $M64 --family regblock \
        --params MWG=128,NWG=64,KWG=16,MDIMC=16,NDIMC=8,KWI=8,VWM=4,VWN=4
    CLGEMM_STREAMK=$g run "64x128 k16 sk $g" $N64 --family regblock \
        --params MWG=64,NWG=128,KWG=16,MDIMC=8,NDIMC=16,KWI=8,VWM=4,VWN=4
    CLGEMM_STREAMK=$g run "64x64 k32 4x4 sk $g" $N64 $M64 --family regblock \
        --params MWG=64,NWG=64,KWG=32,MDIMC=16,NDIMC=16,KWI=8,VWM=4,VWN=4
done
