"""``python -m audits.provenance [--check]``: the command that stamps the commit into
``audits/build_info.json`` (the cluster docs, the Dockerfile and the configs run it). The code
is ``audits.runfolder.provenance``; this module is only its entry point."""

from __future__ import annotations

import sys

from audits.runfolder.provenance import main

__all__ = ["main"]

if __name__ == "__main__":
    sys.exit(main())
