#!/bin/sh
# Builds tests/gpu/mma_lab (the standalone lab for cl/mma.cl; it needs only OpenCL) and, with
# a destination folder given, stages it for the H200: binary, cl/mma.cl, the GPU helpers of
# bench/gpu (nvidia-opencl.sh, cublas_reference.py) and the libraries the GPU machine lacks
# (bench/gpu/bundle-libs.sh).
# Usage: tests/gpu/build_mma_lab.sh [STAGE_DIR]     (run from the repository root)
set -eu
out=build-mma-lab
mkdir -p "$out"
gcc -O2 -fopenmp -Wall -Wextra -o "$out/mma_lab" tests/gpu/mma_lab.c -lOpenCL -lm -lpthread
echo "built $out/mma_lab"
if [ $# -ge 1 ]; then
  dest=$1
  mkdir -p "$dest/cl"
  cp "$out/mma_lab" "$dest/"
  cp cl/mma.cl "$dest/cl/"
  cp bench/gpu/nvidia-opencl.sh bench/gpu/cublas_reference.py "$dest/"
  sh bench/gpu/bundle-libs.sh "$dest/lib" "$dest/mma_lab" >/dev/null
  echo "staged in $dest"
fi
