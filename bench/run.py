#!/usr/bin/env python3
"""HAM benchmark suite: `bash bench/run.sh [--quick] [options]` (see bench/README.md)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from hambench.cli import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
