"""Input data: generated text for wordcount (cached under bench/work/data)."""

from __future__ import annotations

import random
from pathlib import Path

from hambench.util import WORK, log

WORDS_SEED = 5


def _vocabulary(rng: random.Random, n: int = 20000) -> list[str]:
    letters = "abcdefghijklmnopqrstuvwxyz"
    return ["".join(rng.choices(letters, k=rng.randint(2, 10))) for _ in range(n)]


def wordcount_input(total_mb: int, files: int) -> Path:
    """`files` text files of about total_mb MiB in all, Zipf-like word frequencies."""
    d = WORK / "data" / f"wc-{total_mb}mb-{files}f"
    done = d / "_DONE"
    if done.is_file():
        return d / "in"
    log(f"generating {total_mb} MiB of text in {files} files under {d}")
    rng = random.Random(WORDS_SEED)
    vocab = _vocabulary(rng)
    weights = [1.0 / (i + 1) for i in range(len(vocab))]
    chunks = []
    for _ in range(16):  # 16 distinct 1 MiB blocks, written in random order
        words = rng.choices(vocab, weights=weights, k=190_000)
        lines = [" ".join(words[i:i + 12]) for i in range(0, len(words), 12)]
        chunks.append(("\n".join(lines) + "\n").encode()[: 1 << 20])
    (d / "in").mkdir(parents=True, exist_ok=True)
    per_file = max(1, total_mb // files)
    for f in range(files):
        with (d / "in" / f"part-{f:03d}.txt").open("wb") as out:
            for _ in range(per_file):
                block = chunks[rng.randrange(len(chunks))]
                cut = block.rfind(b"\n") + 1
                out.write(block[:cut])
    done.write_text("ok\n")
    return d / "in"


def oneline_files(n: int) -> Path:
    """n files of one line each: wordcount over them has n input splits, so n maps on every
    system (the local runner too, whose framework sets mapreduce.job.maps to 1)."""
    d = WORK / "data" / f"lines-{n}"
    done = d / "_DONE"
    if done.is_file():
        return d / "in"
    log(f"writing {n} one-line files under {d}")
    (d / "in").mkdir(parents=True, exist_ok=True)
    for i in range(n):
        (d / "in" / f"l{i:05d}.txt").write_text(f"line {i} of {n} word{i % 97} words\n")
    done.write_text("ok\n")
    return d / "in"
