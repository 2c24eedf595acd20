"""The shuffle certificate's audit of decks alone: the uniformity battery, the re-derivation of
each deck from its key, and the collision tests over any number of decks in flat memory.

Map (one batch of decks, on a worker): ``audit_batch`` runs the battery's map (the counts of
``audits.uniformity.map_decks``) and, for a keyed log, the re-derivation of
``audits.keyed.check_keyed``, both in one compiled pass over the decks (``audits.deckpass``);
the batch's collision keys (first-9 key, 64-bit deck hash, deck number), grouped by their first
two cards in the same pass, are spilled to a key file, so the partial sent back holds counts
only (about 70 KB whatever the batch size).

Reduce (the driver): the first-9 keys are split into ``P`` ranges (``P`` so that one range's keys
fit ``memory`` bytes); each range is gathered from every key file (a binary search in each
grouped file) and counted alone (``audits.uniformity.collision_counts``). Equal keys fall in the
same range, so the counts add up: the driver holds one range at a time, flat in the run's size.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from audits.deckpass import GROUP, GROUPS, KEY_DTYPE, deck_pass
from audits.result import MAX_EXAMPLES, AuditResult
from audits.runfolder import storage
from audits.seats import merge as merge_seats
from audits.uniformity import (
    KEY_BYTES,
    CollisionCounts,
    N,
    UniformityPartial,
    collision_counts,
    key_partitions,
    uniformity_reduce,
)


@dataclass
class BatchAudit:
    """What a worker sends back for one batch of decks."""

    partial: UniformityPartial  # counts; the collision keys are in ``keys``
    keys: str  # the batch's key file (grouped by first two cards)
    decks: int = 0
    keyed_checked: int = 0
    keyed_failures: int = 0
    keyed_examples: list[int] = field(default_factory=list)


def write_keys(path: storage.Location, partial: UniformityPartial) -> None:
    """The partial's collision keys as one .npy file (atomic), grouped by their first two cards
    (``first_k // 52^7``, a stable radix sort): a key range made of whole groups is one slice."""
    keys = np.empty(partial.first_k.size, KEY_DTYPE)
    order = np.argsort((partial.first_k // GROUP).astype(np.int16), kind="stable")
    keys["first_k"] = partial.first_k[order]
    keys["deck_hash"] = partial.deck_hash[order]
    keys["hand_id"] = partial.hand_ids[order]
    save_keys(path, keys)


def save_keys(path: storage.Location, keys: np.ndarray) -> None:
    """Grouped keys (``KEY_DTYPE``) as one .npy file, written atomically."""
    buf = io.BytesIO()
    np.save(buf, keys, allow_pickle=False)
    fs, where = storage.split(path)
    fs.create_dir(where.rpartition("/")[0], recursive=True)
    storage.write_atomic(path, buf.getvalue())


def read_keys(path: storage.Location) -> np.ndarray:
    """A key file (memory-mapped when local: a range read touches only its pages)."""
    if not storage.is_uri(path):
        return np.load(path, mmap_mode="r", allow_pickle=False)
    return np.load(io.BytesIO(storage.read_bytes(path)), allow_pickle=False)


def audit_batch(decks: np.ndarray, hand_ids: np.ndarray, seed: int | None,
                keys_path: storage.Location) -> BatchAudit:
    """Battery map and (``seed`` given: a philox deck-only log) re-derivation of one batch;
    the collision keys go to ``keys_path``."""
    r = deck_pass(decks, hand_ids, seed)
    save_keys(keys_path, r.keys)
    return BatchAudit(r.partial, str(keys_path), decks=int(decks.shape[0]),
                      keyed_checked=r.keyed_checked, keyed_failures=r.keyed_failures,
                      keyed_examples=r.keyed_examples)


def range_counts(key_files: Sequence[storage.Location], part: int,
                 parts: int) -> CollisionCounts:
    """The collision tests over key range ``part`` of ``parts`` of every key file: the groups
    (first two cards) ``GROUPS * part // parts`` up to the next range's. Each file is grouped
    in ascending order, so a binary search at a group's first key finds its start."""
    lo = GROUPS * part // parts * GROUP
    hi = GROUPS * (part + 1) // parts * GROUP
    keys = []
    for path in key_files:
        k = read_keys(path)
        a, b = np.searchsorted(k["first_k"], [lo, hi])
        sl = np.array(k[a:b])  # a copy: the map is released
        keys.append((sl["first_k"], sl["deck_hash"], sl["hand_id"]))
        del k
    return collision_counts(keys)


@dataclass
class DeckTally:
    """The driver's running sum of batch audits: counts folded as they arrive (flat memory),
    the per-batch card/position p-values (for the KS test) and the key files."""

    counts: UniformityPartial = field(default_factory=UniformityPartial)
    batch_p: list[float] = field(default_factory=list)
    key_files: list[str] = field(default_factory=list)
    decks: int = 0
    keyed_checked: int = 0
    keyed_failures: int = 0
    keyed_examples: list[int] = field(default_factory=list)

    def add(self, b: BatchAudit) -> None:
        c, p = self.counts, b.partial
        c.decks += p.decks
        c.invalid += p.invalid
        c.invalid_examples = (c.invalid_examples + p.invalid_examples)[:MAX_EXAMPLES]
        c.card_position += p.card_position
        c.adjacent += p.adjacent
        c.consecutive += p.consecutive
        c.hand_classes += p.hand_classes
        if p.dealt:
            c.dealt = ([merge_seats([a, b]) for a, b in zip(c.dealt, p.dealt, strict=True)]
                       if c.dealt else p.dealt)
        if p.batch_p is not None:
            self.batch_p.append(float(p.batch_p))
        self.key_files.append(b.keys)
        self.decks += b.decks
        self.keyed_checked += b.keyed_checked
        self.keyed_failures += b.keyed_failures
        self.keyed_examples = (self.keyed_examples + b.keyed_examples)[:MAX_EXAMPLES]


def reduce_tally(tally: DeckTally, memory: int, keyed: bool) -> list[AuditResult]:
    """[uniformity (overall), its tests..., rederivation]: the battery with the collision keys
    reduced range by range within ``memory`` bytes, and the keyed re-derivation's result."""
    decks = tally.counts.decks
    parts = min(GROUPS, key_partitions(decks, memory))
    counts = [range_counts(tally.key_files, r, parts) for r in range(parts)]
    # uniformity_reduce takes partition 0's keys in the partials and the counts of the other
    # partitions: here partition 0 is empty (the keys were spilled) and every range is a count
    head = tally.counts
    head.key_partition = (0, parts + 1)
    zero = np.zeros((N, N), np.int64)
    carriers = [UniformityPartial(card_position=zero, adjacent=zero, consecutive=zero,
                                  hand_classes=np.zeros_like(head.hand_classes), batch_p=p,
                                  key_partition=(0, parts + 1)) for p in tally.batch_p]
    results = uniformity_reduce([head, *carriers, *counts])  # its eigh on one BLAS thread
    for r in results:
        r.details["key_ranges"] = parts
        r.details["key_bytes_per_deck"] = KEY_BYTES
    examples = tally.keyed_examples
    results.append(AuditResult(
        name="rederivation", passed=tally.keyed_failures == 0,
        hands_checked=tally.keyed_checked, failures=tally.keyed_failures,
        example_hand_ids=tuple(examples), applicable=keyed and tally.keyed_checked > 0,
        details={"checks": "each deck == the deck re-derived from its seed_key [seed, d // 1000, "
                           "d % 1000] (audits.keyed: Philox4x64-10 and Fisher-Yates from the "
                           "documented text; swaps undone on the logged deck)"}
        if keyed else {"reason": "not applicable: decks not bound to a key (os-chacha20 keys "
                                 "are not recorded; decks from another system)"}))
    return results


def read_deck_file(path: storage.Location, sha256: str) -> tuple[np.ndarray, np.ndarray]:
    """The (n, 52) decks and the deck numbers of one file of a deck-only log, read once: its
    bytes must hash to ``sha256`` (the manifest's), then its ``hand_id`` and ``deck`` columns
    (fixed_size_binary(52): the decks are the column's value buffer, no per-row work)."""
    import hashlib

    import pyarrow as pa
    import pyarrow.parquet as pq

    from audits.decklog import DeckFileError

    data = storage.read_bytes(path)
    got = hashlib.sha256(data).hexdigest()
    if got != sha256:
        raise DeckFileError(f"{path}: sha256 {got[:16]}... does not match the manifest's "
                            f"{sha256[:16]}... (the file changed after it was written)")
    table = pq.read_table(pa.BufferReader(data), columns=["hand_id", "deck"])
    col = table.column("deck").combine_chunks()
    if not pa.types.is_fixed_size_binary(col.type) or col.type.byte_width != N or col.null_count:
        raise DeckFileError(f"{path}: column deck: expected fixed_size_binary(52) without nulls")
    n = len(col)
    decks = np.frombuffer(col.buffers()[1], np.uint8)[col.offset * N:(col.offset + n) * N]
    return decks.reshape(n, N), table.column("hand_id").to_numpy()


def audit_deck_file(path: storage.Location, sha256: str, seed: int | None,
                    keys_path: storage.Location) -> BatchAudit:
    """Audit one file of a deck-only log: ``read_deck_file`` (its sha256 checked), then
    ``audit_batch`` over its decks."""
    decks, ids = read_deck_file(path, sha256)
    return audit_batch(decks, ids, seed, keys_path)
