#!/bin/sh
# sanitize.sh: builds clgemm with AddressSanitizer + UndefinedBehaviorSanitizer (LeakSanitizer
# included) in a build folder of its own and runs the unit, device and reliability test suites
# and the tuning_db test in it, as they are; then lsan_check.py judges every process's sanitizer log: any ASan error,
# any UBSan runtime error, and any leak whose allocation stack has a clgemm frame (or a test
# frame) fails the run. Leaks wholly inside third-party code are tolerated only when a pattern of
# lsan.supp names them (lsan_check.py explains why LeakSanitizer does not apply it itself).
# Finally a canary leaks one handle on purpose and checks that lsan_check.py reports it.
#
# Usage: tests/reliability/sanitize.sh [BUILD_DIR [SUITE_OR_TEST...]]
#   BUILD_DIR defaults to build-sanitize; the rest to: unit device reliability tuning_db (a name
#   with a suite of that name runs the suite, any other the one test of that name).
# Exit status 0: every test passed and no sanitizer report counts against clgemm.
set -eu
src=$(cd "$(dirname "$0")/../.." && pwd)
dir=${1:-$src/build-sanitize}
[ $# -gt 0 ] && shift
suites=${*:-unit device reliability tuning_db}

if [ -d "$dir/meson-private" ]; then
    meson configure "$dir" -Db_sanitize=address,undefined -Db_lundef=false >/dev/null
else
    meson setup "$dir" "$src" -Db_sanitize=address,undefined -Db_lundef=false \
        -Dbuildtype=debug >/dev/null
fi
ninja -C "$dir" >/dev/null

# Only PoCL: another installed ICD (Intel's) can abort every sanitized OpenCL program.
. "$src/tests/reliability/opencl_env.sh"
logs="$dir/sanitizer-logs"
rm -rf "$logs" "$logs-canary"
mkdir -p "$logs" "$logs-canary"
# Full stacks (the fast unwinder stops inside PoCL, which hides the clgemm caller), one log file
# per process (Criterion forks one per test), leaks judged by lsan_check.py (exitcode=0).
asan="detect_leaks=1:fast_unwind_on_malloc=0:malloc_context_size=40:halt_on_error=1"
asan="$asan:abort_on_error=0:detect_stack_use_after_return=1:check_initialization_order=1"
export ASAN_OPTIONS="$asan:log_path=$logs/asan"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:log_path=$logs/ubsan"
export LSAN_OPTIONS="exitcode=0"

known=$(meson test -C "$dir" --list 2>/dev/null | sed -n 's/^[^:]*:\([^ ]*\) \/ .*/\1/p' | tr '+' '\n' | sort -u)
args=""
tests=""
for s in $suites; do
    if echo "$known" | grep -qx "$s"; then args="$args --suite $s"; else tests="$tests $s"; fi
done
status=0
set +e
# shellcheck disable=SC2086
[ -z "$args" ] || meson test -C "$dir" --print-errorlogs --timeout-multiplier 3 $args || status=1
# shellcheck disable=SC2086
[ -z "$tests" ] || meson test -C "$dir" --print-errorlogs --timeout-multiplier 3 $tests || status=1
python3 "$src/tests/reliability/lsan_check.py" "$logs" || status=1

# The canary: a handle leaked on purpose must be reported as a clgemm leak.
ASAN_OPTIONS="$asan:log_path=$logs-canary/asan" REL_LEAK_CANARY=1 \
    CLGEMM_TUNING_DB="$dir/no-such-db.json" "$dir/tests/reliability/rel_leak" 2 >/dev/null
python3 "$src/tests/reliability/lsan_check.py" "$logs-canary" --expect-clgemm-leak || status=1
exit $status
