#!/usr/bin/env python3
"""cpu_vs_openblas_summary.py: the ranges of a bench/cpu_vs_openblas.sh log. Per type and
problem: clgemm / OpenBLAS over the rounds as the library plans it ("new") and with the blocked
schedule off ("off"), new / off (clgemm's own gain, from the times of adjacent runs), and the
round whose new ratio is the median, as clgemm and OpenBLAS GFLOPS (the figures a table shows).
Types the script runs only as planned (complex, BF16) show "–" for off.

Usage: bench/cpu_vs_openblas_summary.py LOG
"""
import re
import sys

TYPES = {"s": "FP32", "d": "FP64", "c": "complex FP32", "z": "complex FP64", "b": "BF16"}
ROW = re.compile(r"^round (\d+) (new|off)\s+([sdczb])\s+\S+\s+\S+\s+(\d+)\s+(\d+)\s+(\d+) \|\s+"
                 r"([\d.]+)\s+[\d.]+ \|\s+([\d.]+)\s+[\d.]+ \|\s+([\d.]+)")


def span(values):
    lo, hi = min(values), max(values)
    return f"{lo:.2f}" if f"{lo:.2f}" == f"{hi:.2f}" else f"{lo:.2f}–{hi:.2f}"


def main(path):
    runs = {}  # (type, shape) -> round -> mode -> (clgemm, openblas, ratio)
    with open(path) as f:
        for line in f:
            m = ROW.match(line)
            if not m:
                continue
            r, mode, t, mm, nn, kk, g, ref, ratio = m.groups()
            key = (TYPES[t], f"{mm}×{nn}×{kk}")
            runs.setdefault(key, {}).setdefault(int(r), {})[mode] = (
                float(g), float(ref), float(ratio))
    print("| type | M×N×K | new / OpenBLAS | off / OpenBLAS | new / off | median round: "
          "clgemm, OpenBLAS GFLOPS |")
    print("|---|---|---|---|---|---|")
    for (t, shape), rounds in runs.items():
        planned = [v for v in rounds.values() if "new" in v]
        both = [v for v in planned if "off" in v]
        if not planned:
            continue
        new = [v["new"][2] for v in planned]
        off = span([v["off"][2] for v in both]) if both else "–"
        gain = span([v["new"][0] / v["off"][0] for v in both]) if both else "–"
        mid = sorted(planned, key=lambda v: v["new"][2])[len(planned) // 2]["new"]
        print(f"| {t} | {shape} | {span(new)} | {off} | {gain} | "
              f"{mid[0]:.1f}, {mid[1]:.1f} |")
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1]))
