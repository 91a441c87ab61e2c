#!/usr/bin/env python3
"""count_tests_check.py: scripts/count-tests.py against meson logs made up here, around a real
Criterion binary (test_unit): a part that timed out counts each of its cases (those it printed
passing as passed, the others of its --filter as failed), a finished suite counts its synthesis,
a part whose filter matched nothing and a plain test that failed count one failure each.
Usage: count_tests_check.py COUNT_TESTS_PY TEST_UNIT"""
import json
import subprocess
import sys
import tempfile

count_tests, binary = sys.argv[1], sys.argv[2]
listing = subprocess.run([binary, "--list"], capture_output=True, text=True, check=True).stdout
# The cases of suite "rules", read from the listing: its header says how many.
header = [l for l in listing.splitlines() if l.startswith("rules: ")][0]
rules = int(header.split()[1])
assert rules >= 2, header

log = [
    {"name": "unit-rules", "result": "TIMEOUT", "command": [binary, "--verbose", "--filter",
                                                            "rules/*"],
     "stdout": "[----] Criterion v2.4.1\n[RUN ] rules::family\n[PASS] rules::family: (0.1s)\n"
               "[RUN ] rules::local_memory\n"},
    {"name": "unit-status", "result": "OK", "command": [binary, "--filter", "status/*"],
     "stdout": "[====] Synthesis: Tested: 3 | Passing: 3 | Failing: 0 | Crashing: 0 \n"},
    {"name": "unit-none", "result": "OK", "command": [binary, "--filter", "no_such_suite/*"],
     "stdout": "[====] Synthesis: Tested: 0 | Passing: 0 | Failing: 0 | Crashing: 0 \n"},
    {"name": "script", "result": "FAIL", "command": ["sh", "x.sh"], "stdout": "oops\n"},
]
with tempfile.NamedTemporaryFile("w", suffix=".json") as f:
    for r in log:
        f.write(json.dumps(r) + "\n")
    f.flush()
    out = subprocess.run([sys.executable, count_tests, f.name], capture_output=True, text=True,
                         check=True).stdout
last = out.strip().splitlines()[-1]
want = "%d passed, %d failed" % (1 + 3, (rules - 1) + 1 + 1)
print(out, end="")
if last != want:
    sys.exit("count-tests.py said %r, want %r" % (last, want))
print("ok: %s" % want)
