#!/bin/bash
# TF32 / 3xTF32 run 2: full check of every mode in parallel (final defaults TF32_CVT=1 TF32_LDS=1),
# then TF32 rounding / tile benches one at a time, then cuBLAS TF32.
L="timeout 150 ./mma_lab"
P16="MWG=128,NWG=128,KWG=32,WM=64,WN=64,STAGES=3"
PT="MWG=128,NWG=128,KWG=16,WM=64,WN=64,STAGES=3"
PS="MWG=64,NWG=64,KWG=16,WM=32,WN=32,STAGES=3"
PD="MWG=128,NWG=64,KWG=16,WM=64,WN=32,STAGES=2,F64_K16=1"
T1="MWG=256,NWG=128,KWG=16,WM=64,WN=64,STAGES=2"
T3="MWG=128,NWG=128,KWG=16,WM=64,WN=32,STAGES=3"
T5="MWG=256,NWG=128,KWG=8,WM=64,WN=64,STAGES=4"
T6="MWG=128,NWG=256,KWG=8,WM=64,WN=64,STAGES=4"
nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv,noheader
date +%s
mkdir -p logs
$L --mode fp16 --cin --check --cfg $P16 > logs/c1 2>&1 &
$L --mode bf16 --cin --check --cfg $P16 > logs/c2 2>&1 &
$L --mode fp16 --check --cfg $P16 > logs/c3 2>&1 &
$L --mode bf16 --check --cfg $P16 > logs/c4 2>&1 &
$L --mode fp64 --check --cfg $PD > logs/c5 2>&1 &
$L --mode tf32 --check --cfg $PT --cfg $PS --cfg $T1 > logs/c6 2>&1 &
$L --mode tf32 --check --extra "-DTF32_CVT=2" --cfg $PT > logs/c7 2>&1 &
$L --mode 3xtf32 --check --cfg $PT --cfg $PS --cfg $T1 > logs/c8 2>&1 &
wait
for f in logs/c*; do echo "== $f: $(head -1 $f | cut -c1-60) $(grep -c ': ok' $f) ok"; grep -i "fail\|error\|PASSED" $f | head -5; done
date +%s
$L --mode tf32 --bench --verbose --cfg $PT --shapes "4096,4096,4096;8192,8192,8192" | grep -v "Compil\|gmem\|Function prop\|Compile time"
$L --mode tf32 --bench --extra "-DTF32_CVT=2" --cfg $PT --shapes "8192,8192,8192"
$L --mode tf32 --bench --verbose --cfg $T1 --cfg $T3 --cfg $T5 --cfg $T6 --shapes "8192,8192,8192" | grep -v "Compil\|gmem\|Function prop\|Compile time"
$L --mode 3xtf32 --bench --verbose --cfg $PT --shapes "4096,4096,4096;8192,8192,8192" | grep -v "Compil\|gmem\|Function prop\|Compile time"
$L --mode 3xtf32 --bench --cfg $T5 --shapes "8192,8192,8192"
date +%s
export PYTHONUNBUFFERED=1
timeout 40 python3 cublas_reference.py --tf32 4096,4096,4096 8192,8192,8192
date +%s
cat logs/c* > $OUT/checks.log
