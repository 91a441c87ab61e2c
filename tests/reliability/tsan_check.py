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
import re
import sys

from sanitizer_logs import Tally, log_files, names_clgemm, parse_args, read_patterns

CLGEMM_FRAME = re.compile(r" clgemm_\w* |(^|[ /])src/(\w+/)*\w+\.c:\d+|libclgemm\.so")
TEST_FRAME = re.compile(r"(^|[ /])tests/\S+\.c:\d+")
# Sections that say where memory came from or who created a thread: not the subject.
CONTEXT_SECTION = re.compile(r"^\s+(Location is|Thread T\d+ .*created|Mutex M\d+ .*created|"
                             r"Previous atomic|As if synchronized)")


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
    logdir, supp, expect = parse_args(__doc__, "tsan_check.py", "tsan.supp", "--expect-test-race")
    patterns = read_patterns(supp)
    if names_clgemm("tsan_check.py", supp, patterns):
        return 1
    tally = Tally(CLGEMM_FRAME, TEST_FRAME, patterns, show=0 if expect else 5)
    logs = log_files(logdir)
    for name, text in logs:
        for title, frames, block in reports(text):
            tally.add(frames, lambda kind: f"---- {kind}: {title} ({name})\n{block.strip()}\n")
    print(f"tsan_check.py: {len(logs)} log file(s); reports: {tally.summary()}")
    return tally.verdict("tsan_check.py", expect, "test", "race")


if __name__ == "__main__":
    sys.exit(main())
