#!/bin/sh
# bundle-libs.sh: copies into DEST every shared library the binaries load, except the C
# runtime ones every Linux machine has, so that DEST can travel to a machine without the
# packages (no package manager, or another distribution) and go on LD_LIBRARY_PATH there.
# A shared library named as an argument (a path containing ".so") is copied itself as well, under
# the name it is looked up by (liblapack.so.3 for .../lapack/liblapack.so.3), after every
# dependency: it wins over a library of that name that the binaries' own resolution found (the
# reference LAPACK over the alternative's OpenBLAS LAPACK, say). clgemm's own libraries are left
# out: they travel with the build they belong to, and a copy on LD_LIBRARY_PATH would be found
# before the build's own (RUNPATH comes after LD_LIBRARY_PATH) and go stale at the next build.
# Usage: bundle-libs.sh DEST BINARY_OR_LIBRARY...
set -eu
dest=$1; shift
mkdir -p "$dest"
for bin in "$@"; do
  ldd "$bin" | awk '/=> \// {print $3}' | while read -r lib; do
    case "$(basename "$lib")" in
      libc.so*|libm.so*|libpthread.so*|libdl.so*|librt.so*|ld-linux*|libgcc_s.so*|libstdc++.so*) continue ;;
      libclgemm*) continue ;;
    esac
    cp -L "$lib" "$dest/$(basename "$lib")"
  done
done
for bin in "$@"; do
  case "$(basename "$bin")" in
    libclgemm*) ;;
    *.so*) cp -L "$bin" "$dest/$(basename "$bin")" ;;
  esac
done
ls -la "$dest"
