#!/bin/sh
# lapack_factor.sh: LAPACK's dgetrf, dpotrf, dgeqrf (clgemm-lapack-factor-bench) without the
# drop-in, with libclgemm_blas preloaded (its measured rule: each call where it has been faster),
# and with it preloaded and every call of CLGEMM_BLAS_MIN_FLOPS or more forced onto the device
# (CLGEMM_BLAS_RULE=flops: what the device alone does, and how much of it is copies). Per routine
# and size: median seconds and GFLOPS of each run, the drop-in's speed-up, whether the factors
# agree (bits: bit-identical; yes: the same checksum to 11 digits), and from the drop-in runs'
# CLGEMM_BLAS_LOG=2 lines: the share of the factorization's time that the copies to and from the
# device took (the copy commands' device time; they overlap the multiplies, so the share says how
# much of the time the bus was busy, not time added) with the bytes moved, and the share of
# each BLAS routine the log times (?gemm, ?syrk, the blocked ?trsm/?trmm...; the rest is LAPACK's
# own code and Level 1-2 BLAS) with its calls on the device / calls.
#
# Usage: bench/lapack_factor.sh BUILD_DIR N...
# Environment: ROUNDS (2; rounds alternate the runs), REPS (1; timed calls a run), WARM (1: each
# drop-in run factors once untimed first: kernels, buffers, the rule's measurements; the host
# runs are not warmed), FORCED (1: the forced run too), LAPACK and BLAS (the liblapack.so.3 and
# libblas.so.3 to use, put first on LD_LIBRARY_PATH; LAPACK defaults to Debian's reference
# LAPACK where it is installed: OpenBLAS's own liblapack.so.3 factors without calling the BLAS
# entry points, so the drop-in would see nothing), BUDGET_S (0: none; else a size, or the forced
# run at a size, is started only if the time so far plus its prediction from the size before,
# scaled by n^3, fits: the run then ends within about that many seconds).
set -eu
build=$(readlink -f "$1")
shift
rounds=${ROUNDS:-2} reps=${REPS:-1} warm=${WARM:-1} forced=${FORCED:-1} budget=${BUDGET_S:-0}
bench="$build/bench/clgemm-lapack-factor-bench"
lib="$build/blas/libclgemm_blas.so"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
reference_lapack=/usr/lib/x86_64-linux-gnu/lapack/liblapack.so.3
lapack=${LAPACK:-}
[ -z "$lapack" ] && [ -e "$reference_lapack" ] && lapack=$reference_lapack
mkdir "$work/links"
[ -n "$lapack" ] && ln -s "$(readlink -f "$lapack")" "$work/links/liblapack.so.3"
[ -n "${BLAS:-}" ] && ln -s "$(readlink -f "$BLAS")" "$work/links/libblas.so.3"
LD_LIBRARY_PATH="$work/links${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export LD_LIBRARY_PATH

lscpu | sed -n 's/^Model name: *//p' | head -1 | sed 's/^/CPU: /'
echo "cores: $(nproc); command: ROUNDS=$rounds REPS=$reps WARM=$warm FORCED=$forced BUDGET_S=$budget bench/lapack_factor.sh BUILD $*"
{ ldd "$bench"; ldd "$lib"; } | awk '$1 ~ /^(liblapack|libblas|libopenblas|libgfortran|libclgemm|libOpenCL)/ && !seen[$1]++ { print $1, $3 }' |
    while read -r name path; do echo "$name -> $(readlink -f "$path")"; done

now_ms() { echo $(($(date +%s%N) / 1000000)); }
start=$(now_ms)
# run KIND N ROUND: one process of the bench at one size; KIND host, dropin or forced.
run() {
    case $1 in
    host) "$bench" -r "$reps" -w 0 "$2" > "$work/$1.$2.$3" 2> /dev/null ;;
    dropin) CLGEMM_BLAS_LOG=2 LD_PRELOAD="$lib" "$bench" -r "$reps" -w "$warm" "$2" \
        > "$work/$1.$2.$3" 2> "$work/$1.$2.$3.log" ;;
    forced) CLGEMM_BLAS_RULE=flops CLGEMM_BLAS_LOG=2 LD_PRELOAD="$lib" "$bench" -r "$reps" \
        -w "$warm" "$2" > "$work/$1.$2.$3" 2> "$work/$1.$2.$3.log" ;;
    esac
}
# fits MS_PREDICTED: whether the budget has room for it.
fits() {
    [ "$budget" -eq 0 ] || [ $(($(now_ms) - start + $1)) -le $((budget * 1000)) ]
}
# report: the tables of every run so far (also when stopped: TERM or INT).
report() {
    (
    cd "$work" || exit 1
    sed -n 's/^clgemm_blas: device: /device: /p' "$work"/dropin.*.log 2> /dev/null | head -1
    echo "elapsed: $((($(now_ms) - start) / 1000)) s"
    echo
    # Runs in order of size; each file: KIND.N.ROUND (the bench's lines) and KIND.N.ROUND.log.
    files=$(ls | grep -E '^(host|dropin|forced)\.[0-9]+\.[0-9]+(\.log)?$' | sort -t. -k2,2n -k3,3n -k1,1) || true
    [ -n "$files" ] || { echo "no runs"; exit 1; }
    # shellcheck disable=SC2086
    awk -v reps="$reps" -v rounds="$rounds" '
    function kind_of(f) { return substr(f, 1, index(f, ".") - 1) }
    function median(list,   v, n, i, j, x) {
        n = split(list, v, " ")
        for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (v[j] < v[i]) { x = v[i]; v[i] = v[j]; v[j] = x }
        return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
    }
    # The bench lines: routine n seconds gflops checksum hash.
    FNR == 1 { key = "" }
    FILENAME !~ /\.log$/ && FNR > 1 {
        k = kind_of(FILENAME); run = $1 " " $2
        secs[k, run] = secs[k, run] " " $3; sum[k, run] = $5; bits[k, run] = $6
        if (!(run in seen)) { seen[run] = 1; order[++count] = run }
    }
    # The log: the timed calls of each routine lie between its two markers.
    FILENAME ~ /\.log$/ && /clgemm-lapack-factor-bench: timing/ { k = kind_of(FILENAME); key = $3 " " $4; next }
    FILENAME ~ /\.log$/ && /clgemm-lapack-factor-bench: timed/ { key = ""; next }
    FILENAME ~ /\.log$/ && / in [0-9.]+ s/ && key != "" {
        t = c = b = 0
        for (i = 1; i <= NF; i++) {
            if ($i == "in") t = $(i + 1)
            if ($i == "copies") { c = $(i + 1); b = $(i + 3) }
        }
        name = $2
        spent[k, key, name] += t; names[name] = 1; calls[k, key, name]++
        copy_s[k, key] += c; copy_b[k, key] += b
        if ($0 ~ /: device$|[1-9][0-9]* updates on the device/) dev[k, key, name]++
    }
    function gflops(key, s,   n, f) {
        n = substr(key, index(key, " ") + 1); f = key ~ /^dgetrf/ ? 2 / 3 : key ~ /^dpotrf/ ? 1 / 3 : 4 / 3
        return s > 0 ? f * n * n * n / s * 1e-9 : 0
    }
    function time_of(k, key) { return ((k, key) in secs) ? median(secs[k, key]) : 0 }
    # The columns of one run: seconds and GFLOPS (and, but for the host run, the speed-up over
    # the host and whether the factors agree with its), "-" for a run that did not happen.
    function run_cols(s, h, key, k,   out) {
        out = s > 0 ? sprintf("%9.3f %8.1f", s, gflops(key, s)) : sprintf("%9s %8s", "-", "-")
        if (k == "host") return out
        return out (s > 0 && h > 0 ? sprintf(" %7.2f %-5s", h / s, same("host", k, key)) : sprintf(" %7s %-5s", "-", "-"))
    }
    function same(a, b, key) {
        if (!((a, key) in bits) || !((b, key) in bits)) return "-"
        return bits[a, key] == bits[b, key] ? "bits" : sum[a, key] == sum[b, key] ? "yes" : "NO"
    }
    END {
        printf "%-7s %6s %9s %8s %9s %8s %7s %-5s %9s %8s %7s %-5s\n", "routine", "n", "host_s", "GFLOPS",
               "dropin_s", "GFLOPS", "speedup", "same", "forced_s", "GFLOPS", "speedup", "same"
        for (c = 1; c <= count; c++) {
            key = order[c]; split(key, kn, " ")
            h = time_of("host", key); d = time_of("dropin", key); f = time_of("forced", key)
            printf "%-7s %6s %s %s %s\n", kn[1], kn[2], run_cols(h, h, key, "host"),
                   run_cols(d, h, key, "dropin"), run_cols(f, h, key, "forced")
        }
        print ""
        print "Where the drop-in runs spent their time (per factorization; copies: the copy commands\x27 device"
        print "time as a share of the factorization, and the bytes moved; then each BLAS routine\x27s share,"
        print "calls on the device / calls):"
        for (c = 1; c <= count; c++) {
            key = order[c]
            for (ki = 1; ki <= 2; ki++) {
                k = ki == 1 ? "dropin" : "forced"
                d = time_of(k, key); per = rounds * reps
                if (d == 0) continue
                line = sprintf("%-7s %6s %-6s copies %4.1f%% (%.2f GB)", substr(key, 1, 6), substr(key, 8), k,
                               d > 0 ? 100 * copy_s[k, key] / per / d : 0, copy_b[k, key] / per / 1e9)
                for (name in names) if (calls[k, key, name])
                    line = line sprintf(", %s %.0f%% (%d/%d)", name, 100 * spent[k, key, name] / per / d,
                                        dev[k, key, name] / per, calls[k, key, name] / per)
                print line
            }
        }
    }' $files
    )
}
trap 'echo "stopped after $((($(now_ms) - start) / 1000)) s"; report; exit 143' TERM INT

# scale MS: a time of the size before, predicted for this size n (times (n / prev_n)^3).
scale() { awk -v t="$1" -v n="$n" -v p="$prev_n" 'BEGIN { printf "%d", p ? t * (n / p) ^ 3 : 0 }'; }
prev_n=0 prev_main=0 prev_forced=0
for n in "$@"; do
    if ! fits "$(scale $prev_main)"; then
        echo "skipped: n = $n and above (predicted $(($(scale $prev_main) / 1000)) s more than BUDGET_S allows)"
        break
    fi
    with_forced=$forced
    if [ "$forced" = 1 ] && ! fits "$(($(scale $prev_main) + $(scale $prev_forced)))"; then
        echo "skipped: the forced run at n = $n (predicted $(($(scale $prev_forced) / 1000)) s more)"
        with_forced=0 forced=0
    fi
    main_ms=0 forced_ms=0
    r=1
    while [ "$r" -le "$rounds" ]; do
        t0=$(now_ms)
        run host "$n" "$r"
        run dropin "$n" "$r"
        t1=$(now_ms)
        main_ms=$((main_ms + t1 - t0))
        if [ "$with_forced" = 1 ]; then
            run forced "$n" "$r"
            forced_ms=$((forced_ms + $(now_ms) - t1))
        fi
        r=$((r + 1))
    done
    prev_n=$n prev_main=$main_ms prev_forced=$forced_ms
done
report
