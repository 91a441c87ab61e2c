#!/bin/sh
# batch_sweep.sh: issue 10's rows still short, FP32 strided batched: 10000 x 32^3 (1.13 x
# CLBlast, 1.5 x wanted) in tiles holding all of K at once or with more work-items, and
# 256^3 / 512^3 (0.83-0.85 x torch.bmm) around the 128 x 64 tiles that are now their default.
. tests/gpu/lib.sh
BENCH="$B/bench/clgemm-bench --runs 20 --layout row --no-clblast --precision s"
echo "== $(date -u +%T) defaults"
$BENCH --batched 10000,32 --batched 1000,128 --batched 1000,256 --batched 100,512 2>&1 |
    grep clgemm
for prm in MWG=32,NWG=32,KWG=32,MDIMC=8,NDIMC=8,KWI=4,VWM=2,VWN=2 \
    MWG=32,NWG=32,KWG=32,MDIMC=16,NDIMC=16,KWI=4,VWM=2,VWN=2 \
    MWG=32,NWG=32,KWG=32,MDIMC=8,NDIMC=16,KWI=8,VWM=4,VWN=2 \
    MWG=32,NWG=32,KWG=8,MDIMC=8,NDIMC=8,KWI=8,VWM=4,VWN=4; do
    echo "-- $prm"
    $BENCH --batched 10000,32 --family regblock --params $prm 2>&1 | grep clgemm
done
for prm in MWG=256,NWG=128,KWG=8,MDIMC=16,NDIMC=16,KWI=8,VWM=4,VWN=4 \
    MWG=128,NWG=64,KWG=16,MDIMC=16,NDIMC=8,KWI=8,VWM=4,VWN=4 \
    MWG=64,NWG=128,KWG=8,MDIMC=8,NDIMC=16,KWI=8,VWM=4,VWN=4 \
    MWG=128,NWG=64,KWG=8,MDIMC=16,NDIMC=8,KWI=4,VWM=4,VWN=4; do
    echo "-- $prm"
    $BENCH --batched 1000,256 --batched 100,512 --family regblock --params $prm 2>&1 | grep clgemm
done
python3 bench/gpu/bmm_reference.py 10000,32 1000,256 100,512
echo "== $(date -u +%T) end"
