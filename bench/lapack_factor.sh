#!/bin/sh
# lapack_factor.sh: the system LAPACK's dgetrf, dpotrf, dgeqrf (clgemm-lapack-factor-bench) with
# and without libclgemm_blas preloaded, rounds alternated; per routine and size the median
# seconds of each, their ratio, whether the factors' checksums agree, and, from the preloaded
# runs' CLGEMM_BLAS_LOG=2 lines, the share of the factorization's time in each BLAS routine the
# log times (?gemm, the blocked ?trsm/?trmm/...; the rest is LAPACK's own code, ?syrk and
# Level 1-2 BLAS) with the count of calls that ran on the device.
# Usage: bench/lapack_factor.sh BUILD_DIR N...   (ROUNDS=2 REPS=1 by default)
set -eu
build=$(readlink -f "$1")
shift
rounds=${ROUNDS:-2}
reps=${REPS:-1}
bench="$build/bench/clgemm-lapack-factor-bench"
lib="$build/blas/libclgemm_blas.so"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
lscpu | sed -n 's/^Model name: *//p' | head -1 | sed 's/^/CPU: /'
echo "command: ROUNDS=$rounds REPS=$reps bench/lapack_factor.sh BUILD $*"
r=1
while [ "$r" -le "$rounds" ]; do
    "$bench" -r "$reps" "$@" > "$work/host.$r" 2> /dev/null
    CLGEMM_BLAS_LOG=2 LD_PRELOAD="$lib" "$bench" -r "$reps" "$@" > "$work/dropin.$r" 2> "$work/log.$r"
    r=$((r + 1))
done
cat "$work"/log.* > "$work/log"
awk -v reps="$reps" '
    # Medians over the rounds of each configuration.
    FILENAME ~ /host\./ && FNR > 1 { host[$1 " " $2] = host[$1 " " $2] " " $3; hs[$1 " " $2] = $5 }
    FILENAME ~ /dropin\./ && FNR > 1 { drop[$1 " " $2] = drop[$1 " " $2] " " $3; ds[$1 " " $2] = $5
                                       order[++count] = $1 " " $2 }
    # The log: the timed calls of each routine lie between its two markers.
    FILENAME ~ /log$/ && /clgemm-lapack-factor-bench: timing/ { key = $3 " " $4; next }
    FILENAME ~ /log$/ && /clgemm-lapack-factor-bench: timed/ { key = ""; next }
    FILENAME ~ /log$/ && / in [0-9.]+ s: / && key != "" {
        for (i = 1; i <= NF; i++) if ($i == "in") t = $(i + 1)
        name = $2
        spent[key, name] += t; names[name] = 1
        if ($0 ~ /: device|[1-9][0-9]* updates on the device/) dev[key, name]++
        calls[key, name]++
    }
    function median(list,   v, n, i, j, x) {
        n = split(list, v, " ")
        for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (v[j] < v[i]) { x = v[i]; v[i] = v[j]; v[j] = x }
        return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
    }
    END {
        printf "%-7s %6s %10s %10s %7s %-9s %s\n", "routine", "n", "host_s", "dropin_s", "ratio", "same", "share of the drop-in run (calls on the device / calls)"
        for (c = 1; c <= count; c++) {
            k = order[c]; if (seen[k]++) continue
            h = median(host[k]); d = median(drop[k])
            line = ""
            for (name in names) if (calls[k, name]) {
                # the log covers every round: per factorization, divide by rounds * reps
                line = line sprintf(" %s %.0f%% (%d/%d)", name, 100 * spent[k, name] / (d * reps * '"$rounds"'),
                                    dev[k, name] / '"$rounds"' / reps, calls[k, name] / '"$rounds"' / reps)
            }
            printf "%-7s %6s %10.3f %10.3f %7.2f %-9s%s\n", substr(k, 1, index(k, " ") - 1), substr(k, index(k, " ") + 1), h, d, h / d, hs[k] == ds[k] ? "yes" : "NO", line
        }
    }' "$work"/host.* "$work"/dropin.* "$work/log"
