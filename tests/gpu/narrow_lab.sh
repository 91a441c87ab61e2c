#!/bin/sh
# narrow_lab.sh: issue 11's narrow FP32 shapes under the planner's split K (one wave of two
# work-groups per SM), and tiles for the kernel's 64 x 8192 orientation (row-major
# 8192 x 64 x 8192), beside cuBLAS; run like h200_schedules.sh.
. tests/gpu/lib.sh
BENCH="$B/bench/clgemm-bench --runs 20 --layout row --no-clblast --precision s"
echo "== defaults"
$BENCH --shape 8192,64,8192 --shape 64,8192,8192 --shape 256,256,16384 2>&1 | grep -E "^s |MISMATCH"
$BENCH --shape 256,256,16384 --precision d 2>&1 | grep -E "^d |MISMATCH"
echo "== row-major 8192 x 64 x 8192 (kernel 64 x 8192), forced tiles, the planner's split"
for p in MWG=64,NWG=256,KWG=8,MDIMC=8,NDIMC=16,KWI=8,VWM=4,VWN=4 \
    MWG=64,NWG=256,KWG=8,MDIMC=4,NDIMC=32,KWI=8,VWM=4,VWN=4 \
    MWG=64,NWG=256,KWG=8,MDIMC=8,NDIMC=16,KWI=8,VWM=2,VWN=4 \
    MWG=64,NWG=256,KWG=8,MDIMC=8,NDIMC=16,KWI=8,VWM=4,VWN=8 \
    MWG=64,NWG=256,KWG=16,MDIMC=8,NDIMC=16,KWI=8,VWM=4,VWN=4 \
    MWG=64,NWG=128,KWG=8,MDIMC=8,NDIMC=16,KWI=8,VWM=4,VWN=4 \
    MWG=64,NWG=128,KWG=8,MDIMC=8,NDIMC=8,KWI=8,VWM=4,VWN=4 \
    MWG=64,NWG=64,KWG=32,MDIMC=16,NDIMC=8,KWI=8,VWM=2,VWN=2; do
    for s in 0 8; do
        if [ $s = 0 ]; then env=""; else env="CLGEMM_KSPLIT=$s"; fi
        env $env $BENCH --shape 8192,64,8192 --family regblock --params $p 2>&1 | grep -E "^s " |
            awk -v p=$p -v s=$s '{print "split " (s == 0 ? "planner" : s) " " $8 " " p}'
    done
done
python3 .gpu/cublas_reference.py 8192,64,8192 64,8192,8192
