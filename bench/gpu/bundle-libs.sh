#!/bin/sh
# bundle-libs.sh: copies into DEST every shared library the binaries load, except the C
# runtime ones every Linux machine has, so that DEST can travel to a machine without the
# packages (no package manager, or another distribution) and go on LD_LIBRARY_PATH there.
# Usage: bundle-libs.sh DEST BINARY...
set -eu
dest=$1; shift
mkdir -p "$dest"
for bin in "$@"; do
  ldd "$bin" | awk '/=> \// {print $3}' | while read -r lib; do
    case "$(basename "$lib")" in
      libc.so*|libm.so*|libpthread.so*|libdl.so*|librt.so*|ld-linux*|libgcc_s.so*|libstdc++.so*) continue ;;
    esac
    cp -L "$lib" "$dest/$(basename "$lib")"
  done
done
ls -la "$dest"
