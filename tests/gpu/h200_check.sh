#!/bin/sh
# h200_check.sh: one H200 device call's worth of checks (from the repository root, after
# `. .gpu/nvidia-opencl.sh` and with LD_LIBRARY_PATH=.gpu/lib): the device test suites, then
# every type and compute mode, batched GEMM beside CLBlast and torch.bmm, and the host cost of
# a warm call. Built with `meson setup build-gpu --buildtype=release`.
B=build-gpu
export CLGEMM_TUNING_DB=/tmp/none.json CLGEMM_CACHE_DIR=/tmp/clgemm-kernels
git log --oneline -1 2>/dev/null
for t in test_faults test_split test_invalid test_types test_batched test_gemm; do
    echo "== $t"
    timeout 300 $B/tests/$t 2>&1 | grep -E "FAIL|Synthesis|Assert|skip" | head -20
done
echo "== types"
$B/bench/clgemm-types-bench h:8192,8192,8192 b:8192,8192,8192 tf32:8192,8192,8192 \
    3xtf32:8192,8192,8192 d:8192,8192,8192 s:8192,8192,8192 s:4096,4096,4096 c:4096,4096,4096 \
    z:2048,2048,2048
echo "== batched"
$B/bench/clgemm-batched-bench --runs 20 s:10000,32 s:10000,64 s:1000,128 s:1000,256 s:100,512 \
    d:10000,32 d:1000,128 d:100,512 h:10000,64 h:1000,256 h:100,512
python3 bench/gpu/bmm_reference.py 10000,32 10000,64 1000,128 1000,256 100,512
python3 bench/gpu/bmm_reference.py --fp64 10000,32 1000,128 100,512
python3 bench/gpu/bmm_reference.py --fp16 10000,64 1000,256 100,512
echo "== overhead"
$B/bench/clgemm-overhead --calls 3000 32 128
