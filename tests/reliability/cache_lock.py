#!/usr/bin/env python3
"""cache_lock.py: one compile per host. Worker processes (cache_worker) on one cold kernel cache
must build each program once between them; the others wait for the entry's lock and load the
binary. The builds are counted from the library's log (CLGEMM_LOG): one "building FILE from
source (ENTRY)" line per build.

Usage: cache_lock.py CASE CACHE_WORKER
  four-cold      4 workers started together on a cold cache: each entry is built exactly once,
                 every result is right, and no lock file is left behind.
  holder-killed  4 workers started together, with kernels made slow to compile (REL_KERNEL_SRC
                 copied and padded), so that while one builds the others wait; the builder is
                 killed with SIGKILL mid-build. The three left must finish with right results
                 and build each entry exactly once between them.

  unusable       the cache cannot hold the entry or its lock: a folder planted at the entry's
                 name (every write fails, as on a full disk), a FIFO or a symlink planted at the
                 lock's name, a cache folder inside a regular file. 4 workers started together
                 must all finish with right results (building it themselves), the symlink's
                 target untouched.

PoCL's own cache (POCL_CACHE_DIR) is a fresh folder too, so each build really compiles."""
import collections
import fcntl
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

BUILD = re.compile(r"building (\S+) from source \(([\w-]+\.bin)\)")
WAIT = re.compile(r"waiting for another process to build ([\w-]+\.bin)")


def start(worker, env, log_path):
    log = open(log_path, "w")
    return subprocess.Popen([worker], env=env, stdout=log, stderr=subprocess.STDOUT)


def builds(log_path):
    with open(log_path) as f:
        return [m.group(2) for m in BUILD.finditer(f.read())]


def read(log_path):
    with open(log_path) as f:
        return f.read()


def fail(msg, logs=()):
    print("FAIL:", msg)
    for path in logs:
        print(f"--- {os.path.basename(path)}:\n{read(path)}")
    sys.exit(1)


def check_once(counts, logs):
    """Every entry built exactly once by the processes whose logs are given."""
    if not counts:
        fail("no build was logged", logs)
    twice = {e: n for e, n in counts.items() if n != 1}
    if twice:
        fail(f"entries built more than once: {twice}", logs)


def four_cold(worker, work, env):
    logs = [os.path.join(work, f"worker{i}.log") for i in range(4)]
    t0 = time.monotonic()
    procs = [start(worker, env, p) for p in logs]
    codes = [p.wait(timeout=240) for p in procs]
    wall = time.monotonic() - t0
    if any(codes):
        fail(f"exit statuses {codes}", logs)
    counts = collections.Counter(e for p in logs for e in builds(p))
    check_once(counts, logs)
    left = [n for n in os.listdir(env["CLGEMM_CACHE_DIR"]) if n.endswith(".lock")]
    if left:
        fail(f"lock files left behind: {left}")
    for e in counts:
        if not os.path.isfile(os.path.join(env["CLGEMM_CACHE_DIR"], e)):
            fail(f"entry {e} was built but not cached")
    print(f"4 cold workers: {dict(counts)} (each built once), {wall:.1f} s")


def slow_kernels(work):
    """A copy of the kernels whose shared part takes seconds to compile (unused functions)."""
    src = os.environ.get("REL_KERNEL_SRC")
    if not src:
        fail("REL_KERNEL_SRC is not set (the cl/ folder)")
    dst = os.path.join(work, "kernels")
    shutil.copytree(src, dst)
    with open(os.path.join(dst, "common.cl"), "a") as f:
        for i in range(12000):
            f.write(f"float slow_build_{i}(float x) {{ for (int j = 0; j < {i % 7 + 3}; j++) "
                    f"x = x * 1.0001f + (float)j; return x; }}\n")
    return dst


def lock_held(path):
    """True while some process holds the flock of path."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return False
    except BlockingIOError:
        return True
    finally:
        os.close(fd)


def holder_killed(worker, work, env):
    env["CLGEMM_KERNEL_DIR"] = slow_kernels(work)
    cache = env["CLGEMM_CACHE_DIR"]
    logs = [os.path.join(work, f"worker{i}.log") for i in range(4)]
    procs = [start(worker, env, p) for p in logs]
    # The builder: the one that logged a build; the others must say they wait for its entry.
    deadline = time.monotonic() + 120
    builder = entry = None
    while time.monotonic() < deadline:
        started = [(i, b) for i, p in enumerate(logs) for b in builds(p)]
        if started:
            builder, entry = started[0]
            waiting = [i for i, p in enumerate(logs) if entry in WAIT.findall(read(p))]
            if len(waiting) == 3 and builder not in waiting:
                break
        if any(p.poll() is not None for p in procs):
            break
        time.sleep(0.01)
    else:
        fail("the workers never reached one builder and three waiting", logs)
    if entry is None or procs[builder].poll() is not None:
        fail("a worker finished before the builder could be killed", logs)
    lock = os.path.join(cache, entry[:-4] + ".lock")
    if not lock_held(lock) or os.path.exists(os.path.join(cache, entry)):
        fail(f"worker {builder} is not building {entry} any more", logs)
    os.kill(procs[builder].pid, signal.SIGKILL)
    procs[builder].wait()
    others = [i for i in range(4) if i != builder]
    codes = [procs[i].wait(timeout=240) for i in others]
    if any(codes):
        fail(f"the workers left exited with {codes}", [logs[i] for i in others])
    counts = collections.Counter(e for i in others for e in builds(logs[i]))
    check_once(counts, [logs[i] for i in others])
    if entry not in counts:
        fail(f"nobody rebuilt {entry} after its builder was killed")
    print(f"builder {builder} killed building {entry}; the others built {dict(counts)} once")


def run_four(worker, env, work, name):
    """4 workers started together; their logs, after checking that each one succeeded."""
    logs = [os.path.join(work, f"{name}{i}.log") for i in range(4)]
    procs = [start(worker, env, p) for p in logs]
    codes = [p.wait(timeout=240) for p in procs]
    if any(codes):
        fail(f"{name}: exit statuses {codes}", logs)
    return logs


def unusable(worker, work, env):
    # The entry's name (it depends on the device and driver), from one cold run.
    first = os.path.join(work, "first.log")
    if start(worker, env, first).wait(timeout=240) or not builds(first):
        fail("the first worker failed or built nothing", [first])
    entry = builds(first)[0]
    lock = entry[:-4] + ".lock"
    victim = os.path.join(work, "victim")
    with open(victim, "w") as f:
        f.write("untouched")
    plants = {
        "entry-folder": lambda d: os.mkdir(os.path.join(d, entry)),
        "lock-fifo": lambda d: os.mkfifo(os.path.join(d, lock)),
        "lock-symlink": lambda d: os.symlink(victim, os.path.join(d, lock)),
    }
    for name, plant in plants.items():
        env["CLGEMM_CACHE_DIR"] = os.path.join(work, name)
        os.mkdir(env["CLGEMM_CACHE_DIR"])
        plant(env["CLGEMM_CACHE_DIR"])
        logs = run_four(worker, env, work, name)
        n = sum(len(builds(p)) for p in logs)
        print(f"{name}: 4 workers right, {n} builds")
    with open(victim) as f:
        if f.read() != "untouched":
            fail("the symlink planted at the lock was followed")
    env["CLGEMM_CACHE_DIR"] = os.path.join(victim, "kernels")  # inside a regular file
    logs = run_four(worker, env, work, "inside-a-file")
    print(f"cache folder inside a file: 4 workers right, {sum(len(builds(p)) for p in logs)} builds")


def main():
    cases = {"four-cold": four_cold, "holder-killed": holder_killed, "unusable": unusable}
    if len(sys.argv) != 3 or sys.argv[1] not in cases:
        sys.exit(__doc__)
    case, worker = sys.argv[1], os.path.abspath(sys.argv[2])
    with tempfile.TemporaryDirectory(prefix="clgemm-cache-lock-") as work:
        env = dict(os.environ)
        env.update(CLGEMM_LOG="1", CLGEMM_CACHE_DIR=os.path.join(work, "cache"),
                   POCL_CACHE_DIR=os.path.join(work, "pocl"))
        env.pop("CLGEMM_KERNEL_DIR", None)
        cases[case](worker, work, env)


if __name__ == "__main__":
    main()
