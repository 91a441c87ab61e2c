"""multiply_gain.py: the main job's gain line (examples/multiply.c, issue 36). With a tuned entry
that is the built-in default's own configuration, clgemm-multiply must say it is the same kernel
and claim no gain; with another configuration it must time the two in alternation and report the
median ratio of adjacent timings.

Usage: multiply_gain.py CLGEMM_TUNE CLGEMM_MULTIPLY"""
import json
import os
import re
import subprocess
import sys
import tempfile

N = "64"


def run(args, db):
    env = dict(os.environ, CLGEMM_TUNING_DB=db)
    p = subprocess.run(args, env=env, capture_output=True, text=True, timeout=600)
    if p.returncode != 0:
        sys.exit("FAIL: %s exited %d\n%s%s" % (args, p.returncode, p.stdout, p.stderr))
    return p.stdout


def with_config(db, family, params):
    """db's one entry made to run family with params."""
    with open(db) as f:
        data = json.load(f)
    for e in data["entries"]:
        e["family"], e["params"] = family, params
    with open(db, "w") as f:
        json.dump(data, f)


def main():
    tune, multiply = sys.argv[1:3]
    with tempfile.TemporaryDirectory(prefix="clgemm-multiply-gain-") as work:
        db = os.path.join(work, "tuning.json")
        out = run([multiply, N], os.path.join(work, "none.json"))
        m = re.search(r"^kernel: (\S+)((?: \w+=\d+)*) \(default\)$", out, re.M)
        if not m:
            sys.exit("FAIL: no default kernel line in\n" + out)
        family = m.group(1)
        params = {k: int(v) for k, v in re.findall(r"(\w+)=(\d+)", m.group(2))}
        run([tune, "--quick", "--shape", N, "--max-evals", "1", "--budget", "20", "--output", db],
            db)
        failed = False

        with_config(db, family, params)
        out = run([multiply, N], db)
        print(out)
        if "(tuned)" not in out or "the same kernel" not in out or re.search(r"x\d+\.\d+ the", out):
            print("FAIL: the default's own configuration as the tuned entry: not called the "
                  "same kernel, or a gain claimed")
            failed = True

        other = ("tiled", {"TS": 8}) if family != "tiled" or params.get("TS") != 8 else \
            ("tiled", {"TS": 4})
        with_config(db, *other)
        out = run([multiply, N], db)
        print(out)
        m = re.search(r"x(\d+\.\d+) the built-in default \(median ratio of (\d+) adjacent "
                      r"tuned/default timings in alternating order, from x(\d+\.\d+) to "
                      r"x(\d+\.\d+)\)", out)
        if "(tuned)" not in out or not m or "same kernel" in out:
            print("FAIL: another configuration: no ratio of adjacent alternated timings")
            failed = True
        elif not float(m.group(3)) <= float(m.group(1)) <= float(m.group(4)) or int(m.group(2)) < 3:
            print("FAIL: the median ratio lies outside its rounds' range")
            failed = True
    if failed:
        sys.exit(1)
    print("the gain line says the same kernel for the default, and a ratio of adjacent runs else")


main()
