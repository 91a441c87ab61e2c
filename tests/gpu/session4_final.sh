#!/bin/sh
# session4_final.sh: the last H200 call of the fourth session. (1) FP64 on the SIMT family at
# long K (256 x 256 x 16384, issue 11's one FP64 shape under 0.75 x the 4096^2 rate): tiles of
# 128 x 64 / 64 x 128 (two resident per SM, so one's start and end hide behind the other's
# work) and 16-deep slices against the 128 x 128 tiles. (2) FP32 single matrices of 128-512 in
# the tiles the 256^3 searches found (16 x 32, 1.6 x the default there) against the default.
# (3) The device suites touched by this session's planner change.
. tests/gpu/lib.sh
BENCH="$B/bench/clgemm-bench --runs 30 --layout row --no-clblast"
d() { # label, params, [env]
    printf '%-34s' "$1"
    env $3 $BENCH --precision d --shape ${4:-256,256,16384} --family regblock --params $2 2>&1 |
        grep -E "^d " | awk '{print $8, "GFLOPS", $NF}'
}
echo "== $(date -u +%T) FP64 SIMT"
d "128x128 k8 4096^2" MWG=128,NWG=128,KWG=8,MDIMC=16,NDIMC=16,KWI=4,VWM=2,VWN=2 "" 4096,4096,4096
d "128x128 k8 (33 layers)" MWG=128,NWG=128,KWG=8,MDIMC=16,NDIMC=16,KWI=4,VWM=2,VWN=2
d "128x128 k8 split 32" MWG=128,NWG=128,KWG=8,MDIMC=16,NDIMC=16,KWI=4,VWM=2,VWN=2 CLGEMM_KSPLIT=32
d "128x128 k16" MWG=128,NWG=128,KWG=16,MDIMC=16,NDIMC=16,KWI=4,VWM=2,VWN=2
d "128x64 k8" MWG=128,NWG=64,KWG=8,MDIMC=16,NDIMC=8,KWI=4,VWM=2,VWN=2
d "128x64 k8 split 16" MWG=128,NWG=64,KWG=8,MDIMC=16,NDIMC=8,KWI=4,VWM=2,VWN=2 CLGEMM_KSPLIT=16
d "128x64 k16" MWG=128,NWG=64,KWG=16,MDIMC=16,NDIMC=8,KWI=4,VWM=2,VWN=2
d "64x128 k8" MWG=64,NWG=128,KWG=8,MDIMC=8,NDIMC=16,KWI=4,VWM=2,VWN=2
d "128x128 k8 4096^2 again" MWG=128,NWG=128,KWG=8,MDIMC=16,NDIMC=16,KWI=4,VWM=2,VWN=2 "" 4096,4096,4096
echo "== $(date -u +%T) FP32 small squares: default, then 16 x 32 tiles"
SQ="--shape 128,128,128 --shape 192,192,192 --shape 256,256,256 --shape 300,300,300 --shape 384,384,384 --shape 512,512,512"
for round in 1 2; do
    $BENCH --precision s $SQ 2>&1 | grep -E "^s " | awk '{print $4, $8, $NF=="(default)" ? "default" : ""}'
    $BENCH --precision s $SQ --family regblock \
        --params MWG=16,NWG=32,KWG=32,MDIMC=8,NDIMC=16,KWI=8,VWM=2,VWN=2 2>&1 | grep -E "^s " |
        awk '{print $4, $8, "16x32"}'
done
echo "== $(date -u +%T) suites"
suites test_batched test_split
echo "== $(date -u +%T) end"
