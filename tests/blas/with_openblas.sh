#!/bin/sh
# with_openblas.sh: runs the BLAS suites (meson suite 'blas') once more with OpenBLAS as the
# system BLAS, whatever the libblas.so.3 / liblapack.so.3 alternatives say: a folder of links to
# Debian's libopenblas0-pthread goes first on LD_LIBRARY_PATH, and the resolution is checked
# before the run. The tests that compare with reference BLAS load it by its own path.
# Usage: tests/blas/with_openblas.sh BUILD_DIR
set -u
build=${1:?usage: with_openblas.sh BUILD_DIR}
openblas=/usr/lib/x86_64-linux-gnu/openblas-pthread
[ -e "$openblas/libblas.so.3" ] || { echo "with_openblas.sh: $openblas/libblas.so.3 missing (libopenblas0-pthread)"; exit 1; }
links=$(mktemp -d)
trap 'rm -rf "$links"' EXIT
ln -s "$openblas/libblas.so.3" "$links/libblas.so.3"
ln -s "$openblas/liblapack.so.3" "$links/liblapack.so.3"
export LD_LIBRARY_PATH="$links${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
resolved=$(ldd /usr/lib/x86_64-linux-gnu/blas/xblat3d | awk '$1 == "libblas.so.3" { print $3 }')
case $(readlink -f "$resolved") in
"$openblas"/*) echo "libblas.so.3 resolves to $(readlink -f "$resolved")" ;;
*) echo "with_openblas.sh: libblas.so.3 resolves to '$resolved', not OpenBLAS"; exit 1 ;;
esac
meson test -C "$build" --suite blas --logbase blas-openblas --print-errorlogs
