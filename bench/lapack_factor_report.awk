# lapack_factor_report.awk: the tables of bench/lapack_factor.sh from its run files, given in
# order of size: KIND.N.ROUND (clgemm-lapack-factor-bench's lines: routine n seconds gflops
# checksum hash) and, for the drop-in runs, KIND.N.ROUND.log (their stderr). ROUND p is a drop-in
# kind's profile run: its log has the bench's markers around the timed calls and the drop-in's
# CLGEMM_BLAS_LOG=2 lines, whose shares are of that run's own seconds; its times are not in the
# first table (the log lines cost time). KIND is host, own_nb, dropin, block or forced.
# Variable: reps (timed calls a run).
function kind_of(f) { return substr(f, 1, index(f, ".") - 1) }
function median(list,   v, n, i, j, x) {
    n = split(list, v, " ")
    for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (v[j] < v[i]) { x = v[i]; v[i] = v[j]; v[j] = x }
    return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
}
FNR == 1 { key = "" }
# A profile run's seconds: what its log's shares are of.
FILENAME ~ /\.p$/ && FNR > 1 { prof[kind_of(FILENAME), $1 " " $2] += $3; next }
FILENAME !~ /\.log$/ && FNR > 1 {
    k = kind_of(FILENAME); run = $1 " " $2
    secs[k, run] = secs[k, run] " " $3; total[k, run] += $3; runs[k, run]++
    split(FILENAME, part, "."); round_s[k, run, part[3]] = $3
    if (!((run, part[3]) in round_seen)) { round_seen[run, part[3]] = 1; rounds[run] = rounds[run] " " part[3] }
    sum[k, run] = $5; bits[k, run] = $6
    if (!(run in seen)) { seen[run] = 1; order[++count] = run }
}
# The timed calls of each routine lie between its two markers.
FILENAME ~ /\.p\.log$/ && /clgemm-lapack-factor-bench: timing/ { k = kind_of(FILENAME); key = $3 " " $4; next }
FILENAME ~ /\.p\.log$/ && /clgemm-lapack-factor-bench: timed/ { key = ""; next }
FILENAME ~ /\.p\.log$/ && / in [0-9.]+ s/ && key != "" {
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
# The speed-ups of one kind round by round (the host run's seconds over this kind's in the same
# round: adjacent runs, which this machine's swings spare most): "median (min-max)".
function round_ratios(k, key,   r, n, i, list, lo, hi, x) {
    n = split(rounds[key], r, " "); list = ""; lo = hi = 0
    for (i = 1; i <= n; i++) {
        if (!(("host", key, r[i]) in round_s) || !((k, key, r[i]) in round_s) || !(round_s[k, key, r[i]] > 0)) continue
        x = round_s["host", key, r[i]] / round_s[k, key, r[i]]
        list = list " " x
        if (lo == 0 || x < lo) lo = x
        if (x > hi) hi = x
    }
    return list == "" ? "-" : sprintf("%.2f (%.2f-%.2f)", median(list), lo, hi)
}
function time_of(k, key) { return ((k, key) in secs) ? median(secs[k, key]) : 0 }
# bits: bit-identical factors; yes: the same checksum (sum of |a|) to 11 digits; close: within
# 1e-9 of it (another block size rounds differently); NO otherwise.
function same(a, b, key,   x, y) {
    if (!((a, key) in bits) || !((b, key) in bits)) return "-"
    if (bits[a, key] == bits[b, key]) return "bits"
    x = sum[a, key] + 0; y = sum[b, key] + 0
    return x == y ? "yes" : (x - y < 1e-9 * x && y - x < 1e-9 * x) ? "close" : "NO"
}
# The columns of one run: seconds and GFLOPS (and, but for the host run, the speed-up over the
# host and whether the factors agree), "-" for a run that did not happen.
function run_cols(k, key, h,   s, out) {
    s = time_of(k, key)
    out = s > 0 ? sprintf(" %9.3f %8.1f", s, gflops(key, s)) : sprintf(" %9s %8s", "-", "-")
    if (k == "host") return out
    return out (s > 0 && h > 0 ? sprintf(" %7.2f %-5s", h / s, same("host", k, key)) : sprintf(" %7s %-5s", "-", "-"))
}
END {
    nk = split("own_nb dropin block forced", kinds, " ")
    used = ""
    for (i = 1; i <= nk; i++)
        for (c = 1; c <= count; c++) if ((kinds[i], order[c]) in secs) { used = used " " kinds[i]; break }
    nk = split(used, kinds, " ")
    line = sprintf("%-7s %6s %9s %8s", "routine", "n", "host_s", "GFLOPS")
    for (i = 1; i <= nk; i++) line = line sprintf(" %9s %8s %7s %-5s", kinds[i] "_s", "GFLOPS", "speedup", "same")
    print line
    for (c = 1; c <= count; c++) {
        key = order[c]; split(key, kn, " "); h = time_of("host", key)
        line = sprintf("%-7s %6s", kn[1], kn[2]) run_cols("host", key, h)
        for (i = 1; i <= nk; i++) line = line run_cols(kinds[i], key, h)
        print line
    }
    print ""
    print "Speed-up round by round (the host run\x27s seconds over the drop-in run\x27s of the same round):"
    print "median (min-max) over the rounds"
    line = sprintf("%-7s %6s", "routine", "n")
    for (i = 1; i <= nk; i++) line = line sprintf(" %-18s", kinds[i])
    print line
    for (c = 1; c <= count; c++) {
        key = order[c]; split(key, kn, " ")
        line = sprintf("%-7s %6s", kn[1], kn[2])
        for (i = 1; i <= nk; i++) line = line sprintf(" %-18s", round_ratios(kinds[i], key))
        print line
    }
    print ""
    print "Where the drop-in runs spent their time (per factorization of each kind\x27s profile run,"
    print "CLGEMM_BLAS_LOG=2, not timed above; copies: the copy commands\x27 device time as a share"
    print "of it and the bytes moved; then each BLAS routine\x27s share, calls on the device / calls):"
    for (c = 1; c <= count; c++) {
        key = order[c]
        for (i = 1; i <= nk; i++) {
            k = kinds[i]
            if (!((k, key) in prof) || !(prof[k, key] > 0)) continue
            d = prof[k, key]; per = reps
            line = sprintf("%-7s %6s %-6s copies %4.1f%% (%.2f GB)", substr(key, 1, 6), substr(key, 8), k,
                           100 * copy_s[k, key] / per / d, copy_b[k, key] / per / 1e9)
            for (name in names) if (calls[k, key, name])
                line = line sprintf(", %s %.0f%% (%d/%d)", name, 100 * spent[k, key, name] / per / d,
                                    dev[k, key, name] / per, calls[k, key, name] / per)
            print line
        }
    }
}
