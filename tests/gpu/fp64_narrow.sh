#!/bin/sh
# fp64_narrow.sh: FP64 on the tensor cores with 64 x 128 tiles in the default list, run like
# h200_schedules.sh: the split and types suites, issue 11's FP64 shapes beside cuBLAS.
. tests/gpu/lib.sh
suites test_split test_types
SHAPES="4096,4096,4096 4097,4097,4097 2047,2047,2047 8192,64,8192 64,8192,8192 256,256,16384"
ARGS=$(for s in $SHAPES; do printf -- "--shape %s " $s; done)
$B/bench/clgemm-bench --runs 20 --layout row --no-clblast --precision d $ARGS 2>&1 | grep -E "^d |MISMATCH"
python3 .gpu/cublas_reference.py --fp64 $SHAPES
