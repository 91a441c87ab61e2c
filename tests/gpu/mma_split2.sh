#!/bin/sh
# mma_split2.sh: the tensor-core split K with layers sized by the family-independent residency
# estimate (two FP64 128 x 64 work-groups per SM), run like h200_schedules.sh.
. tests/gpu/lib.sh
echo "== test_split"
timeout 240 $B/tests/test_split 2>&1 | grep -E "FAIL|Synthesis|Assert" | head -10
$B/bench/clgemm-types-bench --runs 20 d:256,256,16384 d:128,128,65536 d:1024,1024,16384 \
    h:256,256,16384 b:256,256,16384 d:8192,64,8192 d:64,8192,8192 2>&1 | grep -v "^#"
echo "== 1024 x 1024 x 16384 FP64 unsplit"
CLGEMM_KSPLIT=1 $B/bench/clgemm-types-bench --runs 20 d:1024,1024,16384 2>&1 | grep median
python3 .gpu/cublas_reference.py --fp64 256,256,16384 128,128,65536 1024,1024,16384
