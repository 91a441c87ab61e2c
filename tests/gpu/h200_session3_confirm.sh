#!/bin/sh
# h200_session3_confirm.sh: the H200 call that checks this session's planner changes (run like
# h200_schedules.sh): the device suites, issue 11's table with the defaults beside cuBLAS
# (narrow shapes now in 256 x 64 / 64 x 256 tiles split K), FP64 on the SIMT family, and
# issue 10's FP32 batched table beside CLBlast and torch.bmm.
. tests/gpu/lib.sh
suites test_split test_batched test_faults
BENCH="$B/bench/clgemm-bench --runs 20 --layout row"
SHAPES="--shape 4096,4096,4096 --shape 4097,4097,4097 --shape 2047,2047,2047 --shape 8192,64,8192 --shape 64,8192,8192 --shape 256,256,16384"
echo "== issue 11: FP32, FP64 (planner)"
$BENCH --no-clblast --precision s $SHAPES 2>&1 | grep -E "^s |MISMATCH"
$BENCH --no-clblast --precision d $SHAPES 2>&1 | grep -E "^d |MISMATCH"
echo "== FP64 on the SIMT family: 128x128 squares, 128x64 / 64x128 narrow"
$BENCH --no-clblast --precision d --shape 4096,4096,4096 --shape 4097,4097,4097 \
    --shape 2047,2047,2047 --family regblock \
    --params MWG=128,NWG=128,KWG=8,MDIMC=16,NDIMC=16,KWI=4,VWM=2,VWN=2 2>&1 | grep -E "^d "
simt_narrow "$BENCH --no-clblast"
echo "== cuBLAS"
python3 .gpu/cublas_reference.py $(echo $SHAPES | sed 's/--shape //g')
python3 .gpu/cublas_reference.py --fp64 $(echo $SHAPES | sed 's/--shape //g')
echo "== batched FP32 (issue 10)"
$B/bench/clgemm-batched-bench --runs 20 s:10000,32 s:10000,64 s:1000,128 s:1000,256 s:100,512 \
    2>&1 | grep -vE "^#|^$|^-"
python3 bench/gpu/bmm_reference.py 10000,32 10000,64 1000,128 1000,256 100,512
echo "== narrow, other splits of the new tiles"
for s in 4 8 16; do
    CLGEMM_KSPLIT=$s $BENCH --no-clblast --precision s --shape 8192,64,8192 --shape 64,8192,8192 \
        2>&1 | grep -E "^s " | awk -v s=$s '{print "split " s ": " $4 "x" $5 "x" $6 " " $8 " " $NF}'
done
