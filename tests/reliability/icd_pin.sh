#!/bin/sh
# icd_pin.sh: checks that opencl_env.sh keeps a sanitized OpenCL program alive on a machine with
# another ICD that loads a library with RTLD_DEEPBIND (as Intel's does). A fake ICD whose
# constructor does such a dlopen sits beside PoCL's in a vendors folder of its own; a small
# AddressSanitizer program must first abort without the pin (so the trap is real), then list
# PoCL's platform with it. Skipped (exit 77) without a C compiler, libasan or PoCL's ICD.
set -u
here=$(cd "$(dirname "$0")" && pwd)
cc=${CC:-cc}
pocl=$(ls /etc/OpenCL/vendors/pocl*.icd 2>/dev/null | head -n 1)
[ -n "$pocl" ] || { echo "no PoCL ICD: skipped"; exit 77; }
dir=$(mktemp -d /tmp/clgemm-icd-XXXXXX)
trap 'rm -rf "$dir"' EXIT
cat >"$dir/fake.c" <<'C'
#define _GNU_SOURCE
#include <dlfcn.h>
__attribute__((constructor)) static void load_deep(void) { dlopen("libm.so.6", RTLD_NOW | RTLD_DEEPBIND); }
C
cat >"$dir/list.c" <<'C'
#include <CL/cl.h>
#include <stdio.h>
int main(void) {
    cl_uint n = 0;
    cl_int err = clGetPlatformIDs(0, NULL, &n);
    printf("clGetPlatformIDs: %d, %u platforms\n", err, n);
    return err == CL_SUCCESS && n > 0 ? 0 : 1;
}
C
"$cc" -shared -fPIC -o "$dir/libfakeicd.so" "$dir/fake.c" -ldl || { echo "no compiler: skipped"; exit 77; }
"$cc" -DCL_TARGET_OPENCL_VERSION=120 -fsanitize=address -o "$dir/list" "$dir/list.c" -lOpenCL ||
    { echo "no libasan or OpenCL headers: skipped"; exit 77; }
mkdir "$dir/vendors"
cp "$pocl" "$dir/vendors/"
echo "$dir/libfakeicd.so" >"$dir/vendors/aaa-deepbind.icd"
export ASAN_OPTIONS=detect_leaks=0
unset OCL_ICD_VENDORS

if OPENCL_VENDOR_PATH="$dir/vendors" "$dir/list" >"$dir/out" 2>&1; then
    echo "FAIL: the deep-binding ICD did not abort the sanitized program; the test proves nothing"
    cat "$dir/out"
    exit 1
fi
echo "without the pin (expected to fail): $(grep -m1 -i deepbind "$dir/out" || tail -n 1 "$dir/out")"
OPENCL_VENDOR_PATH="$dir/vendors"
export OPENCL_VENDOR_PATH
. "$here/opencl_env.sh"
echo "OCL_ICD_VENDORS=$OCL_ICD_VENDORS"
"$dir/list" || { echo "FAIL: the sanitized program did not run with the pin"; exit 1; }
