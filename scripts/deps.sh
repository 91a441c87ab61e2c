#!/bin/sh
# deps.sh: installs the Debian 12 packages clgemm builds, tests and runs with, if any is missing
# (clang only for the ThreadSanitizer and fuzzing runs of CI; intel-opencl-icd (ocloc), clang-14,
# llvm-14 and libclc-14 for the portability suite's Intel and AMD builds; the BLAS and LAPACK test programs,
# ScaLAPACK with Open MPI, CMake and the Python packages for the BLAS drop-in, distributed,
# CMake and Python tests; patchelf for meson-python's wheels). Run it directly (--openblas: libopenblas0-pthread too); it uses sudo when not root.
set -e
packages="gcc pkg-config python3 meson ninja-build ocl-icd-opencl-dev opencl-headers
pocl-opencl-icd libclblast-dev libcriterion-dev libjansson-dev oclgrind gnuplot-nox
clang libclang-rt-14-dev
intel-opencl-icd clang-14 llvm-14 libclc-14
libblas-dev libblas-test liblapack-test libscalapack-openmpi-dev libopenmpi-dev openmpi-bin cmake
python3-numpy python3-pyopencl python3-pytest python3-venv python3-pip patchelf"
# --openblas: OpenBLAS as well (CI's rerun of the BLAS suites with it as the system BLAS).
[ "${1:-}" = --openblas ] && packages="$packages libopenblas0-pthread"
missing=""
for p in $packages; do
    dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "deps.sh: installing$missing"
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends $missing >/dev/null
