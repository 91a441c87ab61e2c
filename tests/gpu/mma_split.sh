#!/bin/sh
# mma_split.sh: the tensor-core family with K split across work-group layers (H200), run like
# h200_schedules.sh: the split suite (FP64 mma forced splits among them) and the types suite,
# then long-K shapes in every tensor-core type beside cuBLAS, and FP64 split counts.
. tests/gpu/lib.sh
suites test_split test_types test_batched
echo "== long K, every tensor-core type (types bench: kernel, ms, TFLOPS, error)"
$B/bench/clgemm-types-bench --runs 20 d:256,256,16384 h:256,256,16384 hs:256,256,16384 \
    b:256,256,16384 tf32:256,256,16384 d:128,128,65536 h:1024,1024,16384 d:1024,1024,16384 \
    d:4096,4096,4096 h:8192,8192,8192 2>&1 | grep -v "^#"
echo "== FP64 256 x 256 x 16384, forced split counts of the default"
for s in 8 16 32; do
    CLGEMM_KSPLIT=$s $B/bench/clgemm-bench --runs 20 --layout row --no-clblast --precision d \
        --shape 256,256,16384 2>&1 | grep -E "^d " | awk -v s=$s '{print "split " s ": " $8 " " $(NF-1) " " $NF}'
done
echo "== cuBLAS"
for p in --fp64 --fp16 --bf16 --tf32; do
    python3 .gpu/cublas_reference.py $p 256,256,16384 128,128,65536 1024,1024,16384
done
