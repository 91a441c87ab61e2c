#!/usr/bin/env python3
"""lsan_check.py: judges the AddressSanitizer / UndefinedBehaviorSanitizer / LeakSanitizer logs
that tests/reliability/sanitize.sh collects (one file per process, ASAN_OPTIONS=log_path=...).

LeakSanitizer runs with exitcode=0 and no suppression file of its own, because its suppressions
match any frame of a stack: a pattern meant for PoCL would also hide a program that clgemm
forgot to release (allocated inside PoCL, called from clgemm). Here instead each leak is judged
by its whole allocation stack (sanitize.sh asks for full stacks: fast_unwind_on_malloc=0):
  - any clgemm frame (a function clgemm_*, or a file src/**/*.c)      -> failure, never suppressed
  - else any test frame (a file tests/...)                         -> failure (a test's own leak)
  - else (only the OpenCL runtime, libc, Criterion...): tolerated only if a pattern of
    lsan.supp matches one of its frames, else a failure, so that a new leak is looked at.
Any AddressSanitizer error or UBSan "runtime error" is a failure.

Usage: lsan_check.py LOGDIR [--supp FILE] [--expect-clgemm-leak]
  --expect-clgemm-leak: pass only if a clgemm leak IS found (the deliberate canary)."""
import re
import sys

from sanitizer_logs import Tally, log_files, names_clgemm, parse_args, read_patterns

CLGEMM_FRAME = re.compile(r" in clgemm_|(^|[ /])src/(\w+/)*\w+\.c:\d+|libclgemm\.so")
TEST_FRAME = re.compile(r"(^|[ /])tests/\S+\.c:\d+|(^|[ /])fuzz/\S+\.c:\d+")
LEAK_HEAD = re.compile(r"^(Direct|Indirect) leak of (\d+) byte\(s\) in (\d+) object\(s\)")


def leak_blocks(text):
    """Yields (header, [frame lines]) for each leak report in a log."""
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        m = LEAK_HEAD.match(lines[i])
        if not m:
            i += 1
            continue
        head, frames = lines[i], []
        i += 1
        while i < len(lines) and lines[i].strip().startswith("#"):
            frames.append(lines[i].strip())
            i += 1
        yield head, frames


def main():
    logdir, supp, expect = parse_args(__doc__, "lsan_check.py", "lsan.supp", "--expect-clgemm-leak")
    patterns = read_patterns(supp, only="leak")
    if names_clgemm("lsan_check.py", supp, patterns):
        return 1
    tally = Tally(CLGEMM_FRAME, TEST_FRAME, patterns, show=0 if expect else 10)
    errors = 0
    logs = log_files(logdir)
    for name, text in logs:
        for m in re.finditer(r"ERROR: AddressSanitizer:.*|runtime error:.*", text):
            errors += 1
            print(f"{name}: {m.group(0)}")
        for head, frames in leak_blocks(text):
            stack = "\n".join(frames)
            tally.add(frames, lambda kind: f"---- {kind} leak, {name}: {head}\n{stack}")
    print(f"lsan_check.py: {len(logs)} log file(s); sanitizer errors: {errors}; leak reports: "
          f"{tally.summary()}")
    return tally.verdict("lsan_check.py", expect, "clgemm", "clgemm leak", errors)


if __name__ == "__main__":
    sys.exit(main())
