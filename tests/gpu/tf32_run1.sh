#!/bin/bash
# Ran at commit f22dc91, where the kernel's default TF32_CVT=2 was the local-memory rounding pass
# (removed since); the ptxas/cuobjdump step at the end produced no SASS (ptxas not found there).
# TF32 / 3xTF32 run 1: full check of every mode, TF32_CVT x TF32_LDS variants, tiles, SASS, cuBLAS
L="timeout 120 ./mma_lab"
P16="MWG=128,NWG=128,KWG=32,WM=64,WN=64,STAGES=3"
PT="MWG=128,NWG=128,KWG=16,WM=64,WN=64,STAGES=3"
PS="MWG=64,NWG=64,KWG=16,WM=32,WN=32,STAGES=3"
PD="MWG=128,NWG=64,KWG=16,WM=64,WN=32,STAGES=2,F64_K16=1"
T1="MWG=256,NWG=128,KWG=16,WM=64,WN=64,STAGES=2"
T2="MWG=128,NWG=256,KWG=16,WM=64,WN=64,STAGES=2"
T3="MWG=128,NWG=128,KWG=16,WM=64,WN=32,STAGES=3"
T4="MWG=128,NWG=128,KWG=8,WM=64,WN=64,STAGES=6"
S2="4096,4096,4096;8192,8192,8192"
S1="8192,8192,8192"
nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv,noheader
date +%s
$L --mode fp16 --cin --check --cfg $P16
$L --mode bf16 --cin --check --cfg $P16
$L --mode fp16 --check --bench --cfg $P16 --shapes $S1
$L --mode bf16 --check --cfg $P16
$L --mode fp64 --check --bench --cfg $PD --shapes $S1
date +%s
# TF32 defaults (TF32_CVT=2 TF32_LDS=1), both registered sets, registers
mkdir -p ptx/a ptx/b ptx/c ptx/d
$L --mode tf32 --check --bench --verbose --cfg $PT --cfg $PS --shapes $S2 --ptx ptx/a
$L --mode tf32 --check --bench --extra "-DTF32_CVT=1" --cfg $PT --shapes $S2 --ptx ptx/b
$L --mode tf32 --check --bench --extra "-DTF32_LDS=0" --cfg $PT --shapes $S2
$L --mode tf32 --bench --extra "-DTF32_CVT=0" --cfg $PT --shapes $S1
$L --mode tf32 --bench --extra "-DTF32_CVT=0 -DTF32_LDS=0" --cfg $PT --shapes $S1 --ptx ptx/c
$L --mode tf32 --bench --extra "-DDIAG_NO_CVT=1" --cfg $PT --shapes $S1
date +%s
$L --mode tf32 --bench --verbose --cfg $T1 --cfg $T2 --cfg $T3 --cfg $T4 --shapes $S2
date +%s
# 3xTF32
$L --mode 3xtf32 --check --bench --verbose --cfg $PT --cfg $PS --shapes $S2 --ptx ptx/d
$L --mode 3xtf32 --bench --extra "-DTF32_LDS=0" --cfg $PT --shapes $S1
$L --mode 3xtf32 --bench --extra "-DTF32_CVT=0 -DTF32_LDS=0" --cfg $PT --shapes $S1
$L --mode 3xtf32 --bench --verbose --cfg $T1 --cfg $T3 --shapes $S2
date +%s
export PYTHONUNBUFFERED=1
timeout 60 python3 cublas_reference.py --tf32 4096,4096,4096 8192,8192,8192
timeout 60 python3 cublas_reference.py 8192,8192,8192
date +%s
PX=$(command -v ptxas || ls /usr/local/cuda*/bin/ptxas | head -1)
CO=$(command -v cuobjdump || ls /usr/local/cuda*/bin/cuobjdump | head -1)
for d in a b c d; do for f in ptx/$d/*.ptx; do
  $PX -arch=sm_90a -v -o ${f%.ptx}.cubin $f 2>&1 | grep -i "registers\|spill"
  $CO -sass ${f%.ptx}.cubin > ${f%.ptx}.sass
done; done
tar czf $OUT/sass.tgz ptx
date +%s
