"""``python -m cluster.cli``: the ``holdem`` command."""

import sys

from cluster.cli import main

sys.exit(main())
