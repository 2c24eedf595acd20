"""``holdem verify`` of the certificates that are not a run's: a shuffle certificate (``holdem
shuffle``: the game's own keyed or os-chacha20 decks; ``holdem shuffle audit``: another
system's decks) and an rng-test certificate (``holdem rng test``).

What is checked, in order, the first failure named (exit 1, MISMATCH):

- with ``--public-key``, the signature (``certificate.sig``, ``rng-certificate.sig``) is the
  key's Ed25519 signature of the certificate's exact bytes (the line names the key id); without
  one nothing is authenticated, and a signature left unchecked exits 1 (NOT AUTHENTICATED);
- a shuffle's ``report.html`` is the page the certificate makes (``reports.shuffle``), byte for
  byte;
- the game's decks, kept: every deck file the certificate lists has its sha256, no other deck
  file is there, and the manifest is the certificate's run (its run_id); keyed (philox) decks
  are made again from the manifest's spec and compared byte for byte (``reproduce``: all of
  them, a number: a sample, False: none). os-chacha20 decks cannot be made again: their hashes
  only;
- another system's decks: each file the certificate lists, where it still is at its recorded
  path, has the recorded sha256 (the bytes audited); one that is gone is said, not failed;
- an rng certificate: its fields are of the form ``holdem rng test`` writes; the battery is not
  run again (dieharder takes minutes; the signature binds its results).
"""

from __future__ import annotations

import random
from typing import Any

from audits.runfolder import REPORT_FILES, SIGNATURE_FILE, RunFolder, parse_json, storage
from audits.runfolder.errors import InputError

SHUFFLE_FORMAT = "holdem-shuffle-certificate"
RNG_FORMAT = "holdem-rng-certificate"


class DeckVerifyInputError(InputError):
    """Unusable input (exit 2)."""


def _signed(root: storage.Location, name: str, sig_name: str, data: bytes,
            public_key: str | None) -> tuple[str | None, str | None]:
    """(the key id of a valid signature or None, the failure or None)."""
    from cluster.flows.signing import key_id, load_public_key, signature_valid

    sig = storage.join(root, sig_name)
    if public_key is None:
        return None, None
    key = load_public_key(public_key)
    if not storage.is_file(sig):
        return None, f"{sig}: missing: the certificate is not signed"
    if not signature_valid(key, data, storage.read_bytes(sig)):
        return None, (f"{storage.join(root, name)}: the signature does not verify with "
                      f"{public_key} (key {key_id(key)}): the certificate was altered, or "
                      "signed by another key")
    return key_id(key), None


def _closing(root: storage.Location, sig_name: str, parts: list[str], signer: str | None,
             public_key: str | None) -> tuple[bool, str, str]:
    """(ok, the line, the word of a failing line) once everything else held."""
    if signer is not None:
        parts.append(f"signed by key {signer} ({public_key}): signature valid")
        return True, "; ".join(parts), ""
    if storage.is_file(storage.join(root, sig_name)):
        rest = "; ".join(parts).removeprefix("VERIFIED: ")
        return False, (f"{storage.join(root, sig_name)} is present but was not checked (no "
                       "--public-key): nothing was authenticated; give the signer's public key. "
                       f"Unauthenticated, the rest holds: {rest}"), "NOT AUTHENTICATED"
    parts.append("nothing was authenticated: the certificate is unsigned, so anyone could have "
                 "written this folder (only --public-key with a signed certificate "
                 "authenticates it)")
    return True, "; ".join(parts), ""


def _deck_files(root: storage.Location, cert: dict[str, Any],
                reproduce: bool | int) -> tuple[str | None, str]:
    """(the first mismatch or None, what was checked in words) of a shuffle's deck files."""
    from audits.runfolder import DECK_LABEL, parse_batch_relpath

    src = cert.get("source") or {}
    files = src.get("files") or []
    if src.get("generator") == "external":
        checked, gone = 0, []
        for f in files:
            path = storage.as_location(str(f.get("path")))
            if not storage.is_file(path):
                gone.append(str(f.get("path")))
                continue
            if storage.file_sha256(path)[0] != f.get("sha256"):
                return (f"{f.get('path')}: sha256 is not the one the certificate records: not "
                        "the decks that were audited"), ""
            checked += 1
        text = f"{checked} of {len(files)} deck files audited still have their sha256"
        if gone:
            text += f" ({len(gone)} no longer at their path, e.g. {gone[0]}: not re-checked)"
        return None, text
    if not src.get("decks_kept", True):
        return None, "the decks were not kept (--keep-decks false): no deck file to check"
    folder = RunFolder.open(root)
    manifest = folder.read_manifest({"holdem-shuffle-run"}) or {}
    if manifest.get("run_id") != src.get("run_id"):
        return (f"{folder.location('manifest.json')}: run_id {manifest.get('run_id')!r} is not "
                f"the certificate's {src.get('run_id')!r}"), ""
    listed = {str(f["path"]): f for f in files}
    present = {rel for rel in folder.listing()
               if (parsed := parse_batch_relpath(rel)) is not None and parsed[0] == DECK_LABEL}
    for rel in sorted(present - set(listed)):
        return f"{folder.location(rel)}: a deck file the certificate does not list", ""
    for rel, f in sorted(listed.items()):
        loc = folder.location(rel)
        got = storage.file_sha256(loc)[0] if rel in present else None
        if got != f.get("sha256"):
            return (f"{loc}: {'missing' if got is None else 'edited'}: its sha256 is not the "
                    "one the certificate records"), ""
    text = f"its {len(listed)} deck files match their sha256"
    if src.get("generator") != "philox":
        return None, text + "; os-chacha20 decks: not re-derivable (their keys are not recorded)"
    if reproduce is False:
        return None, text + "; not re-derived (--no-reproduce)"
    return _rederive(folder, manifest, listed, reproduce, text)


def _rederive(folder: RunFolder, manifest: dict[str, Any], listed: dict[str, Any],
              reproduce: bool | int, text: str) -> tuple[str | None, str]:
    """Each (or a sample of) the keyed deck files made again from the manifest's spec and
    compared byte for byte."""
    from cluster.flows.shuffle import ShuffleRunError, ShuffleSpec, deck_relpath, encode_decks
    from sim.deckgen import make_decks

    try:
        spec = ShuffleSpec(**(manifest.get("spec") or {}))
    except (TypeError, ShuffleRunError) as e:
        return f"{folder.location('manifest.json')}: spec: not a shuffle spec ({e})", ""
    plan = [(b, a, n) for b, a, n in spec.plan() if deck_relpath(b) in listed]
    if len(plan) != len(listed):
        return (f"{folder.location('manifest.json')}: the spec plans {len(spec.plan())} deck "
                f"files, the certificate lists {len(listed)}"), ""
    if reproduce is not True:
        plan = random.SystemRandom().sample(plan, min(int(reproduce), len(plan)))
    for b, a, n in plan:
        data = encode_decks(make_decks(spec.generator, spec.seed, a, n, spec.inject), a, spec, b)
        import hashlib

        if hashlib.sha256(data).hexdigest() != listed[deck_relpath(b)].get("sha256"):
            return (f"{folder.location(deck_relpath(b))}: not the decks seed {spec.seed} makes "
                    f"(made again from the spec, the bytes differ)"), ""
    return None, (text + f"; {len(plan)} of {len(listed)} re-derived from seed {spec.seed} "
                  "match byte for byte")


def verify_shuffle(root: storage.Location, data: bytes, cert: dict[str, Any],
                   public_key: str | None, reproduce: bool | int) -> tuple[bool, str, str]:
    """(ok, line, failing word) of a shuffle certificate (see the module docstring)."""
    from reports.shuffle import render_html

    signer, why = _signed(root, REPORT_FILES["certificate"], SIGNATURE_FILE, data, public_key)
    if why:
        return False, why, "MISMATCH"
    page = storage.join(root, REPORT_FILES["html"])
    try:
        made = render_html(cert).encode()
    except (KeyError, TypeError, ValueError, AttributeError) as e:
        raise DeckVerifyInputError(f"{storage.join(root, REPORT_FILES['certificate'])}: not a "
                                   f"shuffle certificate holdem writes ({type(e).__name__}: "
                                   f"{e})") from None
    if not storage.is_file(page) or storage.read_bytes(page) != made:
        return False, (f"{page}: {'missing' if not storage.is_file(page) else 'edited'}: not "
                       "the page this certificate makes"), "MISMATCH"
    why, text = _deck_files(root, cert, reproduce)
    if why:
        return False, why, "MISMATCH"
    parts = [f"VERIFIED: a shuffle certificate of {int(cert.get('decks') or 0):,} decks "
             f"(verdict: {cert.get('verdict_text') or cert.get('verdict')}); report.html is "
             f"its page; {text}{_lab_words(cert)}"]
    return _closing(root, SIGNATURE_FILE, parts, signer, public_key)


def _lab_words(cert: dict[str, Any]) -> str:
    """The laboratory's fields a certificate carries (``--lab``), as the line names them."""
    from reports.lab import lab_rows

    lab = cert.get("lab")
    if not isinstance(lab, dict):
        return ""
    rows = [f"{k} {v}" for k, v in lab_rows(lab) if k in ("certificate number", "standard",
                                                           "client")]
    return "; laboratory fields (as stated, bound by the signature): " + ", ".join(rows)


def verify_rng(root: storage.Location, public_key: str | None) -> tuple[bool, str, str]:
    """(ok, line, failing word) of an rng-test certificate (see the module docstring)."""
    from cluster.flows.rngtest import RNG_CERTIFICATE, RNG_SIGNATURE

    path = storage.join(root, RNG_CERTIFICATE)
    data = storage.read_bytes(path)
    try:
        cert = parse_json(data)
    except (ValueError, UnicodeDecodeError, RecursionError) as e:
        raise DeckVerifyInputError(f"{path}: not valid JSON ({e})") from None
    if not isinstance(cert, dict) or cert.get("format") != RNG_FORMAT or not isinstance(
            cert.get("battery"), dict):
        raise DeckVerifyInputError(f"{path}: not a holdem rng certificate (format "
                                   f"\"{RNG_FORMAT}\" with a battery)")
    signer, why = _signed(root, RNG_CERTIFICATE, RNG_SIGNATURE, data, public_key)
    if why:
        return False, why, "MISMATCH"
    bat = cert["battery"]
    parts = [f"VERIFIED: an rng certificate of {cert.get('generator')} ({cert.get('stream')} "
             f"stream, seed {cert.get('seed')}): {cert.get('verdict_text')}; battery "
             f"{bat.get('name')} {bat.get('version') or ''}".rstrip()
             + f", {len(bat.get('tests') or [])} results (not run again){_lab_words(cert)}"]
    return _closing(root, RNG_SIGNATURE, parts, signer, public_key)
