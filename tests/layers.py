#!/usr/bin/env python3
#
# layers.py: check libofl's architecture against the layer table in
# src/lib/README.  Reads `nm -A` of the library and prints one line per
# violation:
#
#   up A -> B       module A calls module B of a higher layer
#   cycle A B ...   modules that call each other around a loop
#   unknown A       a module the table does not place
#   sql A           a module outside the store refers to sqlite3
#   libpq A         a module other than store-pg* refers to libpq
#   lines F N       a library file over the line limit
#   function F:L NAME N   a function (library or front-end) over the limit
#
# The exceptions the table lists (lines "allow ...") are skipped.  Exit
# status 0 when nothing is wrong, 1 otherwise, 2 on bad usage.

import collections
import os
import re
import subprocess
import sys

FILE_MAX = 1500
FUNC_MAX = 150


def read_table(path):
    layers, allow = [], set()
    for line in open(path, encoding="utf-8"):
        m = re.match(r"^    layer (\w+):\s*(.*)$", line)
        if m:
            layers.append((m.group(1), m.group(2).split()))
            continue
        m = re.match(r"^    allow (.*)$", line)
        if m:
            allow.add(m.group(1).strip())
    return layers, allow


def layer_of(mod, layers):
    for i, (_, pats) in enumerate(layers):
        for p in pats:
            if p.endswith("*") and mod.startswith(p[:-1]) or mod == p:
                return i
    return None


def module_graph(lib):
    out = subprocess.run(["nm", "-A", lib], capture_output=True,
                         text=True, check=True).stdout
    defs, uses = {}, collections.defaultdict(set)
    for line in out.splitlines():
        m = re.match(r"^.*?\.a:([^:]+\.o):\s*(.*)$", line)
        if m is None:
            continue
        obj, rest = m.group(1), m.group(2)
        mod = re.sub(r"^[a-z_]+_a-", "", obj)
        mod = re.sub(r"\.o$", "", mod)
        f = rest.split()
        if len(f) == 3 and f[1] in "TDBRVW":
            defs[f[2]] = mod
        elif len(f) == 2 and f[0] == "U":
            uses[mod].add(f[1])
        uses.setdefault(mod, set())
    graph = {m: set() for m in uses}
    for m, syms in uses.items():
        for s in syms:
            d = defs.get(s)
            if d is not None and d != m:
                graph[m].add(d)
    return graph, uses


def cycles(graph):
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def long_functions(path):
    lines = open(path, encoding="utf-8", errors="replace").read().split("\n")
    name, start = None, None
    for i, l in enumerate(lines):
        if l == "{":
            j = i - 1
            while j > 0 and not re.match(r"^\w+\(", lines[j]):
                j -= 1
            m = re.match(r"^(\w+)\(", lines[j])
            name, start = (m.group(1) if m else "?"), i
        elif l == "}" and start is not None:
            if i - start > FUNC_MAX:
                yield start + 1, name, i - start
            start = None


def main():
    if len(sys.argv) != 3:
        print("usage: layers.py SRCDIR LIBOFL.A", file=sys.stderr)
        return 2
    srcdir, lib = sys.argv[1], sys.argv[2]
    layers, allow = read_table(os.path.join(srcdir, "src/lib/README"))
    if not layers:
        print("layers.py: no layer table in src/lib/README",
              file=sys.stderr)
        return 2
    store = [i for i, (n, _) in enumerate(layers) if n == "store"]
    bad = []
    graph, uses = module_graph(lib)
    for m in sorted(graph):
        lm = layer_of(m, layers)
        if lm is None:
            bad.append("unknown %s" % m)
            continue
        for d in sorted(graph[m]):
            ld = layer_of(d, layers)
            if ld is not None and ld > lm:
                bad.append("up %s -> %s" % (m, d))
        if lm not in store and any(s.startswith("sqlite3")
                                   for s in uses[m]):
            bad.append("sql %s" % m)
        if not m.startswith("store-pg") and any(s.startswith("PQ")
                                                for s in uses[m]):
            bad.append("libpq %s" % m)
    for c in cycles(graph):
        bad.append("cycle " + " ".join(c))
    libdir = os.path.join(srcdir, "src/lib")
    for f in sorted(os.listdir(libdir)):
        if not f.endswith(".c"):
            continue
        path = os.path.join(libdir, f)
        text = open(path, encoding="utf-8", errors="replace").read()
        n = text.count("\n")
        lf = layer_of(f[:-2], layers)
        if lf is not None and lf not in store and "sqlite3" in text:
            bad.append("sql %s" % f)
        if not f.startswith("store-pg") and "libpq-fe.h" in text:
            bad.append("libpq %s" % f)
        if n > FILE_MAX and "lines %s" % f not in allow:
            bad.append("lines %s %d" % (f, n))
        for at, name, k in long_functions(path):
            if "function %s" % name not in allow:
                bad.append("function %s:%d %s %d" % (f, at, name, k))
    for f in sorted(os.listdir(os.path.join(srcdir, "src"))):
        if f.endswith(".c"):
            path = os.path.join(srcdir, "src", f)
            if re.search(r"sqlite3", open(path, encoding="utf-8").read()):
                bad.append("sql %s" % f[:-2])
            for at, name, k in long_functions(path):
                if "function %s" % name not in allow:
                    bad.append("function %s:%d %s %d" % (f, at, name, k))
    for b in bad:
        print(b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
