# shellcheck shell=sh
# setup.sh: the common start of the offline PTX checks (scripts/check_*_ptx.sh), sourced by them
# with KERNEL set to a kernel's file name. Reads the check's first two arguments (SOURCE_ROOT,
# default the checkout; KERNEL_PARTS, the meson build's kernel-parts program), exits 77 (skipped)
# without clang-14 or ptxas (PTXAS), makes a work folder removed at exit and in it src.cl: the
# prelude of built-ins, then the kernel's parts as the library joins them.
# to_ptx OPTIONS...: src.cl through clang's OpenCL C to $work/k.ptx (its log in
# $work/clang.log); false where clang fails.
root=${1:-$(dirname "$0")/..}
parts_tool=${2:-$root/build/tests/kernel-parts}
clang=$(command -v clang-14 || true)
ptxas=${PTXAS:-/usr/local/cuda/bin/ptxas}
[ -n "$clang" ] && [ -x "$ptxas" ] || { echo "skipped: clang-14 or $ptxas missing"; exit 77; }
[ -x "$parts_tool" ] || { echo "$parts_tool missing: build the library first"; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
{
    cat "$root/scripts/nvptx/prelude.cl"
    for part in $("$parts_tool" "$KERNEL"); do cat "$root/cl/$part"; echo; done
} > "$work/src.cl"

to_ptx() {
    "$clang" -x cl -cl-std=CL1.2 -target nvptx64-nvidia-nvcl -O3 -S -Dasm=__asm__ \
        -Xclang -finclude-default-header "$@" -o "$work/k.ptx" "$work/src.cl" 2> "$work/clang.log"
}
