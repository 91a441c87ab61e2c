#!/bin/sh
# cli.sh: the command-line tools against hostile arguments, files and signals (issue 14, items 3, 8, 9;
# issue 20, item 4: Ctrl-C while the tuner waits to save).
# Usage: cli.sh CLGEMM_BENCH|none CLGEMM_TUNE CLGEMM_TYPES_BENCH (none: clgemm-bench was not built, no CLBlast). Every case checks the exit status and the message;
# none may crash, wrap a number around, or tune before finding that nothing can be saved.
set -u
bench=$1
tune=$2
types_bench=$3
dir=$(mktemp -d /tmp/clgemm-cli-XXXXXX)
trap 'rm -rf "$dir"' EXIT
export POCL_CACHE_DIR="$dir/pocl"
failed=0

# expect NAME STATUS PATTERN COMMAND...: runs COMMAND, wants exit STATUS and PATTERN on stderr.
expect() {
    name=$1 want=$2 pattern=$3
    shift 3
    "$@" >"$dir/out" 2>"$dir/err"
    got=$?
    if [ "$got" -ne "$want" ] || ! grep -q -- "$pattern" "$dir/err"; then
        echo "FAIL $name: exit $got (want $want), stderr:"
        sed 's/^/    /' "$dir/err" | head -n 8
        failed=1
    else
        echo "ok   $name: $(grep -m1 -- "$pattern" "$dir/err")"
    fi
}

fast="--no-clblast --precision s"
if [ "$bench" != none ]; then
    # Item 3: sizes whose byte counts wrap (used to segfault), or that no device can hold.
    expect bench-size-2^31 2 "sizes are integers from 1 to" "$bench" $fast --sizes 2147483648
    expect bench-size-max 2 "too large" "$bench" $fast --sizes 2147482623
    expect bench-shape-huge 2 "cannot be allocated" "$bench" $fast --shape 100000,100000,100000
    expect bench-size-negative 2 "bad value for --sizes" "$bench" $fast --sizes 8,-3
    # Item 9: numbers out of range are refused, not wrapped (4294967297 used to become 1 run).
    expect bench-runs-wrap 2 "from 1 to 100000" "$bench" $fast --sizes 8 --runs 4294967297
    expect bench-runs-zero 2 "from 1 to 100000" "$bench" $fast --sizes 8 --runs 0
    expect bench-clblast-param 2 "values are integers" "$bench" --sizes 8 --clblast-params KWG=99999999999999999999
    expect bench-batched-zero 2 "BATCH,N: positive integers" "$bench" $fast --batched 0,32
    expect bench-batched-wrap 2 "BATCH,N: positive integers" "$bench" $fast --batched 18446744073709551615,4096
    expect bench-precision-bad 2 "bad value for --precision" "$bench" --no-clblast --precision c,q --sizes 8
    # Complex problems run and pass the bench's own host check (a wrong C exits 1: MISMATCH).
    if "$bench" --no-clblast --precision c,z --sizes 33 >"$dir/out" 2>"$dir/err" &&
        grep -q "^c " "$dir/out" && grep -q "^z " "$dir/out"; then
        echo "ok   bench-complex: c and z rows, host check passed"
    else
        echo "FAIL bench-complex: $(cat "$dir/err" | head -n 3)"
        failed=1
    fi
    # A device that does not exist is named with the way to list them; --list names the forms.
    expect bench-device-none 1 "run 'clgemm-bench --list'" "$bench" $fast --sizes 8 --device 99:99
    expect bench-device-env 1 "CLGEMM_DEVICE=99:99" env CLGEMM_DEVICE=99:99 "$bench" $fast --sizes 8
    if "$bench" --list | grep -q "use --device P:D"; then
        echo "ok   bench-list: it lists the devices with the --device form"
    else
        echo "FAIL bench-list: no device list"
        failed=1
    fi
    # Results that cannot be written (a full disk) are an error, not an exit status of 0 over
    # an empty file: the CSV, the JSON and the table on stdout.
    # Build options too long to hold are left out whole (cut short, they could build another
    # kernel), said in the log; the call still runs.
    long_options=$(printf -- '-DUNUSED_OPTION=1 %.0s' $(seq 40))
    expect build-options-too-long 0 "CLGEMM_BUILD_OPTIONS ignored" env CLGEMM_LOG=1 \
        CLGEMM_BUILD_OPTIONS="$long_options" "$bench" $fast --sizes 8 --runs 1
    expect bench-csv-full-disk 1 "writing /dev/full failed" "$bench" $fast --sizes 8 --csv /dev/full
    expect bench-json-full-disk 1 "writing /dev/full failed" "$bench" $fast --sizes 8 \
        --json /dev/full
    expect bench-table-full-disk 1 "writing the table (stdout) failed" sh -c \
        "exec \"\$0\" $fast --sizes 8 >/dev/full" "$bench"
else
    echo "skip bench cases: clgemm-bench was not built (no CLBlast)"
fi
# clgemm-types-bench refuses what the device or the host cannot hold before allocating it (it
# used to malloc and fill host copies of any size: a silent exit, or the out-of-memory killer),
# and still runs the problems around it.
expect types-bench-huge 1 "z:65536,65536,65536 cannot be allocated" "$types_bench" --no-clblast \
    s:8,8,8 z:65536,65536,65536 s:9,9,9
if [ "$(grep -c "^s " "$dir/out")" -eq 2 ]; then
    echo "ok   types-bench-around-huge: the problems before and after it ran"
else
    echo "FAIL types-bench-around-huge:"
    sed 's/^/    /' "$dir/out" | head -n 8
    failed=1
fi
# --reference: a library that does not open, or a name it does not know, is refused with the
# reason; a CBLAS library (Debian's reference BLAS, which has cblas_sgemm/_dgemm and no sbgemm)
# times each mode, FP16 storage and INT8 through cblas_sgemm of FP32 copies.
expect types-bench-reference-lib-missing 2 "no CBLAS reference" "$types_bench" --no-clblast \
    --reference-lib "$dir/no-such-lib.so" s:8,8,8
expect types-bench-reference-unknown 2 "takes openblas" "$types_bench" --no-clblast \
    --reference mkl s:8,8,8
ref_blas=/usr/lib/x86_64-linux-gnu/blas/libblas.so.3
if [ -f "$ref_blas" ]; then
    "$types_bench" --no-clblast --runs 2 --reference-lib "$ref_blas" s:33,17,9 d:33,17,9 \
        hs:33,17,9 i8:33,17,9 >"$dir/out" 2>"$dir/err"
    got=$(grep -c "CBLAS .* (clgemm / CBLAS [0-9.]*; s*[sd]gemm" "$dir/out")
    if [ "$got" -eq 4 ] && grep -q "^hs .*sgemm of FP32 copies" "$dir/out"; then
        echo "ok   types-bench-reference: four modes timed beside the CBLAS library"
    else
        echo "FAIL types-bench-reference: $got CBLAS lines"
        sed 's/^/    /' "$dir/out" "$dir/err" | head -n 12
        failed=1
    fi
else
    echo "skip types-bench-reference: no $ref_blas"
fi
expect tune-output-empty 1 "--output needs a path" "$tune" --dry-run --output ""
expect tune-budget-inf 1 "--budget takes" "$tune" --dry-run --budget inf
expect tune-max-evals-wrap 1 "--max-evals takes" "$tune" --dry-run --max-evals 18446744073709551617
expect tune-shape-large 1 "--shape takes" "$tune" --dry-run --shape 2147482624
expect tune-batch-zero 1 "--batch takes" "$tune" --dry-run --batch 0
# Issue 20, item 5: --batch is bounded by what the device can hold (it was accepted, and tuning
# started on it); a large batch of small matrices that fits is still accepted.
expect tune-batch-huge 1 "64x64x64 in the batch cannot be allocated" "$tune" --dry-run \
    --batch 2147482623 --shape 64 --output "$dir/batch/db.json"
if "$tune" --dry-run --batch 200000 --shape 1 --output "$dir/batch/db.json" >"$dir/out" 2>&1 &&
    grep -q "batch 200000" "$dir/out"; then
    echo "ok   tune-batch-fits: --batch 200000 --shape 1 accepted"
else
    echo "FAIL tune-batch-fits:"
    sed 's/^/    /' "$dir/out" | head -n 8
    failed=1
fi

# Item 8: a disk that takes no more bytes (a file size limit of 0) is found before tuning.
# (Only the tool is limited: its output goes through a pipe, which the limit does not cover.)
expect tune-full-disk 1 "cannot use the tuning database" bash -c "set -o pipefail; trap '' XFSZ;
    (ulimit -f 0; exec \"$tune\" --shape 8 --max-evals 1 --output \"$dir/full/db.json\") 2>&1 |
    cat >&2"
grep -q "GFLOPS" "$dir/out" && { echo "FAIL tune-full-disk: it tuned first"; failed=1; }

# Item 8: a lock file the user cannot write (root's, in the user's folder) is named as the cause.
as_nobody="setpriv --reuid=nobody --regid=$(id -g nobody 2>/dev/null || echo 65534) --clear-groups"
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null && id nobody >/dev/null 2>&1 &&
    $as_nobody test -x "$tune"; then
    chmod 755 "$dir"
    mkdir -p "$dir/user" "$dir/pocl"
    chown nobody "$dir/user" "$dir/pocl"
    : >"$dir/user/db.json.lock"
    chmod 644 "$dir/user/db.json.lock"
    expect tune-root-lock 1 "lock file .* not a file you can write" $as_nobody \
        env HOME="$dir/user" "$tune" --shape 8 --max-evals 1 --output "$dir/user/db.json"
else
    echo "skip tune-root-lock: needs root, setpriv, the user nobody and a build it can run"
fi
# Issue 20, item 4: two Ctrl-Cs while the tuner waits to save (the database lock held here) must
# wait for the save. SIGINT used to land on an OpenCL driver thread, whose handler took the second
# press for "abort without saving" (exit 130, no database). The check before tuning takes the
# lock too, so it is taken once the tuner says the database is usable (stdout line-buffered).
sig_db="$dir/sig/db.json"
if ! command -v flock >/dev/null || ! command -v stdbuf >/dev/null; then
    echo "skip tune-sigint-during-save: needs flock and stdbuf"
elif ! { sleep 2 & sleeper=$!; sleep 0.5; w=$(cat /proc/$sleeper/wchan 2>/dev/null);
        kill $sleeper; [ -n "$w" ] && [ "$w" != 0 ]; }; then
    echo "skip tune-sigint-during-save: /proc/PID/wchan does not say where a process waits"
else
    mkdir -p "$dir/sig"
    # A budget the search lasts seconds of even with warm caches: it starts candidates until a
    # cold build (20 s assumed on a CPU until one is timed) would end past the budget.
    stdbuf -oL "$tune" --shape 16 --budget 30 --output "$sig_db" \
        >"$dir/sig.out" 2>"$dir/sig.err" &
    pid=$!
    # wait_until SECONDS COMMAND...: polls COMMAND every 0.2 s; false when time runs out.
    wait_until() {
        n=$(($1 * 5))
        shift
        while [ $n -gt 0 ]; do
            "$@" && return 0
            sleep 0.2
            n=$((n - 1))
        done
        return 1
    }
    # Searched (its statistics come just before the save) and waiting on a lock.
    in_save_lock() { grep -q "^search:" "$dir/sig.out" && grep -q lock "/proc/$pid/wchan" 2>/dev/null; }
    why=""
    if ! wait_until 120 grep -q "^tuning database:" "$dir/sig.out"; then
        why="the tuner never got past its database check"
    else
        exec 9>>"$sig_db.lock"
        flock -x 9
        if ! wait_until 240 in_save_lock; then
            why="the tuner never waited for the lock to save"
        else
            kill -INT $pid
            sleep 0.5
            kill -INT $pid
            sleep 1
            kill -0 $pid 2>/dev/null || why="the tuner exited before the lock was released"
        fi
        exec 9>&- # releases the lock
    fi
    wait $pid
    got=$?
    if [ -n "$why" ] || [ $got -ne 130 ] || ! grep -q "completed shapes were saved" "$dir/sig.err" ||
        ! grep -q '"family"' "$sig_db" 2>/dev/null; then
        echo "FAIL tune-sigint-during-save: ${why:-exit $got (want 130) or no database}; stderr:"
        sed 's/^/    /' "$dir/sig.err" | head -n 8
        failed=1
    else
        echo "ok   tune-sigint-during-save: $(grep -m1 "finishing the save" "$dir/sig.err")"
    fi
fi
exit $failed
