#!/bin/sh
# dbuf_lab.sh: the register-blocked kernel with double-buffered tiles (DBUF=1, one barrier per
# slice) against one buffer (two barriers), same tiles, on the H200; run like h200_schedules.sh.
# Prediction: the 256 x 128 tiles, one work-group per SM (8 warps: every barrier stalls the
# whole SM), gain 3-6 %; tiles with two or more work-groups per SM gain nothing (run 3).
. tests/gpu/lib.sh
suites test_split test_gemm
BENCH="$B/bench/clgemm-bench --runs 20 --layout row --no-clblast"
both() { # precision, params, shapes...: DBUF 0 then 1
    p=$1; prm=$2; shift 2
    for d in 0 1; do
        $BENCH --precision $p "$@" --family regblock --params $prm,DBUF=$d 2>&1 | grep -E "^[sd] " |
            awk -v d=$d -v prm=$prm '{printf "DBUF=%s %sx%sx%s %8.1f  %s\n", d, $4, $5, $6, $8, prm}'
    done
}
both s MWG=256,NWG=128,KWG=8,MDIMC=16,NDIMC=16,KWI=8,VWM=4,VWN=4 --shape 4096,4096,4096 \
    --shape 8192,8192,8192 --shape 2047,2047,2047 --shape 4097,4097,4097
both s MWG=128,NWG=128,KWG=8,MDIMC=16,NDIMC=16,KWI=8,VWM=4,VWN=4 --shape 2048,2048,2048
both s MWG=64,NWG=64,KWG=32,MDIMC=16,NDIMC=8,KWI=8,VWM=2,VWN=2 --shape 1024,1024,1024 \
    --shape 256,256,16384
both s MWG=256,NWG=64,KWG=8,MDIMC=16,NDIMC=8,KWI=8,VWM=4,VWN=4 --shape 64,8192,8192
both s MWG=64,NWG=256,KWG=8,MDIMC=4,NDIMC=32,KWI=8,VWM=4,VWN=4 --shape 8192,64,8192
both d MWG=128,NWG=128,KWG=8,MDIMC=16,NDIMC=16,KWI=4,VWM=2,VWN=2 --shape 4096,4096,4096
for prm in MWG=256,NWG=128,KWG=8,MDIMC=16,NDIMC=16,KWI=8,VWM=4,VWN=4 \
    MWG=128,NWG=64,KWG=8,MDIMC=16,NDIMC=8,KWI=8,VWM=4,VWN=4 \
    MWG=64,NWG=64,KWG=8,MDIMC=16,NDIMC=8,KWI=8,VWM=2,VWN=2; do
    for d in 0 1; do
        echo "-- $prm DBUF=$d"
        $B/bench/clgemm-bench --runs 20 --layout row --no-clblast --precision s \
            --batched 10000,64 --batched 1000,128 --batched 1000,256 --batched 100,512 \
            --family regblock --params $prm,DBUF=$d 2>&1 | grep clgemm
    done
done
python3 .gpu/cublas_reference.py 4096,4096,4096 8192,8192,8192 2047,2047,2047
