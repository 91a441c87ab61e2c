#!/bin/sh
# h200_session3_final2.sh: h200_session3_final.sh again at the session's last commit (issues 10 and
# 11), run like h200_schedules.sh: device suites, then issue 11's table (FP32, FP64 defaults and
# FP64 on the SIMT family) and issue 10's FP32 table, each beside cuBLAS / torch.bmm in the
# same call.
sh tests/gpu/h200_session3_final.sh
. tests/gpu/lib.sh
BENCH="$B/bench/clgemm-bench --runs 20 --layout row --no-clblast"
echo "== FP64 on the tensor cores: the narrow shapes in 64 x 128 tiles (warp tile 32 x 64)"
for sh in 8192,64,8192 64,8192,8192; do
    $BENCH --precision d --shape $sh --family mma \
        --params MWG=64,NWG=128,KWG=16,WM=32,WN=64,STAGES=2 2>&1 | grep -E "^d |MISMATCH"
done
