#!/bin/sh
# streamk_lab.sh: where stream-K's time goes on the H200 (issue 11; run like streamk_check.sh).
# 4096^2 in 256 x 128 tiles is 512 tiles, 4097^2 561: data-parallel, the planner (stream-K at
# 4097^2), with and without peeling the nearly empty last row and column of 4097^2's tiles,
# and stream-K forced with one and two work-groups per SM, sharing out one or two
# waves' worth of tiles.
B=build-gpu/bench/clgemm-bench
export CLGEMM_TUNING_DB=/tmp/none.json CLGEMM_CACHE_DIR=/tmp/clgemm-kernels
run() { # label, shapes and options...
    label=$1; shift
    printf '%-28s' "$label"
    $B --no-clblast --runs 20 --layout row --precision s "$@" 2>&1 | grep -E "^s " |
        awk '{printf " %s:%s", $4, $8} END {print ""}'
}
S1="--shape 4096,4096,4096 --shape 4097,4097,4097 --shape 8192,8192,8192"
CLGEMM_STREAMK=0 CLGEMM_PEEL=0 run "data-parallel" $S1
CLGEMM_PEEL=0 run "planner without peeling" $S1
run "planner" $S1
for g in 132; do
    for t in 1 2; do
        CLGEMM_PEEL=0 CLGEMM_STREAMK=$g,$t run "streamk $g tail $t" $S1
    done
done
P128="--family regblock --params MWG=128,NWG=128,KWG=8,MDIMC=16,NDIMC=16,KWI=8,VWM=4,VWN=4"
CLGEMM_STREAMK=0 run "128x128 data-parallel" $S1 $P128
CLGEMM_STREAMK=264 run "128x128 streamk 264" $S1 $P128
