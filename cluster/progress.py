"""Progress of a long run, counted in hands: a tqdm bar on a terminal (rate and ETA), plain log
lines every few seconds when stderr is not a terminal (CI logs, ``ray job logs``), nothing when
disabled."""

from __future__ import annotations

import sys
import time
from typing import TextIO


def measure_peak_rss_mb() -> float | None:
    """This process's peak resident memory in MB (None where the platform cannot say)."""
    try:
        import resource

        kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    except (ImportError, OSError):
        return None
    return round(kb / (1024 * 1024) if sys.platform == "darwin" else kb / 1024, 1)


def _fmt_seconds(s: float) -> str:
    s = int(round(s))
    h, rem = divmod(s, 3600)
    m, sec = divmod(rem, 60)
    return f"{h}:{m:02d}:{sec:02d}" if h else f"{m:d}:{sec:02d}"


class Progress:
    """``update(hands)`` after each batch; ``close()`` at the end (or use as a context manager).

    ``done`` hands were already on disk when the run started (resume): they count toward the total
    but not toward the rate.
    """

    def __init__(self, total: int, *, done: int = 0, enabled: bool = True, desc: str = "hands",
                 stream: TextIO | None = None, interval: float = 5.0) -> None:
        self.total = total
        self.count = done
        self._start_count = done
        self._stream = stream or sys.stderr
        self._interval = interval
        self._t0 = time.monotonic()
        self._last_log = self._t0
        self._desc = desc
        self._bar = None
        self._enabled = enabled
        if not enabled:
            return
        if getattr(self._stream, "isatty", lambda: False)():
            from tqdm import tqdm

            self._bar = tqdm(total=total, initial=done, desc=desc, unit=" hands",
                             unit_scale=True, file=self._stream, dynamic_ncols=True,
                             smoothing=0.1)
        elif done:
            self._log(f"{desc}: resuming, {done:,} of {total:,} hands already done")

    def _log(self, text: str) -> None:
        print(text, file=self._stream, flush=True)

    def rate(self) -> float:
        dt = time.monotonic() - self._t0
        return (self.count - self._start_count) / dt if dt > 0 else 0.0

    def line(self) -> str:
        rate = self.rate()
        left = self.total - self.count
        eta = _fmt_seconds(left / rate) if rate > 0 else "?"
        pct = 100.0 * self.count / self.total if self.total else 100.0
        return (f"{self._desc}: {self.count:,}/{self.total:,} ({pct:.1f}%), "
                f"{rate:,.0f} hands/s, elapsed {_fmt_seconds(time.monotonic() - self._t0)}, "
                f"ETA {eta}")

    def update(self, hands: int) -> None:
        self.count += hands
        if not self._enabled:
            return
        if self._bar is not None:
            self._bar.update(hands)
            return
        now = time.monotonic()
        if now - self._last_log >= self._interval:
            self._last_log = now
            self._log(self.line())

    def note(self, text: str) -> None:
        """A message that must not garble the bar (always printed, even when disabled)."""
        if self._bar is not None:
            self._bar.write(text, file=self._stream)
        else:
            self._log(text)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None
        elif self._enabled and self.count > self._start_count:
            self._log(self.line())
        self._enabled = False

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
