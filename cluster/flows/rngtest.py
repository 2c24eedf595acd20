"""``holdem rng test``: the generator itself through a recognized battery, dieharder (Robert G.
Brown's, a Debian package), reading raw bytes from standard input (``dieharder -g 200``).

Two streams, per ``--stream``:

- ``raw``: the generator's output as the shuffle reads it: for hands d = 0, 1, 2, ... (keys
  ``(seed, d // 1000, d % 1000)``, as ``holdem shuffle``), the first 128 bytes of each hand's deck
  stream (Philox4x64-10 words, or ChaCha20 words under a fresh OS key), little-endian;
- ``draws``: the bounded draws Fisher-Yates took from it, recovered from the decks: the draws
  whose range is a power of two (j in [0, 32), [0, 16), [0, 8), [0, 4), [0, 2): 15 uniform bits
  a deck) packed into a bit stream. A biased bounded draw shows here.

Each dieharder test is one ``dieharder -g 200 -d N`` process fed until it has read enough. The
result (``RUN/rng-certificate.json``) names the battery and its version, the stream, every test
with its p-values and dieharder's assessment; the verdict is PASS when no test FAILED (dieharder
flags p < 1e-6 as FAILED and p < 0.005 as WEAK, which a fair generator shows about 1 time in 100).
Without dieharder the verdict is ``NOT RUN`` and the certificate says the battery was not run.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from audits.runfolder import storage
from reports.certificate import Certificate

if TYPE_CHECKING:
    from audits.sp80022 import NistBattery

BATTERY = "dieharder"
# the tests dieharder rates "Good", less the slowest (17, the GCD test: 8 GB and 90 s here) and
# two that do not run as plain ``-d N`` (200 needs ``-n``; 201 reports p = 0 for every generator
# in dieharder 3.31.1, its own AES_OFB included): about a minute on the raw stream
DEFAULT_TESTS: dict[str, tuple[int, ...]] = {
    "raw": (0, 1, 2, 3, 4, 8, 9, 10, 11, 12, 13, 15, 16, 100, 101, 102, 202, 203, 204, 205),
    # the draws stream carries 15 bits a deck (about 12 MB/s): the tests that read little
    "draws": (0, 4, 8, 10, 11, 12, 15, 100, 101, 102, 204),
}
CHUNK_HANDS = 200_000
_LINE = re.compile(r"^\s*(?P<name>[\w\s]+?)\s*\|\s*(?P<ntup>\d+)\s*\|\s*(?P<tsamples>\d+)\s*\|"
                   r"\s*(?P<psamples>\d+)\s*\|\s*(?P<p>[\d.eE+-]+)\s*\|\s*(?P<a>\w+)")


def dieharder_path() -> str | None:
    return shutil.which("dieharder")


def dieharder_version(exe: str) -> str:
    try:
        r = subprocess.run([exe, "-l"], capture_output=True, text=True, timeout=30, check=False)
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    m = re.search(r"dieharder version ([\d.]+)", r.stdout + r.stderr)
    return m.group(1) if m else "unknown"


def stream_chunks(generator: str, stream: str, seed: int) -> Iterator[bytes]:
    """The bytes to test, chunk after chunk, without end."""
    from sim.chacha import os_key
    from sim.deckgen import chacha_decks, draw_bits, philox_decks, raw_output

    key = os_key()  # one os-chacha20 key for the stream (as one batch of the game)
    start = 0
    while True:
        if stream == "raw":
            yield raw_output(generator, seed, start, CHUNK_HANDS, key)
        else:
            decks = (philox_decks(seed, start, CHUNK_HANDS) if generator == "philox"
                     else chacha_decks(key, start, CHUNK_HANDS))
            yield draw_bits(decks)
        start += CHUNK_HANDS


def parse_output(text: str) -> list[dict[str, Any]]:
    """dieharder's result lines: test name, ntup, tsamples, psamples, p-value, assessment."""
    out = []
    for line in text.splitlines():
        m = _LINE.match(line)
        if m and m.group("name").strip() != "test_name":
            out.append({"name": m.group("name").strip(), "ntup": int(m.group("ntup")),
                        "tsamples": int(m.group("tsamples")),
                        "psamples": int(m.group("psamples")), "p_value": float(m.group("p")),
                        "assessment": m.group("a")})
    return out


def run_one(exe: str, test: int, chunks: Callable[[], Iterator[bytes]],
            timeout: float) -> tuple[list[dict[str, Any]], int]:
    """One dieharder test fed from ``chunks``: (its result lines, bytes fed)."""
    proc = subprocess.Popen([exe, "-g", "200", "-d", str(test)], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    fed = [0]

    def feed() -> None:
        assert proc.stdin is not None
        try:
            for c in chunks():
                proc.stdin.write(c)
                fed[0] += len(c)
        except (BrokenPipeError, OSError, ValueError):
            pass

    th = threading.Thread(target=feed, daemon=True)
    th.start()
    timer = threading.Timer(timeout, proc.kill)  # (communicate() would close stdin at once)
    timer.start()
    try:
        assert proc.stdout is not None
        out = proc.stdout.read()
        proc.wait()
    finally:
        timer.cancel()
    return parse_output(out.decode(errors="replace")), fed[0]


NIST_BITS, NIST_SEQUENCES = 1_000_000, 100  # SP 800-22 (4.2.1): m >= 1 / alpha sequences


def nist_battery(generator: str, stream: str, seed: int, n: int = NIST_BITS,
                 m: int = NIST_SEQUENCES) -> NistBattery:
    """NIST SP 800-22's tests (``audits.sp80022``) on the first ``m`` sequences of ``n`` bits of
    the stream dieharder reads; when an entry fails, the battery runs again on the next ``m``
    sequences (``retest``), and only an entry failing both fails (``confirmed_failures``)."""
    from dataclasses import replace

    from audits.sp80022 import battery

    need = n * m // 8
    buf = bytearray()
    chunks = stream_chunks(generator, stream, seed)
    for chunk in chunks:
        buf += chunk
        if len(buf) >= need:
            break
    first = battery(bytes(buf[:need]), n, m)
    if not first.failed:
        return first
    for chunk in chunks:
        if len(buf) >= 2 * need:
            break
        buf += chunk
    return replace(first, retest=battery(bytes(buf[need:2 * need]), n, m))


RNG_CERTIFICATE = "rng-certificate.json"
RNG_SIGNATURE = "rng-certificate.sig"  # Ed25519 of rng-certificate.json's bytes (--sign-key)


def rng_test(generator: str, out: str | os.PathLike[str], *, stream: str = "raw", seed: int = 1,
             tests: tuple[int, ...] | None = None, timeout: float = 600.0,
             say: Callable[[str], None] = print, sign_key: str | None = None,
             lab: dict[str, Any] | None = None) -> Certificate:
    """Run the battery and write ``rng-certificate.json`` into ``out`` (and, with
    ``sign_key``, its Ed25519 signature ``rng-certificate.sig``: the key is loaded before the
    battery runs; without one a stale signature is removed); returns it. ``lab``: a
    laboratory's fields (``reports.lab``), carried as ``lab`` (bound by the signature)."""
    from cluster.flows.signing import load_private_key, write_signature

    key = None if sign_key is None else load_private_key(sign_key)
    exe = dieharder_path()
    tests = DEFAULT_TESTS[stream] if tests is None else tests
    cert: dict[str, Any] = {
        "format": "holdem-rng-certificate", "version": 1, "generator": generator,
        "stream": stream, "seed": seed if generator == "philox" else None,
        "stream_text": (__doc__ or "").split("Two streams, per ``--stream``:")[1].split(
            "Each dieharder")[0].strip(),
        "battery": {"name": BATTERY, "version": None, "run": False, "tests": []},
        **({"lab": lab} if lab else {}),
    }
    t0 = time.perf_counter()
    if exe is None:
        cert["verdict"] = "NOT RUN"
        cert["verdict_text"] = ("NOT RUN: dieharder is not installed (apt-get install "
                                "dieharder); the battery was not run and nothing is certified")
    else:
        cert["battery"].update({"version": dieharder_version(exe), "run": True,
                                "command": "dieharder -g 200 -d N (raw bytes on stdin)"})
        fed_total = 0
        for t in tests:
            rows, fed = run_one(exe, t, lambda: stream_chunks(generator, stream, seed), timeout)
            fed_total += fed
            if not rows:
                rows = [{"name": f"test {t}", "assessment": "NO RESULT", "p_value": None}]
            for r in rows:
                r["test"] = t
                say(f"{t:>4} {r['name']:<28} p = {r['p_value']}  {r['assessment']}")
            cert["battery"]["tests"].extend(rows)
        res = cert["battery"]["tests"]
        failed = [r for r in res if r["assessment"] in ("FAILED", "NO RESULT")]
        weak = [r for r in res if r["assessment"] == "WEAK"]
        cert["battery"]["bytes_fed"] = fed_total
        cert["verdict"] = "FAIL" if failed else "PASS"
        cert["verdict_text"] = (f"{cert['verdict']}: {len(res)} results of {len(tests)} "
                                f"dieharder tests, {len(failed)} FAILED, {len(weak)} WEAK "
                                "(about 1 in 100 expected WEAK for a fair generator)")
    nist = nist_battery(generator, stream, seed, NIST_BITS, NIST_SEQUENCES)
    cert["nist"] = nist.to_dict()
    failed_nist = nist.confirmed_failures
    ran = ("its 15 tests" if nist.implemented == 15 else f"{nist.implemented} of its 15 tests")
    cert["verdict_text"] += (f"; NIST SP 800-22 ({ran}, {len(nist.tests)} P-values a sequence, "
                             f"on {nist.sequences} sequences of {nist.bits:,} bits): "
                             + (f"FAILED {', '.join(failed_nist)} (and again on the next "
                                f"{nist.sequences} sequences)" if failed_nist else
                                "every test within the acceptable proportion (4.2.1) with "
                                "uniform P-values (4.2.2)"
                                + (f"; {', '.join(nist.failed)} fell below on the first "
                                   f"{nist.sequences} sequences and passed on the next "
                                   f"{nist.sequences} (chance among {len(nist.tests)} entries)"
                                   if nist.failed else "")))
    if failed_nist:
        cert["verdict"] = "FAIL"
    cert["seconds"] = round(time.perf_counter() - t0, 1)
    cert["issued"] = datetime.now(UTC).isoformat(timespec="seconds")
    base = storage.as_location(os.fspath(out))
    fs, path = storage.split(base)
    fs.create_dir(path, recursive=True)
    raw = json.dumps(cert, indent=2).encode()
    storage.write_atomic(storage.join(base, RNG_CERTIFICATE), raw)
    write_signature(base, RNG_SIGNATURE, key, raw)
    return Certificate(cert, raw)
