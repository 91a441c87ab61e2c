#!/bin/sh
# Builds tests/gpu/mma_lab (the standalone lab for cl/mma.cl; it needs only OpenCL) and its two
# kernel sources: mma_source.cl, cl/mma.cl after the parts the library places before it, and
# mma_naive_source.cl, tests/gpu/mma_naive.cl (the CPU stand-in) after the parts every kernel
# starts with. The lists are the library's own (kernel-parts, from the meson build in $BUILD,
# default build).
# With a destination folder given, it stages them for the H200: binary, both sources, the GPU
# helpers of bench/gpu (nvidia-opencl.sh, cublas_reference.py) and the libraries the GPU machine
# lacks (bench/gpu/bundle-libs.sh).
# Usage: [BUILD=DIR] tests/gpu/build_mma_lab.sh [STAGE_DIR]     (run from the repository root)
set -eu
out=build-mma-lab
parts_tool=${BUILD:-build}/tests/kernel-parts
[ -x "$parts_tool" ] || { echo "$parts_tool missing: build the library first (meson, ninja)"; exit 1; }
mkdir -p "$out"
gcc -O2 -fopenmp -Wall -Wextra -o "$out/mma_lab" tests/gpu/mma_lab.c -lOpenCL -lm -lpthread
echo "built $out/mma_lab"
# Each part followed by a newline, as the library joins them.
join() { # output, then the files
  dest=$1; shift
  : > "$dest"
  for f in "$@"; do { cat "$f"; echo; } >> "$dest"; done
}
join "$out/mma_source.cl" $("$parts_tool" mma.cl | sed 's#^#cl/#')
join "$out/mma_naive_source.cl" $("$parts_tool" --common | sed 's#^#cl/#') tests/gpu/mma_naive.cl
echo "wrote $out/mma_source.cl and $out/mma_naive_source.cl"
if [ $# -ge 1 ]; then
  dest=$1
  mkdir -p "$dest"
  cp "$out/mma_lab" "$out/mma_source.cl" "$out/mma_naive_source.cl" "$dest/"
  cp bench/gpu/nvidia-opencl.sh bench/gpu/cublas_reference.py "$dest/"
  sh bench/gpu/bundle-libs.sh "$dest/lib" "$dest/mma_lab" >/dev/null
  echo "staged in $dest"
fi
