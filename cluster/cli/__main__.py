"""``python -m cluster.cli``: the ``holdem`` command."""

import sys

from cluster.cli import main

if __name__ == "__main__":  # imported (e.g. by the warmup's module walk), it runs nothing
    sys.exit(main())
