# lib.sh: what the H200 lab scripts share (sourced from the repository root): the build, an
# empty tuning database and a kernel cache of their own, and the device suites' summary lines.
B=build-gpu
export CLGEMM_TUNING_DB=/tmp/none.json CLGEMM_CACHE_DIR=${CLGEMM_CACHE_DIR:-/tmp/clgemm-kernels}
suites() { # test binaries of build-gpu/tests: each one's failures and closing line
    for t in "$@"; do
        echo "== $t"
        timeout 240 $B/tests/$t 2>&1 | grep -E "FAIL|Synthesis|Assert" | head -10
    done
}
