#!/usr/bin/env python3
"""bench-headers.py: does the template miner find a log's messages whatever
the header in front of them?

	tests/bench-headers.py TMPL_IDS STRUCTURED_CSV... [-v STYLE]

For each loghub structured CSV (its Content and EventId columns), the
messages are written again behind the line headers of common logging
frameworks, with values that vary line by line (times, pids, hosts with
and without digits, levels, components, request IDs), and the miner
(tests/unit/tmpl-ids) reads each rendering, never told its format.
Printed: Grouping Accuracy per log and header style, the "bare" column
being the messages alone.  A miner that sets the header aside scores the
same in every column.  With -v STYLE, the first lines of that rendering
of each log are shown.  Used by tests/bench-templates.sh; reads the
files where they are.
"""
import csv
import os
import random
import subprocess
import sys
import tempfile

HOSTS = ["web-07", "db-2", "alpha", "bravo", "cache-11", "kilo",
         "node-r02-m1", "edge"]
COMPS = ["com.example.api.Server", "app.worker", "net.Pool",
         "scheduler", "org.acme.db.Session", "http"]
THREADS = ["main", "worker-3", "pool-1-thread-12", "qtp123-45", "io"]


def levels(r):
    x = r.random()
    return "INFO" if x < .8 else "WARN" if x < .9 else "ERROR" if x < .97 \
        else "DEBUG"


def hexs(r, n):
    return "".join(r.choice("0123456789abcdef") for _ in range(n))


def uuid(r):
    return "-".join(hexs(r, n) for n in (8, 4, 4, 4, 12))


# Each style: f(r, t) -> header, t the seconds since the start.
def ts_iso(t, sep=" ", frac=3, comma=False):
    s = int(t)
    d = 5 + s // 86400
    base = "2024-03-%02d%s%02d:%02d:%02d" % (d, sep, s // 3600 % 24,
                                             s // 60 % 60, s % 60)
    if frac:
        base += ("," if comma else ".") + \
            ("%09d" % int((t - s) * 1e9))[:frac]
    return base


STYLES = {
    "bare": lambda r, t: "",
    "log4j": lambda r, t: "%s %-5s [%s] %s: " % (
        ts_iso(t, comma=True), levels(r), r.choice(THREADS), r.choice(COMPS)),
    "python": lambda r, t: "%s - %s - %s - " % (
        ts_iso(t, comma=True), r.choice(COMPS), levels(r)),
    "klog": lambda r, t: "%s%s %7d %s:%d] " % (
        levels(r)[0], ts_iso(t, frac=6)[5:].replace("-", "", 1)
        .replace("-", ""), r.randint(100, 99999),
        r.choice(["server.go", "main.go", "pool.go"]), r.randint(1, 900)),
    "rfc5424": lambda r, t: "<%d>1 %sZ %s %s %d - - " % (
        r.randint(0, 191), ts_iso(t, sep="T"), r.choice(HOSTS),
        r.choice(["app", "api", "cron"]), r.randint(100, 99999)),
    "rails": lambda r, t: "%s, [%s #%d] %5s -- : " % (
        "I", ts_iso(t, sep="T", frac=6), r.randint(100, 99999), levels(r)),
    "request": lambda r, t: "%sZ %s [req-%s] " % (
        ts_iso(t, sep="T"), levels(r), uuid(r)),
    "pid-level-comp": lambda r, t: "%s %d %s %s [%s %s %s - - -] " % (
        ts_iso(t), r.randint(100, 99999), levels(r), r.choice(COMPS),
        "req-" + uuid(r), hexs(r, 32), hexs(r, 32)),
    "epoch-host": lambda r, t: "%d %s %s[%d]: " % (
        1709600000 + int(t), r.choice(HOSTS), r.choice(["app", "kernel"]),
        r.randint(100, 99999)),
    "logcat": lambda r, t: "%s %5d %5d %s %s: " % (
        ts_iso(t)[5:], r.randint(100, 9999), r.randint(100, 9999),
        levels(r)[0], r.choice(["ActivityManager", "WindowManager",
                                "PowerManagerService"])),
    "nginx": lambda r, t: "%s [%s] %d#%d: *%d " % (
        ts_iso(t, frac=0).replace("-", "/"), levels(r).lower(),
        r.randint(100, 9999), 0, r.randint(1, 99999)),
    "compose": lambda r, t: "%-9s| %s " % (
        r.choice(["web-1", "db-1", "worker-2"]), ts_iso(t, sep="T") + "Z"),
    "k8s-ts": lambda r, t: "%sZ " % ts_iso(t, sep="T", frac=9),
    "pdsh": lambda r, t: "%s: %s %s " % (
        r.choice(HOSTS), ts_iso(t, comma=True), levels(r)),
    "syslog": lambda r, t: "%s %s %s[%d]: " % (
        "Mar %2d %s" % (5 + int(t) // 86400, ts_iso(t, frac=0)[11:]),
        r.choice(HOSTS), r.choice(["app", "sshd", "cron"]),
        r.randint(100, 99999)),
}


def read(path):
    with open(path, newline="", encoding="utf-8", errors="replace") as f:
        rows = list(csv.reader(f))
    h = rows[0]
    ci, ei = h.index("Content"), h.index("EventId")
    return [(x[ci], x[ei]) for x in rows[1:]]


def ga(pred, truth):
    pc, tc, pt = {}, {}, {}
    for p, t in zip(pred, truth):
        pc[p] = pc.get(p, 0) + 1
        tc[t] = tc.get(t, 0) + 1
        pt[(p, t)] = pt.get((p, t), 0) + 1
    ok = sum(n for (p, t), n in pt.items() if n == pc[p] and n == tc[t])
    return ok / len(truth)


def main():
    args = sys.argv[1:]
    show = None
    if "-v" in args:
        i = args.index("-v")
        show = args[i + 1]
        del args[i:i + 2]
    tmpl, csvs = args[0], args[1:]
    names = list(STYLES)
    print("%-10s" % "LOG" + "".join(" %*s" % (max(6, len(n)), n)
                                      for n in names))
    sums = [0.0] * len(names)
    with tempfile.TemporaryDirectory() as d:
        for path in csvs:
            rows = read(path)
            name = os.path.basename(path).split("_")[0]
            out = []
            for k, s in enumerate(names):
                r = random.Random(k * 7919 + 1)
                t = 0.0
                log = os.path.join(d, "x.log")
                with open(log, "w", encoding="utf-8") as f:
                    for c, _ in rows:
                        t += r.expovariate(1 / 0.7)
                        f.write(STYLES[s](r, t) + c + "\n")
                if show == s:
                    with open(log) as f:
                        sys.stderr.write("".join(f.readlines()[:5]))
                pred = subprocess.run([tmpl, log], capture_output=True,
                                      text=True, check=True).stdout.split()
                g = ga(pred, [e for _, e in rows])
                sums[k] += g
                out.append(" %*.3f" % (max(6, len(s)), g))
            print("%-10s" % name + "".join(out))
    print("%-10s" % "mean" + "".join(" %*.3f" % (max(6, len(n)), x / len(csvs))
                                      for n, x in zip(names, sums)))


if __name__ == "__main__":
    main()
