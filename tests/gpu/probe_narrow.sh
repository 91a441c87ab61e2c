#!/bin/sh
# probe_narrow.sh: what cuBLAS launches for the shapes clgemm is slowest at (issue 10's batched
# rows, issue 11's narrow and long-K shapes), and how the register-blocked kernel's speed on the
# narrow shapes moves with its occupancy and schedule (run like h200_schedules.sh).
. tests/gpu/lib.sh
echo "== cuBLAS kernels"
python3 tests/gpu/cublas_kernels.py 64,8192,8192 8192,64,8192 256,256,16384 4096,4096,4096 \
    10000,32,32,32 10000,64,64,64 1000,128,128,128 1000,256,256,256 100,512,512,512
python3 tests/gpu/cublas_kernels.py --fp64 64,8192,8192 256,256,16384
run() { # label, options...
    label=$1; shift
    printf '%-40s' "$label"
    $B/bench/clgemm-bench --no-clblast --runs 20 --layout row --precision s "$@" 2>&1 |
        grep -E "^s " | awk '{printf " %sx%sx%s:%s", $4, $5, $6, $8} END {print ""}'
}
M64="--shape 64,8192,8192"  # column-major 8192 x 64
echo "== narrow 8192 x 64 (column-major), TFLOPS"
run "default" $M64
for g in 264 528; do
    CLGEMM_STREAMK=$g run "64x64 k32 16x8 (4x8) sk $g" $M64 --family regblock \
        --params MWG=64,NWG=64,KWG=32,MDIMC=16,NDIMC=8,KWI=8,VWM=2,VWN=2
done
for g in 264 528 1056; do
    CLGEMM_STREAMK=$g run "64x64 k16 8x8 (8x8) sk $g" $M64 --family regblock \
        --params MWG=64,NWG=64,KWG=16,MDIMC=8,NDIMC=8,KWI=8,VWM=4,VWN=4
    CLGEMM_STREAMK=$g run "64x64 k32 8x8 (8x8) sk $g" $M64 --family regblock \
        --params MWG=64,NWG=64,KWG=32,MDIMC=8,NDIMC=8,KWI=8,VWM=4,VWN=4
done
for s in 2 4 8; do
    CLGEMM_STREAMK=0 CLGEMM_KSPLIT=$s run "64x64 k32 16x8 split $s" $M64 --family regblock \
        --params MWG=64,NWG=64,KWG=32,MDIMC=16,NDIMC=8,KWI=8,VWM=2,VWN=2
    CLGEMM_STREAMK=0 CLGEMM_KSPLIT=$s run "64x64 k16 8x8 split $s" $M64 --family regblock \
        --params MWG=64,NWG=64,KWG=16,MDIMC=8,NDIMC=8,KWI=8,VWM=4,VWN=4
done
echo "== batched 64^3 / 128^3 with 8x8 blocks on 8x8 work-items"
$B/bench/clgemm-bench --no-clblast --runs 20 --layout row --precision s --batched 10000,64 \
    --batched 1000,128 --family regblock \
    --params MWG=64,NWG=64,KWG=16,MDIMC=8,NDIMC=8,KWI=8,VWM=4,VWN=4 2>&1 | grep clgemm
$B/bench/clgemm-bench --no-clblast --runs 20 --layout row --precision s --batched 10000,64 \
    --batched 1000,128 2>&1 | grep clgemm
