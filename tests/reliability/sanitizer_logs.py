"""sanitizer_logs.py: what lsan_check.py and tsan_check.py share: their command line, the
suppression patterns, and the judgement of one report by its frames (a clgemm frame or a test
frame is a failure whatever the patterns say; the rest is tolerated only if a pattern names one
of its frames)."""
import os
import sys

KINDS = ("clgemm", "test", "third-party (suppressed)", "third-party (unexplained)")


def parse_args(doc, prog, supp_name, expect_flag):
    """LOGDIR [--supp FILE] [expect_flag] -> (logdir, supp, expect); exits with doc if bad."""
    args = sys.argv[1:]
    if not args:
        sys.exit(doc)
    logdir = args.pop(0)
    supp = os.path.join(os.path.dirname(os.path.abspath(__file__)), supp_name)
    expect = False
    while args:
        a = args.pop(0)
        if a == "--supp":
            supp = args.pop(0)
        elif a == expect_flag:
            expect = True
        else:
            sys.exit(f"{prog}: unknown option {a}")
    return logdir, supp, expect


def read_patterns(path, only=None):
    """The patterns of a suppression file ("type:pattern" lines), those of type `only` if given."""
    pats = []
    if path and os.path.exists(path):
        for line in open(path):
            line = line.strip()
            if not line or line.startswith("#") or ":" not in line:
                continue
            kind, pattern = line.split(":", 1)
            if only is None or kind == only:
                pats.append(pattern)
    return pats


def names_clgemm(prog, supp, patterns):
    """True (and says so) when a pattern would hide clgemm's own frames."""
    for p in patterns:
        if "clgemm" in p.lower():
            print(f"{prog}: {supp} must not name clgemm: {p}")
            return True
    return False


def log_files(logdir):
    """[(name, text)] for each log file of logdir, in name order."""
    names = sorted(os.listdir(logdir)) if os.path.isdir(logdir) else []
    return [(n, open(os.path.join(logdir, n), errors="replace").read()) for n in names]


class Tally:
    """Counts reports by kind (KINDS) and prints the first `show` that are not suppressed."""

    def __init__(self, clgemm_frame, test_frame, patterns, show):
        self.clgemm_frame, self.test_frame, self.patterns = clgemm_frame, test_frame, patterns
        self.counts = dict.fromkeys(KINDS, 0)
        self.show = show

    def kind(self, frames):
        if any(self.clgemm_frame.search(f) for f in frames):
            return "clgemm"
        if any(self.test_frame.search(f) for f in frames):
            return "test"
        if any(p in f for p in self.patterns for f in frames):
            return "third-party (suppressed)"
        return "third-party (unexplained)"

    def add(self, frames, describe):
        """Counts a report whose subject frames are `frames`; describe(kind) is its text."""
        kind = self.kind(frames)
        self.counts[kind] += 1
        if kind != "third-party (suppressed)" and self.show > 0:
            self.show -= 1
            print(describe(kind))

    def summary(self):
        return ", ".join(f"{v} {k}" for k, v in self.counts.items())

    def verdict(self, prog, expect, canary_kind, canary, errors=0):
        """The exit status. With expect (the canary run): 0 only if a report of canary_kind was
        found. Else 1 if there are errors or any report that is not tolerated."""
        if expect:
            ok = self.counts[canary_kind] > 0
            print(f"{prog}: the deliberate {canary} was %s" %
                  ("reported, as it must be" if ok else "NOT reported"))
            return 0 if ok else 1
        c = self.counts
        bad = errors + c["clgemm"] + c["test"] + c["third-party (unexplained)"]
        return 1 if bad else 0
