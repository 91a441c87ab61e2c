#!/usr/bin/env python3
"""tsan_check.py: judges the ThreadSanitizer logs that tests/reliability/tsan.sh collects
(TSAN_OPTIONS=log_path=..., exitcode=0). Each report is judged by the stacks of the accesses,
locks or calls it is about (not by where the memory was allocated or the threads created):
  - any clgemm frame (a function clgemm_*, or a file src/**/*.c)   -> failure, never suppressed
  - else any test frame (a file tests/...)                      -> failure (the test's own race)
  - else wholly inside the OpenCL runtime (PoCL, ocl-icd, LLVM, libc): tolerated only if a
    pattern of tsan.supp names one of its frames, else a failure, so that it is looked at.
TSan's own suppressions are not used: they match any frame of any stack of a report, so a
pattern for PoCL would also hide a race between clgemm and PoCL.

Usage: tsan_check.py LOGDIR [--supp FILE] [--expect-test-race]
  --expect-test-race: pass only if a race in test code IS found (the deliberate canary)."""
import os
import re
import sys

CLGEMM_FRAME = re.compile(r" clgemm_\w* |(^|[ /])src/(\w+/)*\w+\.c:\d+|libclgemm\.so")
TEST_FRAME = re.compile(r"(^|[ /])tests/\S+\.c:\d+")
# Sections that say where memory came from or who created a thread: not the subject.
CONTEXT_SECTION = re.compile(r"^\s+(Location is|Thread T\d+ .*created|Mutex M\d+ .*created|"
                             r"Previous atomic|As if synchronized)")


def read_patterns(path):
    pats = []
    if path and os.path.exists(path):
        for line in open(path):
            line = line.strip()
            if line and not line.startswith("#") and ":" in line:
                pats.append(line.split(":", 1)[1])
    return pats


def reports(text):
    """Yields (title, [subject frame lines], full text) per TSan report."""
    for block in re.split(r"^==================$", text, flags=re.M):
        m = re.search(r"WARNING: ThreadSanitizer: (.*)", block)
        if not m:
            continue
        frames, subject = [], True
        for line in block.splitlines():
            if re.match(r"^\s+#\d+ ", line):
                if subject:
                    frames.append(line.strip())
            elif re.match(r"^\s+\S", line):
                subject = not CONTEXT_SECTION.match(line)
        yield m.group(1), frames, block


def main():
    args = sys.argv[1:]
    if not args:
        sys.exit(__doc__)
    logdir = args.pop(0)
    supp = os.path.join(os.path.dirname(os.path.abspath(__file__)), "tsan.supp")
    expect = False
    while args:
        a = args.pop(0)
        if a == "--supp":
            supp = args.pop(0)
        elif a == "--expect-test-race":
            expect = True
        else:
            sys.exit(f"tsan_check.py: unknown option {a}")
    patterns = read_patterns(supp)
    for p in patterns:
        if "clgemm" in p.lower():
            print(f"tsan_check.py: {supp} must not name clgemm: {p}")
            return 1
    counts = {"clgemm": 0, "test": 0, "third-party (suppressed)": 0, "third-party (unexplained)": 0}
    shown = 0
    files = sorted(os.listdir(logdir)) if os.path.isdir(logdir) else []
    for name in files:
        text = open(os.path.join(logdir, name), errors="replace").read()
        for title, frames, block in reports(text):
            if any(CLGEMM_FRAME.search(f) for f in frames):
                kind = "clgemm"
            elif any(TEST_FRAME.search(f) for f in frames):
                kind = "test"
            elif any(p in f for p in patterns for f in frames):
                kind = "third-party (suppressed)"
            else:
                kind = "third-party (unexplained)"
            counts[kind] += 1
            if kind != "third-party (suppressed)" and shown < 5 and not expect:
                shown += 1
                print(f"---- {kind}: {title} ({name})\n{block.strip()}\n")
    summary = ", ".join(f"{v} {k}" for k, v in counts.items())
    print(f"tsan_check.py: {len(files)} log file(s); reports: {summary}")
    if expect:
        ok = counts["test"] > 0
        print("tsan_check.py: the deliberate race was %s" %
              ("reported, as it must be" if ok else "NOT reported"))
        return 0 if ok else 1
    return 1 if counts["clgemm"] + counts["test"] + counts["third-party (unexplained)"] else 0


if __name__ == "__main__":
    sys.exit(main())
