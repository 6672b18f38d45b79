#!/usr/bin/env python3
# bench-scale-gen.py: the artifacts of tests/bench-scale.sh, generated.
#
#	bench-scale-gen.py N DIR [SEED]
#
# Writes N files DIR/NNNNNNN.txt whose sizes follow a log-normal (median
# about 3 kB, mean about 15 kB, clamped to 100 B .. 2 MB), like command
# output: mostly log lines, some NDJSON, some prose.  Every file starts
# with a line no other file has, so deduplication cannot collapse them.
# One file (the middle one) holds the rare word "quokkafrost" once; the
# word "request" is common (in most log lines).
import math, os, random, sys

n = int(sys.argv[1])
out = sys.argv[2]
rnd = random.Random(int(sys.argv[3]) if len(sys.argv) > 3 else 19)
os.makedirs(out, exist_ok=True)

syll = ["ka", "lo", "mi", "ter", "van", "sol", "pre", "dux", "ri", "bel",
        "qua", "nor", "tis", "ex", "gam", "po", "zen", "ul", "fra", "dim"]
vocab = []
for i in range(3000):
    w = "".join(rnd.choice(syll) for _ in range(rnd.randint(2, 4)))
    vocab.append(w)
# A Zipf-like pick: low indexes are frequent.
def word():
    return vocab[min(int(rnd.paretovariate(1.1)) - 1, len(vocab) - 1)]
levels = ["INFO"] * 12 + ["DEBUG"] * 6 + ["WARN"] * 2 + ["ERROR"]
verbs = ["request", "request", "request", "connect", "flush", "retry"]

def log_line(i, k):
    return ("2026-11-%02d %02d:%02d:%02d.%03d %s worker-%d %s %s %s id=%x "
            "took=%dms status=%d\n" % (
                1 + k % 28, k % 24, i % 60, (i * 7) % 60, i % 1000,
                rnd.choice(levels), rnd.randint(1, 64), rnd.choice(verbs),
                word(), word(), rnd.getrandbits(32), rnd.randint(1, 5000),
                rnd.choice([200, 200, 200, 404, 500])))

def json_line(i, k):
    return ('{"id":%d,"name":"%s","tags":["%s","%s"],"request":{"path":'
            '"/api/%s/%d","ms":%d},"ok":%s}\n' % (
                i, word(), word(), word(), word(), rnd.randint(1, 99999),
                rnd.randint(1, 900), rnd.choice(["true", "false"])))

def text_line(i, k):
    return " ".join(word() for _ in range(rnd.randint(6, 14))) + ".\n"

rare = n // 2
for k in range(n):
    size = int(math.exp(rnd.gauss(math.log(3000), 1.8)))
    size = max(100, min(size, 2 * 1024 * 1024))
    r = rnd.random()
    gen = log_line if r < 0.7 else json_line if r < 0.85 else text_line
    parts = ["artifact %d of %d seed %x\n" % (k, n, rnd.getrandbits(48))]
    got = len(parts[0])
    i = 0
    while got < size:
        line = gen(i, k)
        if k == rare and i == 0:
            line = line.rstrip("\n") + " quokkafrost\n"
        parts.append(line)
        got += len(line)
        i += 1
    with open(os.path.join(out, "%07d.txt" % k), "w") as f:
        f.write("".join(parts))
