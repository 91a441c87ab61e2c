#!/usr/bin/env python3
"""Sums Criterion's "Synthesis" lines over meson's test log and prints "N passed, N failed".

A Criterion suite that died without its synthesis (a timeout, a crash outside a test) counts
each of its cases: those its log shows passing (the suites run with --verbose, which prints
"[PASS] suite::case" as each ends) as passed, every other case it holds (its --list, narrowed
by the --filter it ran with) as failed, and at least one failure; any other test that failed
counts as one failure, and so does a part of a suite whose --filter ran no case. So the line
never reads better than the run was. Optional further arguments name checks run outside meson
(CI's ThreadSanitizer and fuzzing runs) as NAME=STATUS, each counted as one test that passed
when STATUS is 0."""
import json
import re
import subprocess
import sys

SYNTHESIS = re.compile(r"Synthesis: Tested: (\d+) \| Passing: (\d+) \| Failing: (\d+) \| Crashing: (\d+)")
HEADER = "[----] Criterion v"
LISTED_SUITE = re.compile(r"^(\S+): \d+ tests?$")
LISTED_CASE = re.compile(r"^[├└]── (\S+)$")


def filter_regex(pattern):
    """Criterion's --filter glob as a regular expression: * and ? within a name, @(a|b) one of
    the alternatives, !(a|b) a name that is none of them (the forms tests/meson.build uses)."""
    out, i = "", 0
    while i < len(pattern):
        ch = pattern[i]
        if ch in "@!" and pattern[i + 1:i + 2] == "(":
            end = pattern.index(")", i)
            alternatives = "|".join(filter_regex(a) for a in pattern[i + 2:end].split("|"))
            out += "(?:%s)" % alternatives if ch == "@" else "(?!(?:%s)(?:/|$))[^/]*" % alternatives
            i = end + 1
            continue
        out += "[^/]*" if ch == "*" else "[^/]" if ch == "?" else re.escape(ch)
        i += 1
    return out


def listed_cases(command):
    """The cases of a Criterion binary run as `command` ("suite/case"), narrowed by its
    --filter; None when it cannot be listed."""
    pattern = None
    for i, arg in enumerate(command):
        if arg == "--filter" and i + 1 < len(command):
            pattern = command[i + 1]
        elif arg.startswith("--filter="):
            pattern = arg.partition("=")[2]
    try:
        out = subprocess.run([command[0], "--list"], capture_output=True, text=True,
                             timeout=60).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    cases, suite = [], None
    for line in out.splitlines():
        if LISTED_SUITE.match(line):
            suite = LISTED_SUITE.match(line).group(1)
        elif LISTED_CASE.match(line) and suite:
            cases.append(suite + "/" + LISTED_CASE.match(line).group(1))
    if pattern is None:
        return cases
    wanted = re.compile(filter_regex(pattern) + "$")
    return [c for c in cases if wanted.match(c)]


def unfinished_suite(result, output):
    """(passed, failed) of a Criterion suite that ended without its synthesis."""
    passed = len(re.findall(r"^\[PASS\] ", output, re.M))
    failed = len(re.findall(r"^\[FAIL\] ", output, re.M))
    ended = set(re.findall(r"^\[(?:PASS|FAIL|SKIP)\] (\S+?)::(\S+?)(?::|$)", output, re.M))
    cases = listed_cases(result.get("command") or [])
    if cases is not None:
        failed += sum(1 for c in cases if tuple(c.split("/", 1)) not in ended)
    return passed, max(failed, 1)


passed = failed = 0
with open(sys.argv[1]) as log:
    for line in log:
        result = json.loads(line)
        output = result.get("stdout", "") + result.get("stderr", "")
        found = SYNTHESIS.findall(output)
        ok = result["result"] in ("OK", "SKIP", "EXPECTEDFAIL")
        if found:
            t, p, f, c = (int(x) for x in found[-1])
            passed += p
            failed += f + c
            if not ok and f + c == 0:
                failed += 1
            if t == 0 and "--filter" in " ".join(result.get("command") or []):
                failed += 1  # a part of a suite whose filter matches no case
                print(f"{result['name']}: its --filter matched no case")
        elif result["result"] == "OK":
            passed += 1
        elif ok:
            pass
        elif HEADER in output:
            p, f = unfinished_suite(result, output)
            passed += p
            failed += f
            print(f"{result['name']}: {result['result']} after {p} passed, counted {f} failed")
        else:
            failed += 1
for extra in sys.argv[2:]:
    name, _, status = extra.partition("=")
    if status == "0":
        passed += 1
    else:
        failed += 1
        print(f"{name}: failed (exit status {status})")
print(f"{passed} passed, {failed} failed")
