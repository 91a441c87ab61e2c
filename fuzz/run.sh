#!/bin/sh
# run.sh: builds fuzz_tuning_db (libFuzzer + ASan + UBSan, clang) and fuzzes the tuning-database
# loader for a bounded time, starting from the seed corpus fuzz/corpus (read only; new inputs go
# to BUILD_DIR/corpus, crashes to BUILD_DIR/crash-*). Prints executions, executions/s, coverage.
#
# Usage: fuzz/run.sh [SECONDS [BUILD_DIR]]   (defaults: 60 s, build-fuzz)
#   Any extra libFuzzer flags: FUZZ_FLAGS="-jobs=2 -workers=2" fuzz/run.sh 60
# Exit status 0: no crash, leak, UBSan report or failed check in the time given.
# Needs clang with libFuzzer (Debian: apt-get install clang libclang-rt-14-dev) and libjansson-dev.
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
seconds=${1:-60}
dir=${2:-$src/build-fuzz}
cc=${CC_FUZZ:-clang}
mkdir -p "$dir/corpus"
$cc -g -O1 -std=c11 -D_GNU_SOURCE -DCLGEMM_BUILDING \
    -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
    -I"$src/include" -I"$src/src" \
    "$src/fuzz/fuzz_tuning_db.c" "$src/src/core/status.c" "$src/src/core/log.c" "$src/src/types/types.c" \
    "$src"/src/families/*.c "$src/src/core/device_tier.c" \
    "$src/src/core/fileutil.c" \
    $(pkg-config --cflags --libs jansson) -lm -o "$dir/fuzz_tuning_db"
echo "fuzz_tuning_db built; fuzzing for $seconds s"
cd "$dir"
set +e
# shellcheck disable=SC2086
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    ./fuzz_tuning_db -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=8192 \
    -dict="$src/fuzz/tuning_db.dict" -print_final_stats=1 ${FUZZ_FLAGS:-} \
    corpus "$src/fuzz/corpus" >fuzz.log 2>&1
status=$?
set -e
tail -n 25 fuzz.log
runs=$(sed -n 's/^stat::number_of_executed_units: *//p' fuzz.log | tail -n 1)
rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' fuzz.log | tail -n 1)
cov=$(grep -o 'cov: [0-9]*' fuzz.log | tail -n 1)
echo "fuzz_tuning_db: exit $status, ${runs:-?} executions in $seconds s (${rate:-?}/s), $cov," \
    "corpus $(ls corpus | wc -l) inputs"
exit $status
