#!/usr/bin/env python3
"""perf-table.py: writes the performance tables of README.md and docs/PERFORMANCE.md from
bench/results/figures.csv, the one source of the published figures; --check fails (exit 1,
with a diff) when a document and the results file disagree, or when the file is malformed.

The results file has one row per device, table, type, shape and reference (a shape may show
twice in a table when two runs compared it with different references):
  device,table,type,shape,clgemm,reference,reference_value,clblast,unit,date,commit,command,log,readme
  shape: MxNxK, or BATCHxN^3 for a strided batch of N x N x N products
  reference / reference_value: what clgemm is compared with in the same run (cuBLAS FP16,
    torch.bmm, CLBlast, ...); both empty when the run had none
  clblast: CLBlast with its built-in defaults in the same run, when the reference is another
  unit: TFLOPS or GFLOPS; date: YYYY-MM-DD; commit: the library's commit that ran
  command: the command that regenerates the row; log: the raw output, under bench/results
  readme: 1 when README.md's table shows the row
A document holds a generated table between the lines
  <!-- perf-table DEVICE TABLE -->  (docs/PERFORMANCE.md)  or  <!-- perf-table readme -->
and <!-- /perf-table -->. Adding a row (say a new kernel family) is one line in the results file
and a rerun of this script; a new table needs its marker lines in docs/PERFORMANCE.md too.
Under each table go its runs, one line each (a list when there are several): device, date,
commit, the command that regenerates them and the raw log.

Usage: scripts/perf-table.py [--check] [--root DIR]     (--self-test: checks this checker)
"""
import csv
import difflib
import os
import re
import shutil
import subprocess
import sys
import tempfile

FIELDS = ["device", "table", "type", "shape", "clgemm", "reference", "reference_value",
          "clblast", "unit", "date", "commit", "command", "log", "readme"]
RESULTS = "bench/results/figures.csv"
DOCS = ["README.md", "docs/PERFORMANCE.md"]
BEGIN = re.compile(r"^<!-- perf-table (.+?) -->$")
END = "<!-- /perf-table -->"
SUPERSCRIPT = {"2": "²", "3": "³"}


class Malformed(Exception):
    pass


def number(row, field, line, required):
    text = row[field]
    if not text:
        if required:
            raise Malformed(f"{RESULTS}:{line}: {field} is empty")
        return None
    try:
        value = float(text)
    except ValueError:
        raise Malformed(f"{RESULTS}:{line}: {field} '{text}' is not a number") from None
    if not value > 0 or value == float("inf"):
        raise Malformed(f"{RESULTS}:{line}: {field} '{text}' is not a positive figure")
    return value


def load(root):
    """The rows of the results file, checked field by field."""
    rows, keys = [], set()
    with open(os.path.join(root, RESULTS), newline="", encoding="utf-8") as f:
        reader = csv.reader(f)
        header = next(reader, None)
        if header != FIELDS:
            raise Malformed(f"{RESULTS}:1: the header must be {','.join(FIELDS)}")
        for line, values in enumerate(reader, start=2):
            if len(values) != len(FIELDS):
                raise Malformed(f"{RESULTS}:{line}: {len(values)} fields, {len(FIELDS)} wanted")
            row = dict(zip(FIELDS, (v.strip() for v in values)))
            for field in ("device", "table", "type", "shape", "unit", "date", "commit",
                          "command", "log"):
                if not row[field]:
                    raise Malformed(f"{RESULTS}:{line}: {field} is empty")
            if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]*", row["table"]):
                raise Malformed(f"{RESULTS}:{line}: table '{row['table']}' is not a plain name")
            if not re.fullmatch(r"\d+x\d+x\d+|\d+x\d+\^3", row["shape"]):
                raise Malformed(f"{RESULTS}:{line}: shape '{row['shape']}' is not MxNxK or BxN^3")
            number(row, "clgemm", line, True)
            has_ref = number(row, "reference_value", line, False) is not None
            if has_ref != bool(row["reference"]):
                raise Malformed(f"{RESULTS}:{line}: reference and reference_value go together")
            number(row, "clblast", line, False)
            if row["unit"] not in ("TFLOPS", "GFLOPS"):
                raise Malformed(f"{RESULTS}:{line}: unit '{row['unit']}' is not TFLOPS or GFLOPS")
            if not re.fullmatch(r"20\d\d-[01]\d-[0-3]\d", row["date"]):
                raise Malformed(f"{RESULTS}:{line}: date '{row['date']}' is not YYYY-MM-DD")
            if not re.fullmatch(r"[0-9a-f]{7,40}", row["commit"]):
                raise Malformed(f"{RESULTS}:{line}: commit '{row['commit']}' is not a commit")
            if not row["log"].startswith("bench/results/") or not os.path.isfile(
                    os.path.join(root, row["log"])):
                raise Malformed(f"{RESULTS}:{line}: log '{row['log']}' is not a file in bench/results")
            if row["readme"] not in ("", "1"):
                raise Malformed(f"{RESULTS}:{line}: readme is '1' or empty")
            key = (row["device"], row["table"], row["type"], row["shape"], row["reference"])
            if key in keys:
                raise Malformed(f"{RESULTS}:{line}: a second row for {' '.join(filter(None, key))}")
            keys.add(key)
            rows.append(row)
    if not rows:
        raise Malformed(f"{RESULTS}: no rows")
    return rows


def shape_text(shape):
    if shape.endswith("^3"):
        batch, n = shape[:-2].split("x")
        return f"{batch} × {n}³"
    m, n, k = shape.split("x")
    return f"{m}²" if m == n == k else f"{m}×{n}×{k}"


def ratio(a, b):
    return f"{float(a) / float(b):.2f}" if a and b else "–"


def link(path, doc):
    return f"[{os.path.basename(path)}]({os.path.relpath(path, os.path.dirname(doc) or '.')})"


def markdown(header, body):
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(cells) + " |" for cells in body]
    return lines


def run_of(row):
    return row["date"], row["commit"], row["command"], row["log"]


def table(rows, doc):
    """One device's table: shape (and type when several), clgemm, the reference and CLBlast."""
    unit = rows[0]["unit"]
    if any(r["unit"] != unit for r in rows):
        raise Malformed(f"{RESULTS}: table {rows[0]['table']} mixes units")
    several_types = len({r["type"] for r in rows}) > 1
    names = {r["reference"] for r in rows if r["reference"]}
    has_clblast = any(r["clblast"] for r in rows)
    runs = {run_of(r) for r in rows}
    header = (["type"] if several_types else []) + ["shape", f"clgemm {unit}"]
    if len(names) == 1:
        header += [names.pop(), "ratio"]
    elif names:
        header += ["reference", "ratio"]
    if has_clblast:
        header += ["CLBlast defaults", "÷ CLBlast"]
    varying = [f for f in ("date", "commit") if len({r[f] for r in rows}) > 1]
    header += varying
    body = []
    for r in rows:
        cells = ([r["type"]] if several_types else []) + [shape_text(r["shape"]), r["clgemm"]]
        if "ratio" in header:
            value = r["reference_value"] or "–"
            if header[header.index("ratio") - 1] == "reference":
                value = f"{r['reference']} {value}" if r["reference"] else "–"
            cells += [value, ratio(r["clgemm"], r["reference_value"])]
        if has_clblast:
            cells += [r["clblast"] or "–", ratio(r["clgemm"], r["clblast"])]
        cells += [r[f] for f in varying]
        body.append(cells)
    lines = markdown(header, body) + [""]
    bullet = "- " if len(runs) > 1 else ""
    for date, commit, command, log in sorted(runs, key=[run_of(r) for r in rows].index):
        lines.append(f"{bullet}{rows[0]['device']}, {date}, commit {commit}; regenerate: "
                     f"`{command}`; log: {link(log, doc)}.")
    return lines


def readme_table(rows, doc):
    chosen = [r for r in rows if r["readme"]]
    if not chosen:
        raise Malformed(f"{RESULTS}: no row has readme=1")
    header = ["device", "type", "shape", "clgemm", "reference (same run)", "ratio", "measured",
              "regenerate"]
    body = [[r["device"], r["type"], shape_text(r["shape"]), f"{r['clgemm']} {r['unit']}",
             f"{r['reference']} {r['reference_value']}" if r["reference"] else "–",
             ratio(r["clgemm"], r["reference_value"]), f"{r['date']}, {r['commit']}",
             f"`{r['command']}`"] for r in chosen]
    return markdown(header, body)


def render(path, text, rows):
    """The document with every marked block regenerated, and the blocks' names."""
    groups = {}
    for r in rows:
        groups.setdefault(f"{r['device']} {r['table']}", []).append(r)
    out, names, lines, i = [], [], text.split("\n"), 0
    while i < len(lines):
        out.append(lines[i])
        found = BEGIN.match(lines[i])
        i += 1
        if not found:
            continue
        name = found.group(1)
        names.append(name)
        end = next((j for j in range(i, len(lines)) if lines[j] == END), None)
        if end is None:
            raise Malformed(f"{path}: <!-- perf-table {name} --> has no {END}")
        if name == "readme":
            out += readme_table(rows, path)
        elif name in groups:
            out += table(groups[name], path)
        else:
            raise Malformed(f"{path}: no rows of {RESULTS} for table '{name}'")
        out.append(END)
        i = end + 1
    return "\n".join(out), names


def run(root, check):
    rows = load(root)
    shown, stale = set(), []
    for doc in DOCS:
        path = os.path.join(root, doc)
        with open(path, encoding="utf-8") as f:
            text = f.read()
        new, names = render(doc, text, rows)
        shown.update(names)
        if new == text:
            continue
        if check:
            stale.append(doc)
            sys.stdout.writelines(difflib.unified_diff(
                text.splitlines(True), new.splitlines(True), doc, doc + " (from " + RESULTS + ")"))
        else:
            with open(path, "w", encoding="utf-8") as f:
                f.write(new)
            print(f"perf-table: wrote {doc}")
    if "readme" not in shown:
        raise Malformed("README.md: no <!-- perf-table readme --> block")
    missing = sorted({f"{r['device']} {r['table']}" for r in rows} - shown)
    if missing:
        raise Malformed(f"docs/PERFORMANCE.md: no block for table(s) {', '.join(missing)}")
    if stale:
        print(f"perf-table: {', '.join(stale)} disagree with {RESULTS}; "
              "run scripts/perf-table.py to regenerate")
        return 1
    print(f"perf-table: {len(rows)} rows, README.md and docs/PERFORMANCE.md agree")
    return 0


def self_test():
    """Each way a document can drift from the results file must fail --check."""
    src = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    me = os.path.abspath(__file__)
    cases = [
        ("README figure edited", "README.md", r"(\| H200 \| FP32 \| 4096² \| )[0-9.]+", r"\g<1>99.9"),
        ("results figure edited", RESULTS, r"(H200,fp32-shapes,FP32,4096x4096x4096,)[0-9.]+,(cuBLAS)",
         r"\g<1>999.9,\g<2>"),
        ("row added to the results", RESULTS, r"\Z",
         "H200,fp32-shapes,FP32,4100x4100x4100,43.0,cuBLAS,43.0,,TFLOPS,2026-12-01,abcdef0,"
         "bench/gpu/run.sh fp32-shapes,bench/results/figures.csv,1\n"),
        ("PERFORMANCE.md table edited", "docs/PERFORMANCE.md", r"(\| 4097² \| )[0-9.]+", r"\g<1>1.0"),
        ("README marker removed", "README.md", r"<!-- perf-table readme -->\n", ""),
        ("second row for one figure", RESULTS, r"\Z",
         "H200,fp32-shapes,FP32,4096x4096x4096,45.0,cuBLAS,48.0,,TFLOPS,2026-11-30,66af42c,"
         "bench/gpu/run.sh fp32-shapes,bench/results/h200-shapes-and-batches.log,\n"),
        ("bad commit", RESULTS, r",[0-9a-f]{7},", ",notacommit,"),
        ("log missing", RESULTS, r"bench/results/[a-z0-9-]+\.log", "bench/results/no-such.log"),
    ]
    failures = 0
    for name, target, pattern, replacement in cases:
        with tempfile.TemporaryDirectory() as tmp:
            for path in DOCS + [RESULTS]:
                os.makedirs(os.path.join(tmp, os.path.dirname(path)), exist_ok=True)
                shutil.copy(os.path.join(src, path), os.path.join(tmp, path))
            for row in load(src):
                if not os.path.exists(os.path.join(tmp, row["log"])):
                    shutil.copy(os.path.join(src, row["log"]), os.path.join(tmp, row["log"]))
            check = subprocess.run([sys.executable, me, "--check", "--root", tmp],
                                   capture_output=True, text=True)
            if check.returncode != 0:
                print(f"self-test: the untouched copy fails --check:\n{check.stdout}{check.stderr}")
                return 1
            path = os.path.join(tmp, target)
            with open(path, encoding="utf-8") as f:
                text = f.read()
            changed = re.sub(pattern, replacement, text, count=1)
            if changed == text:
                print(f"self-test: case '{name}' changed nothing")
                return 1
            with open(path, "w", encoding="utf-8") as f:
                f.write(changed)
            check = subprocess.run([sys.executable, me, "--check", "--root", tmp],
                                   capture_output=True, text=True)
            ok = check.returncode != 0
            failures += not ok
            print(f"self-test: {name}: {'detected' if ok else 'NOT detected'}")
    print(f"self-test: {len(cases) - failures} passed, {failures} failed")
    return 1 if failures else 0


def main(argv):
    if "--self-test" in argv:
        return self_test()
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    if "--root" in argv:
        root = argv[argv.index("--root") + 1]
    unknown = [a for a in argv if a not in ("--check", "--root", root)]
    if unknown:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    try:
        return run(root, "--check" in argv)
    except (Malformed, OSError) as e:
        print(f"perf-table: {e}")
        return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
