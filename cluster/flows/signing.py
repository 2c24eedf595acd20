"""Ed25519 signatures of ``certificate.json`` (the ``cryptography`` library).

Keys are PEM files, as OpenSSL writes them: the private key PKCS#8 (``openssl genpkey -algorithm
ed25519 -out key.pem``), the public key SubjectPublicKeyInfo (``openssl pkey -in key.pem -pubout
-out key.pub``); ``holdem keygen`` writes the same two files. The signature is the 64 raw bytes
of Ed25519 over the exact bytes of certificate.json, in ``certificate.sig`` beside it, so that
``openssl pkeyutl -verify -pubin -inkey key.pub -rawin -in certificate.json -sigfile
certificate.sig`` checks it too.
"""

from __future__ import annotations

import hashlib
import os
import stat
from pathlib import Path
from typing import Any

from audits.runfolder.errors import InputError

MAX_KEY_BYTES = 1 << 16  # a PEM key is a few hundred bytes: a larger file is not one


class SigningKeyError(InputError):
    """An unusable key file (named in the message): exit 2."""


def _read(path: str | Path, what: str) -> bytes:
    """A key file's bytes; only a regular file, reached directly or through links (a secret
    mounted by Kubernetes is a link), never a pipe or device, which would block the reader
    forever or never end: checked before opening, opened without blocking and checked again."""
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            raise SigningKeyError(f"{what} {path}: not a regular file; give the key file itself")
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
        with os.fdopen(fd, "rb") as f:
            if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
                raise SigningKeyError(f"{what} {path}: not a regular file; give the key file "
                                      "itself")
            return f.read(MAX_KEY_BYTES + 1)
    except OSError as e:
        raise SigningKeyError(f"{what} {path}: cannot read it ({e.strerror or e})") from None


def _load_pem(path: str | Path, what: str, form: str, load: Any, want: type) -> Any:
    """The Ed25519 key of a PEM file: ``load`` parses the bytes, ``want`` is the key class;
    one line (SigningKeyError) naming ``what`` and ``path`` when it is not."""
    data = _read(path, what)  # its own one-line error, not wrapped in the next one
    try:
        key = load(data)
    except (ValueError, TypeError) as e:
        raise SigningKeyError(f"{what} {path}: not {form} "
                              f"({str(e).splitlines()[0] if str(e) else type(e).__name__})"
                              ) from None
    if not isinstance(key, want):
        raise SigningKeyError(f"{what} {path}: not an Ed25519 key ({type(key).__name__})")
    return key


def refuse_shared_key(path: str | Path) -> None:
    """SigningKeyError (one line) when the private key file is readable, or writable, by group
    or others (issue 33): whoever else can read it signs as the lab."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return  # _read names what is wrong with the file
    if stat.S_ISREG(mode) and mode & 0o077:
        raise SigningKeyError(f"signing key {path}: readable by group or others (mode "
                              f"{mode & 0o777:o}): a signing key must be its owner's alone; "
                              f"chmod 600 {path} (or sign with a key nobody else can read)")


def load_private_key(path: str | Path) -> Any:
    """An Ed25519 private key from a PEM file (PKCS#8, unencrypted), only when no one but its
    owner can read it (``refuse_shared_key``)."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
    from cryptography.hazmat.primitives.serialization import load_pem_private_key

    refuse_shared_key(path)
    return _load_pem(path, "signing key", "an unencrypted PEM private key",
                     lambda data: load_pem_private_key(data, password=None), Ed25519PrivateKey)


def load_public_key(path: str | Path) -> Any:
    """An Ed25519 public key from a PEM file (SubjectPublicKeyInfo)."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
    from cryptography.hazmat.primitives.serialization import load_pem_public_key

    return _load_pem(path, "public key", "a PEM public key", load_pem_public_key,
                     Ed25519PublicKey)


def key_id(public_key: Any) -> str:
    """A short name of a public key: the first 16 hex digits of the sha256 of its raw bytes."""
    from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

    raw = public_key.public_bytes(Encoding.Raw, PublicFormat.Raw)
    return hashlib.sha256(raw).hexdigest()[:16]


def sign(private_key: Any, data: bytes) -> bytes:
    return bytes(private_key.sign(data))


def signature_valid(public_key: Any, data: bytes, signature: bytes) -> bool:
    from cryptography.exceptions import InvalidSignature

    try:
        public_key.verify(signature, data)
    except InvalidSignature:
        return False
    return True


def keygen(out: str | Path) -> tuple[Path, Path]:
    """Write a new key pair: ``out`` (the private key, PEM PKCS#8, mode 0600) and ``out.pub``
    (the public key). Refuses to overwrite either."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
    from cryptography.hazmat.primitives.serialization import (
        Encoding,
        NoEncryption,
        PrivateFormat,
        PublicFormat,
    )

    priv, pub = Path(out), Path(f"{out}.pub")
    for p in (priv, pub):
        if p.exists():
            raise SigningKeyError(f"{p}: already exists; choose another name")
    key = Ed25519PrivateKey.generate()
    pem = key.private_bytes(Encoding.PEM, PrivateFormat.PKCS8, NoEncryption())
    try:
        fd = os.open(priv, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "wb") as f:
            f.write(pem)
        pub.write_bytes(key.public_key().public_bytes(Encoding.PEM,
                                                      PublicFormat.SubjectPublicKeyInfo))
    except OSError as e:
        raise SigningKeyError(f"{out}: cannot write the key pair ({e.strerror or e})") from None
    return priv, pub


def write_signature(folder: Any, name: str, private_key: Any, data: bytes) -> None:
    """Beside a certificate just written (``data``, its exact bytes): its signature ``name``
    in the folder (a path or URI) by ``private_key``; with no key, a stale signature there is
    removed (it would not match the new certificate)."""
    from audits.runfolder import storage

    loc = storage.join(storage.as_location(folder), name)
    if private_key is not None:
        storage.write_atomic(loc, sign(private_key, data))
    elif storage.is_file(loc):
        fs, path = storage.split(loc)
        fs.delete_file(path)
