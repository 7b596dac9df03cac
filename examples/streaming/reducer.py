#!/usr/bin/env python3
"""Hadoop Streaming reducer (and combiner): sums the counts of each word.

Its input is "word<TAB>count" lines sorted by word, so all lines of one word are adjacent.
Its output has the same form, so it also serves as the combiner.
"""
import sys


def main():
    current, total = None, 0
    out = sys.stdout
    for line in sys.stdin:
        word, _, count = line.rstrip("\n").partition("\t")
        if word != current:
            if current is not None:
                out.write(f"{current}\t{total}\n")
            current, total = word, 0
        total += int(count)
    if current is not None:
        out.write(f"{current}\t{total}\n")


if __name__ == "__main__":
    main()
