#!/usr/bin/env python3
"""Hadoop Streaming mapper: one "word<TAB>1" line per word of the input.

Words are whitespace-separated tokens, lower-cased, with surrounding punctuation removed
(so "Hadoop," and "hadoop" are the same word); tokens that are only punctuation are dropped.
Try it without Hadoop:  cat input.txt | python3 mapper.py | sort | python3 reducer.py
"""
import string
import sys


def words(line):
    for token in line.split():
        word = token.strip(string.punctuation).lower()
        if word:
            yield word


def main():
    out = sys.stdout
    for line in sys.stdin:
        for word in words(line):
            out.write(f"{word}\t1\n")


if __name__ == "__main__":
    main()
