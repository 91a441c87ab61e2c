#!/bin/sh
# skinny_batch_lab.sh: second H200 lab of the session (run like h200_schedules.sh): narrow
# shapes in 256 x 64 tiles with the 16 x 8 register blocks of the 4096^2 default, FP64 narrow
# and long-K tiles, and 45 s batched tunes of three rows of issue 10's table, each then timed
# against the default.
B=build-gpu
BENCH="$B/bench/clgemm-bench --runs 20 --layout row"
export CLGEMM_TUNING_DB=/tmp/none.json CLGEMM_CACHE_DIR=/tmp/clgemm-kernels
run() { # label, options...
    label=$1; shift
    printf '%-34s' "$label"
    $BENCH --no-clblast "$@" 2>&1 | grep -E "^[sd] " |
        awk '{printf " %sx%sx%s:%s", $4, $5, $6, $8} END {print ""}'
}
N64="--shape 8192,64,8192"  # column-major 64 x 8192
M64="--shape 64,8192,8192"  # column-major 8192 x 64
LK="--shape 256,256,16384"
for g in 132 264; do
    CLGEMM_STREAMK=$g run "s 256x64 16x8 k16 sk $g" --precision s $M64 --family regblock \
        --params MWG=256,NWG=64,KWG=16,MDIMC=16,NDIMC=8,KWI=8,VWM=4,VWN=4
    CLGEMM_STREAMK=$g run "s 64x256 8x16 k16 sk $g" --precision s $N64 --family regblock \
        --params MWG=64,NWG=256,KWG=16,MDIMC=8,NDIMC=16,KWI=8,VWM=4,VWN=4
    CLGEMM_STREAMK=$g run "s 256x64 16x8 k8 sk $g" --precision s $M64 --family regblock \
        --params MWG=256,NWG=64,KWG=8,MDIMC=16,NDIMC=8,KWI=8,VWM=4,VWN=4
    CLGEMM_STREAMK=$g run "d 128x64 16x8 sk $g" --precision d $M64 --family regblock \
        --params MWG=128,NWG=64,KWG=8,MDIMC=16,NDIMC=8,KWI=4,VWM=2,VWN=2
    CLGEMM_STREAMK=$g run "d 64x128 8x16 sk $g" --precision d $N64 --family regblock \
        --params MWG=64,NWG=128,KWG=8,MDIMC=8,NDIMC=16,KWI=4,VWM=2,VWN=2
done
for s in 8 16 32; do
    CLGEMM_KSPLIT=$s run "d 128x128 ksplit $s" --precision d $LK --family regblock \
        --params MWG=128,NWG=128,KWG=8,MDIMC=16,NDIMC=16,KWI=4,VWM=2,VWN=2
    CLGEMM_KSPLIT=$s run "d 64x64 k8 ksplit $s" --precision d $LK --family regblock \
        --params MWG=64,NWG=64,KWG=8,MDIMC=16,NDIMC=16,KWI=4,VWM=2,VWN=2
done
for row in "10000 64" "1000 256" "100 512"; do
    set -- $row
    db=/tmp/tune-b$1-n$2.json
    rm -f $db
    $B/tools/clgemm-tune --budget 45 --batch $1 --shape $2 --output $db 2>&1 | grep -E "batch|search|time:"
    CLGEMM_TUNING_DB=$db $BENCH --precision s --batched $1,$2 2>&1 | grep -E "clgemm"
done
