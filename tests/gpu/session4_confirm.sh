#!/bin/sh
# session4_confirm.sh: the closing H200 call of the fourth session, at its last commit: issue
# 11's and issue 10's tables (tests/gpu/tables.sh, cuBLAS / torch.bmm in the same call), FP64 at
# long K on the SIMT family in 128 x 64 tiles too, and FP32 small squares on the defaults (16 x 32
# tiles up to ~360, 32 x 32 from there).
. tests/gpu/lib.sh
sh tests/gpu/tables.sh
BENCH="$B/bench/clgemm-bench --runs 30 --layout row --no-clblast"
echo "== FP64 SIMT long K in 128 x 64 tiles"
$BENCH --precision d --shape 256,256,16384 --family regblock \
    --params MWG=128,NWG=64,KWG=8,MDIMC=16,NDIMC=8,KWI=4,VWM=2,VWN=2 2>&1 | grep -E "^d "
echo "== FP32 small squares, defaults"
$BENCH --precision s --shape 128,128,128 --shape 192,192,192 --shape 256,256,256 \
    --shape 300,300,300 --shape 384,384,384 --shape 512,512,512 2>&1 | grep -E "^s "
echo "== $(date -u +%T) end"
