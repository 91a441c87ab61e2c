#!/bin/sh
# async_lab.sh: the register-blocked kernel with its slices brought in by cp.async (STAGES 2-4)
# against the register path (STAGES 1) on the H200, run like h200_schedules.sh: the device tests
# of the new path first, then issue 11's narrow shapes, issue 10's small batches and the large
# squares, FP32 and FP64, same tiles with and without stages.
. tests/gpu/lib.sh
echo "== tests"
timeout 200 $B/tests/test_gemm --filter 'regblock/*' 2>&1 | grep -E "FAIL|Synthesis|Assert|assert" | head -10
timeout 200 $B/tests/test_split --filter '*async*' 2>&1 | grep -E "FAIL|Synthesis|Assert|assert" | head -10
run() { # label, options...
    label=$1; shift
    printf '%-34s' "$label"
    $B/bench/clgemm-bench --no-clblast --runs 20 --layout row "$@" 2>&1 |
        grep -E "^[sd] |MISMATCH|rror" | awk '{printf " %s", ($1=="s"||$1=="d") ? $4"x"$5"x"$6":"$8 : $0} END {print ""}'
}
both() { # label, params, options... : STAGES 1 then 3
    label=$1; p=$2; shift 2
    run "$label S1" --family regblock --params $p,STAGES=1 "$@"
    run "$label S3" --family regblock --params $p,STAGES=3 "$@"
}
M64="--shape 64,8192,8192"  # kernel terms 8192 x 64
N64="--shape 8192,64,8192"  # kernel terms 64 x 8192
echo "== narrow FP32 (cuBLAS in probe: 39.1 / 36.7)"
run "default" --precision s $M64 $N64
both "64x64 k32 16x8" MWG=64,NWG=64,KWG=32,MDIMC=16,NDIMC=8,KWI=8,VWM=2,VWN=2 --precision s $M64 $N64
run "64x64 k8 16x8 S3" --family regblock --precision s $M64 $N64 \
    --params MWG=64,NWG=64,KWG=8,MDIMC=16,NDIMC=8,KWI=8,VWM=2,VWN=2,STAGES=3
run "64x64 k16 16x8 S3" --family regblock --precision s $M64 $N64 \
    --params MWG=64,NWG=64,KWG=16,MDIMC=16,NDIMC=8,KWI=8,VWM=2,VWN=2,STAGES=3
run "64x64 k16 16x8 S4" --family regblock --precision s $M64 $N64 \
    --params MWG=64,NWG=64,KWG=16,MDIMC=16,NDIMC=8,KWI=8,VWM=2,VWN=2,STAGES=4
both "256x64 k8 16x8" MWG=256,NWG=64,KWG=8,MDIMC=16,NDIMC=8,KWI=8,VWM=4,VWN=4 --precision s $M64
both "64x128 k8 8x16" MWG=64,NWG=128,KWG=8,MDIMC=8,NDIMC=16,KWI=8,VWM=4,VWN=4 --precision s $N64
both "128x64 k8 16x8" MWG=128,NWG=64,KWG=8,MDIMC=16,NDIMC=8,KWI=8,VWM=4,VWN=4 --precision s $M64
for s in 4 8; do
    CLGEMM_STREAMK=0 CLGEMM_KSPLIT=$s run "64x64 k16 S3 split $s" --family regblock --precision s \
        $M64 $N64 --params MWG=64,NWG=64,KWG=16,MDIMC=16,NDIMC=8,KWI=8,VWM=2,VWN=2,STAGES=3
done
echo "== batched FP32 (torch.bmm earlier: 8.7 / 25.2 / 29.2 / 43.4 / 41.4)"
$B/bench/clgemm-bench --no-clblast --runs 20 --layout row --precision s --batched 10000,32 \
    --batched 10000,64 --batched 1000,128 --batched 1000,256 --batched 100,512 2>&1 | grep clgemm
for p in MWG=64,NWG=64,KWG=32,MDIMC=16,NDIMC=8,KWI=8,VWM=2,VWN=2 \
    MWG=64,NWG=64,KWG=8,MDIMC=16,NDIMC=8,KWI=8,VWM=2,VWN=2 \
    MWG=64,NWG=64,KWG=16,MDIMC=16,NDIMC=8,KWI=8,VWM=2,VWN=2 \
    MWG=32,NWG=32,KWG=8,MDIMC=8,NDIMC=8,KWI=8,VWM=2,VWN=2; do
    for st in 1 3; do
        echo "-- $p STAGES=$st"
        $B/bench/clgemm-bench --no-clblast --runs 20 --layout row --precision s --batched 10000,32 \
            --batched 10000,64 --batched 1000,128 --family regblock --params $p,STAGES=$st 2>&1 | grep clgemm
    done
done
for p in MWG=128,NWG=128,KWG=8,MDIMC=16,NDIMC=16,KWI=8,VWM=4,VWN=4 \
    MWG=256,NWG=128,KWG=8,MDIMC=16,NDIMC=16,KWI=8,VWM=4,VWN=4; do
    for st in 1 3; do
        echo "-- $p STAGES=$st"
        $B/bench/clgemm-bench --no-clblast --runs 20 --layout row --precision s --batched 1000,256 \
            --batched 100,512 --family regblock --params $p,STAGES=$st 2>&1 | grep clgemm
    done
done
echo "== squares FP32 (cuBLAS 4096: 49.6)"
run "default" --precision s --shape 4096,4096,4096 --shape 1024,1024,1024 --shape 4097,4097,4097
for st in 1 2 3; do
    run "256x128 k8 S$st" --family regblock --precision s --shape 4096,4096,4096 --shape 4097,4097,4097 \
        --params MWG=256,NWG=128,KWG=8,MDIMC=16,NDIMC=16,KWI=8,VWM=4,VWN=4,STAGES=$st
done
run "128x128 k16 16x16 S3" --family regblock --precision s --shape 4096,4096,4096 \
    --params MWG=128,NWG=128,KWG=16,MDIMC=16,NDIMC=16,KWI=8,VWM=4,VWN=4,STAGES=3
run "64x64 k32 16x8 S3 1024" --family regblock --precision s --shape 1024,1024,1024 \
    --params MWG=64,NWG=64,KWG=32,MDIMC=16,NDIMC=8,KWI=8,VWM=2,VWN=2,STAGES=3
run "64x64 k16 16x8 S3 1024" --family regblock --precision s --shape 1024,1024,1024 \
    --params MWG=64,NWG=64,KWG=16,MDIMC=16,NDIMC=8,KWI=8,VWM=2,VWN=2,STAGES=3
echo "== FP64 SIMT (4096 S1 earlier 21.9)"
both "128x128 k8 16x16" MWG=128,NWG=128,KWG=8,MDIMC=16,NDIMC=16,KWI=4,VWM=2,VWN=2 --precision d \
    --shape 4096,4096,4096
both "128x64 k8 16x8" MWG=128,NWG=64,KWG=8,MDIMC=16,NDIMC=8,KWI=4,VWM=2,VWN=2 --precision d $M64
both "64x128 k8 8x16" MWG=64,NWG=128,KWG=8,MDIMC=8,NDIMC=16,KWI=4,VWM=2,VWN=2 --precision d $N64
CLGEMM_KSPLIT=32 both "128x128 k8 split 32" MWG=128,NWG=128,KWG=8,MDIMC=16,NDIMC=16,KWI=4,VWM=2,VWN=2 \
    --precision d --shape 256,256,16384
