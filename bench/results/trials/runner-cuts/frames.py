"""Inclusive CPU ms a task of chosen frames, all runner threads, per run (async-profiler's
collapsed stacks in RUN/ap/*.txt, 1 ms samples, 3,003 tasks a run):
    python bench/results/trials/runner-cuts/frames.py WORKDIR FRAME_SUFFIX...
WORKDIR holds the runs <variant>-<round>; a frame matches when its name ends with a suffix."""
import collections
import glob
import os
import sys

TASKS = 3003
work, frames = sys.argv[1], sys.argv[2:]
for run in sorted(glob.glob(work + "/*-*"), key=lambda p: (p.rsplit("-", 1)[1], p)):
    inc = collections.Counter()
    total = 0
    for f in glob.glob(run + "/ap/*.txt"):
        for line in open(f):
            stack, _, n = line.rstrip().rpartition(" ")
            total += int(n)
            names = set(stack.split(";")[1:])
            for fr in frames:
                if any(x.endswith(fr) for x in names):
                    inc[fr] += int(n)
    print(os.path.basename(run).ljust(8), f"{total / TASKS:6.2f}",
          " ".join(f"{inc[fr] / TASKS:6.3f}" for fr in frames))
print("columns: run, all samples", " ".join(f.split("/")[-1] for f in frames))
