#!/bin/sh
# plot.sh: plots a clgemm-bench CSV (--csv FILE) with gnuplot: GFLOPS against N for the square
# NN problems, one line for clgemm and one per CLBlast variant (defaults, tuned), one PNG per
# precision: PREFIX-fp32.png and PREFIX-fp64.png. Lines join powers of two; other sizes (1000,
# 2047, ...) are points of the same colour.
#
# usage: bench/plot.sh [-o PREFIX] results.csv [more.csv ...]
#   PREFIX defaults to the first CSV's name without .csv. Further CSVs (say, runs with another
#   --family) add their clgemm line, labelled with the file's name; CLBlast comes from the first.
set -eu

prefix=""
if [ "${1:-}" = "-o" ]; then
    prefix=$2
    shift 2
fi
if [ $# -lt 1 ]; then
    sed -n '2,8p' "$0" | sed 's/^# \{0,1\}//' >&2
    exit 2
fi
[ -n "$prefix" ] || prefix=${1%.csv}
command -v gnuplot >/dev/null || { echo "plot.sh: gnuplot not found" >&2; exit 1; }
if gnuplot -e "set terminal" 2>&1 | grep -q pngcairo; then
    terminal="pngcairo size 1000,650 font 'Sans,10'"
else
    terminal="png size 1000,650"
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# extract CSV PRECISION OUT: "N clgemm clblast clblast_tuned" for square NN rows of the first
# layout seen, sorted by N, into OUT (powers of two) and OUT.x (others); NaN where a value is
# missing. Prints the device, the clgemm family, the layout and whether a tuned column exists.
extract() {
    awk -F, -v prec="$2" -v out="$3" '
        NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
        function v(name) { x = $(col[name]); return x == "" ? "NaN" : x }
        $(col["precision"]) == prec && $(col["trans"]) == "NN" &&
        $(col["M"]) == $(col["N"]) && $(col["N"]) == $(col["K"]) {
            if (layout == "") layout = $(col["layout"])
            if ($(col["layout"]) != layout) next
            n = $(col["M"]) + 0; while (n > 1 && n % 2 == 0) n /= 2
            file = n == 1 ? out : out ".x"
            print $(col["M"]), v("clgemm_gflops"), v("clblast_gflops"),
                  v("clblast_tuned_gflops") | "sort -n > \"" file "\""
            if (v("clblast_tuned_gflops") != "NaN") tuned = 1
            split($(col["config"]), words, " ")
            family = words[1]; device = $(col["device"])
        }
        END { close("sort -n > \"" out "\""); close("sort -n > \"" out ".x\"")
              printf "%s|%s|%s|%s\n", device, family, layout, tuned ? "tuned" : "" }' "$1"
}

# series FILE COLUMN COLOUR TITLE: a line through FILE's points, FILE.x's as bare points.
series() {
    if [ -s "$1" ]; then
        printf "'%s' using 1:%s with linespoints lw 2 pt 7 lc %s title '%s'" "$1" "$2" "$3" "$4"
        if [ -s "$1.x" ]; then
            printf ", '%s.x' using 1:%s with points pt 7 lc %s notitle" "$1" "$2" "$3"
        fi
    else
        printf "'%s.x' using 1:%s with points pt 7 lc %s title '%s'" "$1" "$2" "$3" "$4"
    fi
}

made=""
for prec in s d; do
    [ "$prec" = s ] && name=fp32 || name=fp64
    rm -f "$tmp"/*.dat "$tmp"/*.dat.x
    info=$(extract "$1" "$prec" "$tmp/0.dat")
    [ -s "$tmp/0.dat" ] || [ -s "$tmp/0.dat.x" ] || continue
    device=$(echo "$info" | cut -d'|' -f1)
    layout=$(echo "$info" | cut -d'|' -f3)
    plots="$(series "$tmp/0.dat" 2 1 "clgemm ($(echo "$info" | cut -d'|' -f2))")"
    plots="$plots, $(series "$tmp/0.dat" 3 2 'CLBlast (defaults)')"
    if [ -n "$(echo "$info" | cut -d'|' -f4)" ]; then
        plots="$plots, $(series "$tmp/0.dat" 4 3 'CLBlast (tuned Xgemm)')"
    fi
    i=0
    for extra in "$@"; do
        i=$((i + 1))
        [ "$i" -gt 1 ] || continue
        einfo=$(extract "$extra" "$prec" "$tmp/$i.dat")
        [ -s "$tmp/$i.dat" ] || [ -s "$tmp/$i.dat.x" ] || continue
        label="clgemm ($(echo "$einfo" | cut -d'|' -f2), $(basename "$extra" .csv))"
        plots="$plots, $(series "$tmp/$i.dat" 2 $((i + 2)) "$label")"
    done
    gnuplot <<EOF
set terminal $terminal
set output '$prefix-$name.png'
set title "GEMM $name, square N x N x N, $layout-major NN\\n$device"
set xlabel 'N'
set ylabel 'GFLOPS (whole call, median)'
set logscale x 2
set grid
set key top left
set datafile missing 'NaN'
plot $plots
EOF
    made="$made $prefix-$name.png"
done
[ -n "$made" ] || { echo "plot.sh: no square NN rows in $1" >&2; exit 1; }
echo "wrote$made"
