#!/bin/sh
# tsan.sh: builds clgemm and the concurrency test with clang -fsanitize=thread in a build folder
# of its own, runs the test (default 8 threads x 200 calls, on one shared handle then one handle
# per thread), and judges every ThreadSanitizer report with tsan_check.py: any report whose
# accesses involve a clgemm frame (or the test's own code) fails; reports wholly inside the
# OpenCL runtime are tolerated only when tsan.supp names them. Then a canary (a deliberate race
# in the test) checks that ThreadSanitizer and tsan_check.py do report.
#
# Usage: tests/reliability/tsan.sh [BUILD_DIR [THREADS [CALLS]]]   (default build-tsan, 8, 200)
# Needs clang (Debian: apt-get install clang). Run it after the plain test suites: PoCL compiles
# each kernel launch geometry once into its cache (~/.cache/pocl), and doing that under
# ThreadSanitizer's interceptors is slow (about 3 minutes with a cold cache, 15 s warm).
set -eu
src=$(cd "$(dirname "$0")/../.." && pwd)
dir=${1:-$src/build-tsan}
threads=${2:-8}
calls=${3:-200}
if [ ! -d "$dir/meson-private" ]; then
    CC=clang meson setup "$dir" "$src" -Db_sanitize=thread -Db_lundef=false \
        -Dbuildtype=debugoptimized -Dtests=disabled -Dbench=disabled >/dev/null
fi
ninja -C "$dir" tests/reliability/rel_concurrency >/dev/null

logs="$dir/tsan-logs"
rm -rf "$logs" "$logs-canary"
mkdir -p "$logs" "$logs-canary"
# Only PoCL: another installed ICD (Intel's) can abort every sanitized OpenCL program.
. "$src/tests/reliability/opencl_env.sh"
export REL_KERNEL_SRC="$src/cl" # the split-K check copies the kernels without reduce.cl
export CLGEMM_TUNING_DB="$dir/no-such-tuning-db.json"
export CLGEMM_CACHE_DIR="$dir/program-cache"
opts="exitcode=0:halt_on_error=0:second_deadlock_stack=1:history_size=4"
status=0
TSAN_OPTIONS="$opts:log_path=$logs/tsan" "$dir/tests/reliability/rel_concurrency" "$threads" \
    "$calls" || status=1
python3 "$src/tests/reliability/tsan_check.py" "$logs" || status=1

TSAN_OPTIONS="$opts:log_path=$logs-canary/tsan" REL_TSAN_CANARY=1 \
    "$dir/tests/reliability/rel_concurrency" 2 1 >/dev/null || status=1
python3 "$src/tests/reliability/tsan_check.py" "$logs-canary" --expect-test-race || status=1
exit $status
