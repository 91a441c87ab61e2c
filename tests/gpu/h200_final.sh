#!/bin/sh
# h200_final.sh: the last H200 call of a session (from the repository root, after
# `. .gpu/nvidia-opencl.sh` and with LD_LIBRARY_PATH=.gpu/lib): the device suites on the final
# code, every type beside CLBlast on the same buffers, and the BLAS drop-in against the host API.
B=build-gpu
export CLGEMM_TUNING_DB=/tmp/none.json CLGEMM_CACHE_DIR=/tmp/clgemm-kernels
for t in test_faults test_split test_invalid test_types test_batched test_gemm; do
    echo "== $t"
    timeout 300 $B/tests/$t 2>&1 | grep -E "FAIL|Synthesis|Assert" | head -20
done
echo "== types beside CLBlast"
$B/bench/clgemm-types-bench s:4096,4096,4096 d:4096,4096,4096 c:4096,4096,4096 \
    z:2048,2048,2048 c:1024,1024,1024 z:1024,1024,1024 h:4096,4096,4096 s:8192,8192,8192
echo "== BLAS drop-in against the host API"
$B/bench/clgemm-blas-overhead --runs 5 1024 8192
