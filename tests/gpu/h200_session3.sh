#!/bin/sh
# h200_session3.sh: this session's H200 call (issues 10 and 11), run like h200_schedules.sh:
# the device suites, issue 11's table (FP32 and FP64 defaults beside cuBLAS, FP64 on the SIMT
# family with the tiles its list now holds), the long-K tiles per type, issue 10's batched table
# for FP32, FP64 and FP16 beside CLBlast and torch.bmm, and a sweep of tiles for the rows still
# short of cuBLAS.
. tests/gpu/lib.sh
suites test_split test_batched test_faults test_gemm
BENCH="$B/bench/clgemm-bench --runs 20 --layout row"
run() { # label, options...
    printf '%-36s' "$1"; shift
    $BENCH --no-clblast "$@" 2>&1 | grep -E "^[sd] |MISMATCH" |
        awk '{printf " %s", ($1=="s"||$1=="d") ? $4"x"$5"x"$6":"$8 : $0} END {print ""}'
}
SHAPES="--shape 4096,4096,4096 --shape 4097,4097,4097 --shape 2047,2047,2047 --shape 8192,64,8192 --shape 64,8192,8192 --shape 256,256,16384"
echo "== issue 11: FP32, FP64 (planner)"
$BENCH --no-clblast --precision s $SHAPES 2>&1 | grep -E "^s |MISMATCH"
$BENCH --no-clblast --precision d $SHAPES 2>&1 | grep -E "^d |MISMATCH"
echo "== issue 11: FP64 on the SIMT family (the tiles of its list: 128x128 squares, 128x64 / 64x128 narrow)"
run "d 128x128" --precision d --shape 4096,4096,4096 --shape 4097,4097,4097 --shape 2047,2047,2047 \
    --family regblock --params MWG=128,NWG=128,KWG=8,MDIMC=16,NDIMC=16,KWI=4,VWM=2,VWN=2
run "d 128x64 (kernel 8192 x 64)" --precision d --shape 64,8192,8192 --family regblock \
    --params MWG=128,NWG=64,KWG=8,MDIMC=16,NDIMC=8,KWI=4,VWM=2,VWN=2
run "d 64x128 (kernel 64 x 8192)" --precision d --shape 8192,64,8192 --family regblock \
    --params MWG=64,NWG=128,KWG=8,MDIMC=8,NDIMC=16,KWI=4,VWM=2,VWN=2
echo "== long K in 128 x 128 tiles: split 32, 64 (the planner's) against the default"
for s in 32 64; do
    CLGEMM_KSPLIT=$s run "d 128x128 split $s" --precision d --shape 256,256,16384 --family regblock \
        --params MWG=128,NWG=128,KWG=8,MDIMC=16,NDIMC=16,KWI=4,VWM=2,VWN=2
    CLGEMM_KSPLIT=$s run "s 128x128 split $s" --precision s --shape 256,256,16384 --family regblock \
        --params MWG=128,NWG=128,KWG=8,MDIMC=16,NDIMC=16,KWI=8,VWM=4,VWN=4
done
echo "== cuBLAS"
python3 .gpu/cublas_reference.py $(echo $SHAPES | sed 's/--shape //g')
python3 .gpu/cublas_reference.py --fp64 $(echo $SHAPES | sed 's/--shape //g')
echo "== batched (issue 10): FP32, FP64, FP16 defaults beside CLBlast, then torch.bmm"
for p in s d h; do
    $B/bench/clgemm-batched-bench --runs 20 $p:10000,32 $p:10000,64 $p:1000,128 $p:1000,256 \
        $p:100,512 2>&1 | grep -vE "^#|^$|^-"
done
for p in "" --fp64 --fp16; do
    python3 bench/gpu/bmm_reference.py $p 10000,32 10000,64 1000,128 1000,256 100,512
done
echo "== sweep: batched FP32 tiles"
for prm in MWG=128,NWG=128,KWG=8,MDIMC=8,NDIMC=16,KWI=8,VWM=4,VWN=4 \
    MWG=128,NWG=128,KWG=8,MDIMC=16,NDIMC=8,KWI=8,VWM=4,VWN=4 \
    MWG=128,NWG=64,KWG=8,MDIMC=16,NDIMC=8,KWI=8,VWM=4,VWN=4 \
    MWG=64,NWG=64,KWG=8,MDIMC=8,NDIMC=8,KWI=8,VWM=4,VWN=4 \
    MWG=64,NWG=64,KWG=8,MDIMC=8,NDIMC=16,KWI=8,VWM=4,VWN=2; do
    echo "-- $prm"
    $BENCH --no-clblast --precision s --batched 10000,64 --batched 1000,128 --batched 1000,256 \
        --batched 100,512 --family regblock --params $prm 2>&1 | grep clgemm
done
echo "== sweep: narrow FP32 (kernel 8192 x 64), 8-deep slices"
M64="--shape 64,8192,8192"
run "64x64 k8 16x8 auto" --precision s $M64 --family regblock \
    --params MWG=64,NWG=64,KWG=8,MDIMC=16,NDIMC=8,KWI=8,VWM=2,VWN=2
for s in 4 8; do
    CLGEMM_STREAMK=0 CLGEMM_KSPLIT=$s run "64x64 k8 16x8 split $s" --precision s $M64 \
        --family regblock --params MWG=64,NWG=64,KWG=8,MDIMC=16,NDIMC=8,KWI=8,VWM=2,VWN=2
    CLGEMM_STREAMK=0 CLGEMM_KSPLIT=$s run "256x64 k8 16x8 split $s" --precision s $M64 \
        --family regblock --params MWG=256,NWG=64,KWG=8,MDIMC=16,NDIMC=8,KWI=8,VWM=4,VWN=4
    CLGEMM_STREAMK=0 CLGEMM_KSPLIT=$s run "128x64 k8 16x8 split $s" --precision s $M64 \
        --family regblock --params MWG=128,NWG=64,KWG=8,MDIMC=16,NDIMC=8,KWI=8,VWM=4,VWN=4
done
CLGEMM_STREAMK=0 CLGEMM_KSPLIT=16 run "256x64 k8 16x8 split 16" --precision s $M64 \
    --family regblock --params MWG=256,NWG=64,KWG=8,MDIMC=16,NDIMC=8,KWI=8,VWM=4,VWN=4
