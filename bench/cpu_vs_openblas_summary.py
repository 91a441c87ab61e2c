#!/usr/bin/env python3
"""cpu_vs_openblas_summary.py: the ranges of a bench/cpu_vs_openblas.sh log. Per type and
problem: clgemm / OpenBLAS over the rounds as the library plans it ("new") and with the blocked
schedule off ("off"), new / off (clgemm's own gain, from the times of adjacent runs), and the
round whose new ratio is the median, as clgemm and OpenBLAS GFLOPS (the figures a table shows).
Types the script runs only as planned (complex, BF16) show "–" for off. A log with a "base" mode
(BASELINE: an earlier build) shows it the same way as off, beside it.

Usage: bench/cpu_vs_openblas_summary.py LOG
"""
import re
import sys

TYPES = {"s": "FP32", "d": "FP64", "c": "complex FP32", "z": "complex FP64", "b": "BF16"}
ROW = re.compile(r"^round (\d+) (new|off|base)\s+([sdczb])\s+\S+\s+\S+\s+(\d+)\s+(\d+)\s+(\d+) \|\s+"
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
    # the comparison modes the log holds: off (blocked schedule off), base (an earlier build)
    others = [m for m in ("off", "base")
              if any(m in v for rounds in runs.values() for v in rounds.values())] or ["off"]
    print("| type | M×N×K | new / OpenBLAS | "
          + " | ".join(f"{m} / OpenBLAS | new / {m}" for m in others)
          + " | median round: clgemm, OpenBLAS GFLOPS |")
    print("|---|---|---|" + "---|---|" * len(others) + "---|")
    for (t, shape), rounds in runs.items():
        planned = [v for v in rounds.values() if "new" in v]
        if not planned:
            continue
        cells = []
        for m in others:
            both = [v for v in planned if m in v]
            cells.append(span([v[m][2] for v in both]) if both else "–")
            cells.append(span([v["new"][0] / v[m][0] for v in both]) if both else "–")
        new = [v["new"][2] for v in planned]
        mid = sorted(planned, key=lambda v: v["new"][2])[len(planned) // 2]["new"]
        print(f"| {t} | {shape} | {span(new)} | " + " | ".join(cells)
              + f" | {mid[0]:.1f}, {mid[1]:.1f} |")
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1]))
