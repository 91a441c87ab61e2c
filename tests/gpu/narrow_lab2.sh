#!/bin/sh
# narrow_lab2.sh: the two shapes of issue 11 still short after narrow_lab.sh: row-major
# 8192 x 64 x 8192 FP32 (kernel 64 x 8192, 0.87 x cuBLAS) and 256 x 256 x 16384 FP64 on the
# SIMT family (0.75 x its 4096^2 rate): tiles and split counts; run like h200_schedules.sh.
. tests/gpu/lib.sh
BENCH="$B/bench/clgemm-bench --runs 20 --layout row --no-clblast"
one() { # precision shape split params
    if [ $3 = planner ]; then env=""; else env="CLGEMM_KSPLIT=$3"; fi
    env $env $BENCH --precision $1 --shape $2 --family regblock --params $4 2>&1 | grep -E "^[sd] " |
        awk -v p=$4 -v s=$3 '{print $1 " split " s " " $8 " " p}'
}
N=8192,64,8192
for p in MWG=64,NWG=256,KWG=8,MDIMC=4,NDIMC=32,KWI=8,VWM=4,VWN=4 \
    MWG=64,NWG=256,KWG=8,MDIMC=4,NDIMC=32,KWI=4,VWM=4,VWN=4 \
    MWG=64,NWG=256,KWG=8,MDIMC=4,NDIMC=32,KWI=8,VWM=4,VWN=8 \
    MWG=64,NWG=256,KWG=8,MDIMC=4,NDIMC=32,KWI=8,VWM=2,VWN=4 \
    MWG=32,NWG=256,KWG=8,MDIMC=2,NDIMC=32,KWI=8,VWM=4,VWN=4; do
    one s $N planner $p
done
for s in 6 12 16; do one s $N $s MWG=64,NWG=256,KWG=8,MDIMC=4,NDIMC=32,KWI=8,VWM=4,VWN=4; done
L=256,256,16384
for s in planner 24 48; do one d $L $s MWG=128,NWG=128,KWG=8,MDIMC=16,NDIMC=16,KWI=4,VWM=2,VWN=2; done
for s in planner 16 32; do one d $L $s MWG=128,NWG=64,KWG=8,MDIMC=16,NDIMC=8,KWI=4,VWM=2,VWN=2; done
one d $L planner MWG=128,NWG=128,KWG=16,MDIMC=16,NDIMC=16,KWI=4,VWM=2,VWN=2
one d $L planner MWG=128,NWG=128,KWG=8,MDIMC=16,NDIMC=16,KWI=8,VWM=2,VWN=2
one d $L planner MWG=128,NWG=128,KWG=8,MDIMC=16,NDIMC=16,KWI=4,VWM=4,VWN=4
python3 .gpu/cublas_reference.py 8192,64,8192
