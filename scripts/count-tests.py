#!/usr/bin/env python3
"""Sums Criterion's "Synthesis" lines over meson's test log and prints "N passed, N failed".

A suite that failed without printing a synthesis (a crash outside a test, a timeout) counts
as one failure, so the line never reads better than the run was. Optional further arguments
name checks run outside meson (CI's ThreadSanitizer and fuzzing runs) as NAME=STATUS, each
counted as one test that passed when STATUS is 0."""
import json
import re
import sys

passed = failed = 0
synthesis = re.compile(r"Synthesis: Tested: \d+ \| Passing: (\d+) \| Failing: (\d+) \| Crashing: (\d+)")
with open(sys.argv[1]) as log:
    for line in log:
        result = json.loads(line)
        found = synthesis.findall(result.get("stdout", "") + result.get("stderr", ""))
        if found:
            p, f, c = (int(x) for x in found[-1])
            passed += p
            failed += f + c
            if result["result"] not in ("OK", "SKIP", "EXPECTEDFAIL") and f + c == 0:
                failed += 1
        elif result["result"] in ("OK",):
            passed += 1
        elif result["result"] not in ("SKIP", "EXPECTEDFAIL"):
            failed += 1
for extra in sys.argv[2:]:
    name, _, status = extra.partition("=")
    if status == "0":
        passed += 1
    else:
        failed += 1
        print(f"{name}: failed (exit status {status})")
print(f"{passed} passed, {failed} failed")
