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
# FP64 on the SIMT family in its list's narrow tiles (128 x 64, 64 x 128) with K split: the two
# narrow shapes of issue 11, through the clgemm-bench command given.
simt_narrow() {
    $1 --precision d --shape 64,8192,8192 --family regblock \
        --params MWG=128,NWG=64,KWG=8,MDIMC=16,NDIMC=8,KWI=4,VWM=2,VWN=2 2>&1 | grep -E "^d "
    $1 --precision d --shape 8192,64,8192 --family regblock \
        --params MWG=64,NWG=128,KWG=8,MDIMC=8,NDIMC=16,KWI=4,VWM=2,VWN=2 2>&1 | grep -E "^d "
}
