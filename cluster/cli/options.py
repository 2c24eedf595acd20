"""The options several commands share, each defined once, and the few values made of them.

A handler raises ``UsageError`` (an ``InputError``) for a bad combination of options; ``main``
prints every ``InputError`` as one line and exits 2.
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from audits.runfolder.errors import InputError

if TYPE_CHECKING:
    from sim.runspec import RunSpec

RESUME = " (rerun the command to resume)"
ADDRESS_HELP = ("join the Ray cluster at this address (default: $RAY_ADDRESS, else an embedded "
                "local Ray)")
GENERATORS = ["philox", "os-chacha20"]
POPULATIONS = ["default", "classic"]


class UsageError(InputError):
    """Options that do not go together (one line, exit 2)."""


@contextmanager
def as_input(*types: type[BaseException]) -> Iterator[None]:
    """Re-raise an exception of ``types`` (a third party's, or a plain ValueError of code that
    knows nothing of the CLI) as a ``UsageError`` with its first line."""
    try:
        yield
    except InputError:
        raise
    except types as e:
        raise UsageError(str(e).splitlines()[0] if str(e) else type(e).__name__) from None


def handler(p: argparse.ArgumentParser, func: Any, *, output: str | None = None,
            fail_hint: Any = "", error_prefix: str = "holdem: error: ",
            lock: str | None = None, shared: bool = False) -> None:
    """Register ``func`` as the command's handler, with how ``main`` reports its errors:
    ``output`` names the option whose folder an OSError concerns (one line, exit 2), and
    ``fail_hint`` (a string, or a function of the arguments) follows a failed check's line.
    ``lock`` names the argument whose run folder the command holds for its whole run
    (``audits.runfolder.lock``: exclusive, or ``shared`` for a reader; a writer of ``output``
    makes the folder first)."""
    p.set_defaults(handler=func, output=output, fail_hint=fail_hint, error_prefix=error_prefix,
                   lock=lock, lock_shared=shared)


def add_address(p: argparse.ArgumentParser) -> None:
    p.add_argument("--address", default=None, help=ADDRESS_HELP)


def add_workers(p: argparse.ArgumentParser, help: str | None = None) -> None:
    p.add_argument("--workers", type=integer, default=None,
                   help=help or "CPUs of the local Ray (default: all), or the most tasks at "
                                "once on a cluster; 0 runs in this process without Ray")


def add_ray_options(p: argparse.ArgumentParser, what: str | None = None) -> None:
    """``--workers`` and ``--address`` (``what``: the work they run, for the help)."""
    add_workers(p, None if what is None else
                f"CPUs of the local Ray for {what} (default: all; a run of 2 batch files or "
                "fewer: this process), or the most tasks at once on a cluster; 0 runs in this "
                "process without Ray")
    add_address(p)


def add_generator(p: argparse.ArgumentParser) -> None:
    p.add_argument("--generator", default="philox", choices=GENERATORS,
                   help="the deck generator: philox (keyed by the seed: reproducible) or "
                        "os-chacha20 (keyed from the operating system's entropy: not "
                        "reproducible)")


def add_quiet(p: argparse.ArgumentParser) -> None:
    p.add_argument("--quiet", action="store_true", help="no progress output")


def add_key_memory(p: argparse.ArgumentParser) -> None:
    p.add_argument("--key-memory", type=integer, default=None, metavar="MB",
                   help="driver memory for the collision tests' per-deck keys (34 B a deck; "
                        "default: a quarter of this machine's RAM or container memory limit); "
                        "a larger run is reduced in "
                        "hash partitions, one extra pass over the deck column each")


def add_sign_key(p: argparse.ArgumentParser, cert: str = "certificate.json") -> None:
    p.add_argument("--sign-key", default=None, metavar="KEY",
                   help=f"sign {cert} with this Ed25519 private key (PEM; `holdem keygen`): "
                        f"the signature goes to {cert.removesuffix('.json')}.sig; `holdem "
                        "verify RUN --public-key KEY.pub` checks it")


def add_lab(p: argparse.ArgumentParser) -> None:
    p.add_argument("--lab", default=None, metavar="FILE.toml",
                   help="a testing laboratory's fields (client, system, version, submitted, "
                        "standard, clauses, audits (the clauses each audit answers), "
                        "certificate_number, signer, rng; reports/lab.py): printed on the "
                        "page, in the certificate's JSON (so bound by the signature)")


def lab_arg(args: argparse.Namespace) -> dict[str, Any] | None:
    """The fields of ``--lab FILE.toml`` (None without it), read before any work."""
    from reports.lab import read_lab

    path = getattr(args, "lab", None)
    return None if path is None else read_lab(path)


def add_suspects(p: argparse.ArgumentParser, *, alias: bool = False) -> None:
    """``--suspects FILE`` (``holdem audit`` also as ``--players FILE``; certify's
    ``--players`` is the seats per table)."""
    names = ("--suspects", "--players") if alias else ("--suspects",)
    p.add_argument(*names, dest="suspects", default=None, metavar="FILE",
                   help="a lab's list of suspect players, one player id (or, for an imported "
                        "run, name as the run stores it) a line: the deal tests add targeted "
                        "forms for them (their pairs, hand bands and run-out luck; "
                        "audits/players.py) and audit.json and the certificate record the "
                        "list's sha256")


def suspects_arg(args: argparse.Namespace) -> Any:
    """The ``audits.players.PlayerList`` of ``--suspects FILE`` (None without it), read before
    any work (every entry a name keyed by ``--hash-names`` when given)."""
    from audits.players import read_players

    path = getattr(args, "suspects", None)
    return None if path is None else read_players(path, name_key(args))


def add_no_reproduce(p: argparse.ArgumentParser, text: str) -> None:
    p.add_argument("--no-reproduce", action="store_true",
                   help=text + " (by default, for a run of the reproducible generator, "
                        "every batch the spec plans is simulated again and compared with its "
                        "file byte for byte: a batch that differs fails, naming its first "
                        "differing hand)")


def add_sources(p: argparse.ArgumentParser) -> None:
    p.add_argument("--sources", default=None, metavar="DIR",
                   help="an imported run: a folder holding its source files (found by sha256) "
                        "when they are not at the paths the manifest records; they are imported "
                        "again and compared with the run's files")
    p.add_argument("--hash-names", default=None, metavar="KEYFILE",
                   help="an imported run whose player names were hashed: the key (--hash-names "
                        "of the import) needed to import its sources again")


def add_import_options(p: argparse.ArgumentParser, paths: bool = True) -> None:
    """The options of an import (``holdem import``, ``phh import``, ``certify --import``)."""
    if paths:
        p.add_argument("paths", nargs="+", help="hand history files or folders (searched "
                                                "recursively): local paths or URIs")
        p.add_argument("--out", required=True, help="the run folder to write (a path or a URI)")
    p.add_argument("--rake", default=None, metavar="PCT:CAP",
                   help="the operator's rake schedule: PCT percent of the pot, at most CAP "
                        "units of the currency a hand (e.g. 5:3)")
    p.add_argument("--rake-schedule", default=None, metavar="FILE.toml",
                   help="a rake schedule file: percent, cap, caps_by_players, no_flop_no_drop, "
                        "step (docs/import.md, Importing an operator's hand histories)")
    if paths:  # certify has --game already (a simulation's game, or with --import this one)
        p.add_argument("--game", default=None, metavar="FILE.toml",
                       help="the operator's game file (docs/game.md): its [rake] is the rake "
                            "schedule and every hand's blinds, ante and bets are checked "
                            "against its stakes (the stakes audit)")
    p.add_argument("--hash-names", default=None, metavar="KEYFILE",
                   help="store a keyed hash (HMAC-SHA256) of each player name, never the name: "
                        "the same player keeps one pseudonym and one player id")
    p.add_argument("--venue", action="append", default=None, metavar="GLOB=VENUE",
                   help="the lab's own mapping of source files to venues (repeatable; the "
                        "first GLOB matching a file's path or name wins): how the outcome "
                        "audit reads a PHH file's winnings and which venue of the rake "
                        "schedule applies. A PHH file's own venue field chooses neither "
                        "(docs/import.md)")
    p.add_argument("--source-format", action="append", default=None,
                   metavar="GLOB=cash|tournament", dest="source_format",
                   help="the lab's own word on which PHH files are a tournament's (repeatable; "
                        "the first GLOB matching a file's path or name wins): their hands are "
                        "judged as tournament hands. Every other PHH hand is judged as cash "
                        "(rake schedule, stakes, top-ups, sessions), whatever its own level, "
                        "tournament or event fields say; a site's text export keeps its "
                        "header's format (docs/import.md)")
    if paths:
        add_ray_options(p, "the import")
        add_quiet(p)


def add_run_options(p: argparse.ArgumentParser, hands: int | None, structure: str,
                    out: str | None) -> None:
    """The options that define a simulation run (simulate and certify share them)."""
    p.add_argument("--hands", type=integer, required=hands is None, default=hands,
                   help="hands per structure")
    p.add_argument("--structure", default=None,
                   choices=["no-limit", "pot-limit", "fixed-limit", "all"],
                   help=f"the betting structure (all: each of the three; default {structure}, "
                        "or the game file's structures)")
    p.set_defaults(default_structure=structure)
    add_population_options(p)
    p.add_argument("--seed", type=integer, default=1,
                   help="the run's seed: with philox, every deck is keyed by it")
    p.add_argument("--out", required=out is None, default=out,
                   help="run folder: a path or a URI (s3://, gs://, file://); rerun the command "
                        "to resume")
    add_address(p)
    add_workers(p, "CPUs of the local Ray (default: all), or the most tasks at once on a "
                   "cluster (default there: 4,096 queued, so that an autoscaler grows it); 0 "
                   "runs in this process without Ray")
    p.add_argument("--batch-size", type=integer, default=100_000, metavar="HANDS",
                   help="hands per batch file (default: %(default)s); a population whose tables "
                        "vary (mixed formats or seat counts, the default) makes batches of at "
                        "most 10,000 hands, one table kind each, so its hands and verdict are "
                        "the same for any larger value")
    p.add_argument("--inject", default=None, metavar="FAULT",
                   help="plant a fault (the log must then fail certification)")
    add_generator(p)
    add_quiet(p)


def add_population_options(p: argparse.ArgumentParser) -> None:
    """The game and who sits at the tables (``population_options`` reads them): simulate,
    certify and regress share them."""
    p.add_argument("--game", default=None, metavar="FILE.toml",
                   help="the platform's own game: stakes, rake, tables, buy-ins, tournament "
                        "structure, bots (docs/game.md); the options below override it")
    p.add_argument("--population", default=None, choices=POPULATIONS,
                   help="preset the options below start from: default = mixed tables of 2 to "
                        "10 seats, cash and tournaments, buy-ins 20-250 big blinds, real bots; "
                        "classic = 6-seat cash tables of 100 big blinds with stress bots")
    p.add_argument("--players", default=None, metavar="SEATS",
                   help="seats per table: 6, a range 2-10, or a mix with weights 2:1,6:3,9:2 "
                        "(default: 2:2,3:1,4:1,5:1,6:5,7:1,8:2,9:4,10:1)")
    p.add_argument("--format", default=None, choices=["cash", "tournament", "mixed"],
                   help="table format (default mixed: tournaments in --tournament-pct of the "
                        "batches)")
    p.add_argument("--tournament-pct", type=integer, default=None, metavar="PCT",
                   help="mixed format: percent of tournament batches (default 40)")
    p.add_argument("--stacks", default=None, metavar="MIN-MAX",
                   help="cash buy-ins in big blinds: 100, or a range 20-250 (the default)")
    p.add_argument("--leave-above", type=integer, default=None, metavar="BB",
                   help="cash: a player whose stack passes this many big blinds leaves and is "
                        "replaced (default 750, 0 never)")
    p.add_argument("--tournament-stack", type=integer, default=None, metavar="BB",
                   help="tournament starting stack in big blinds (default 60)")
    p.add_argument("--bots", default=None, choices=["classic", "real"],
                   help="real: fold-heavy styles with a few stress bots (default); classic: "
                        "the stress bots alone")


MAX_DIGITS = 30  # an integer option longer than this is no count, id or size



def integer(text: str) -> int:
    """An integer option: ASCII decimal digits only (never a Unicode digit such as '١٥', a float,
    an underscore or thousands of digits); its bounds are checked where its value is used."""
    t = text.strip()
    if not re.fullmatch(rf"-?[0-9]{{1,{MAX_DIGITS}}}", t):
        raise argparse.ArgumentTypeError(f"{text[:40]!r}: expected an integer (ASCII digits)")
    return int(t)


def count(lo: int, hi: int) -> Callable[[str], int]:
    """An integer option bounded to ``lo .. hi`` (ASCII digits, as ``integer``)."""

    def parse(text: str) -> int:
        v = integer(text)
        if not lo <= v <= hi:
            raise argparse.ArgumentTypeError(f"{text[:40]!r}: expected {lo:,} .. {hi:,}")
        return v

    return parse


def number(text: str) -> float:
    """A finite decimal number option, ASCII (never nan or inf); its range is checked where its
    value is used."""
    t = text.strip()
    if not re.fullmatch(r"-?(?:[0-9]{1,30}(?:\.[0-9]{0,30})?|\.[0-9]{1,30})", t):
        raise argparse.ArgumentTypeError(f"{text[:40]!r}: expected a number")
    return float(t)


def fraction(text: str) -> float:
    """A level or share option: a finite number in (0, 1), ASCII (never nan or inf)."""
    t = text.strip()
    if not re.fullmatch(r"(?:0?\.[0-9]{1,30}|[0-9]\.?[0-9]{0,30}(?:[eE]-?[0-9]{1,3})?)", t):
        raise argparse.ArgumentTypeError(f"{text[:40]!r}: expected a number between 0 and 1")
    v = float(t)
    if not 0.0 < v < 1.0:
        raise argparse.ArgumentTypeError(f"{text[:40]!r}: expected a number between 0 and 1")
    return v


def boolean(text: str) -> bool:
    if text.lower() in ("true", "yes", "1", "on"):
        return True
    if text.lower() in ("false", "no", "0", "off"):
        return False
    raise argparse.ArgumentTypeError(f"{text!r}: expected true or false")


def batches(text: str) -> str:
    if text == "all" or (re.fullmatch(r"[0-9]{1,18}", text) and int(text) >= 1):
        return text
    raise argparse.ArgumentTypeError(f"{text!r}: expected a number of batch files >= 1 or 'all'")


def population_options(args: argparse.Namespace) -> dict[str, Any]:
    """The ``RunSpec`` population fields of the run options (``sim.runspec.population_fields``
    of ``--population`` and the options given). Raises ValueError (one line) on a bad value."""
    from sim.runspec import population_fields

    base = None
    leave_above = args.leave_above
    if getattr(args, "game", None) is not None:
        from cluster.flows.game import read_game

        if args.population is not None:
            raise UsageError("--game and --population: choose one (the game file gives the "
                             "population)")
        base = read_game(args.game)
        if base.explicit_leave and leave_above is None:  # the file's, whatever --stacks
            leave_above = base["leave_above_bb"]
    fields = population_fields(args.population or "default", base=base, players=args.players,
                               format=args.format,
                               tournament_pct=args.tournament_pct, stacks=args.stacks,
                               leave_above=leave_above,
                               tournament_stack=args.tournament_stack, bots=args.bots)
    return fields if base is None else base.derive(fields)


def run_spec(args: argparse.Namespace) -> RunSpec:
    """The ``RunSpec`` of the run options (simulate and certify share them); the engine's
    ValueError (a bad option value) becomes a UsageError."""
    from sim.config import Structure
    from sim.runspec import RunSpec

    with as_input(ValueError):
        fields = population_options(args)
        label = args.structure
        if label is None and "structures" in fields:
            structures = tuple(Structure.parse(s) for s in fields["structures"])
        else:
            label = label or args.default_structure
            structures = (tuple(Structure) if label == "all" else (Structure.parse(label),))
        if getattr(args, "game", None) is not None:  # the game's keys of the structures played
            from cluster.flows.game import check_structures

            check_structures(fields, structures, f"--game {args.game}",
                             "--structure" if args.structure is not None else "structures"
                             if "structures" in fields else "the command's default --structure")
        fields.pop("structures", None)
        return RunSpec(hands=args.hands, structures=structures, seed=args.seed,
                       batch_size=args.batch_size, inject=args.inject, generator=args.generator,
                       **fields)


def venue_map(args: argparse.Namespace) -> list[tuple[str, str]] | None:
    """``--venue GLOB=VENUE`` as (glob, venue) pairs in the order given (None without it);
    UsageError for a value without ``=`` or with an empty side."""
    given = getattr(args, "venue", None)
    if not given:
        return None
    out = []
    for v in given:
        glob, sep, venue = v.partition("=")
        if not sep or not glob.strip() or not venue.strip():
            raise UsageError(f"--venue {v!r}: expected GLOB=VENUE (e.g. 'stars/*=PokerStars')")
        out.append((glob.strip(), venue.strip()))
    return out


def format_map(args: argparse.Namespace) -> list[tuple[str, str]] | None:
    """``--source-format GLOB=cash|tournament`` as (glob, format) pairs in the order given (None
    without it); UsageError for a value without ``=``, an empty glob or another format."""
    given = getattr(args, "source_format", None)
    if not given:
        return None
    out = []
    for v in given:
        glob, sep, fmt = v.partition("=")
        if not sep or not glob.strip() or fmt.strip() not in ("cash", "tournament"):
            raise UsageError(f"--source-format {v!r}: expected GLOB=cash or GLOB=tournament (e.g. "
                             "'wsop/*.phh=tournament')")
        out.append((glob.strip(), fmt.strip()))
    return out


def rake_arg(args: argparse.Namespace) -> Any:
    """The rake schedule of ``--rake PCT:CAP`` or ``--rake-schedule FILE`` (one, or None)."""
    from cluster.flows.rake import parse_rake, read_rake_schedule

    rake, schedule = getattr(args, "rake", None), getattr(args, "rake_schedule", None)
    if rake is not None and schedule is not None:
        raise UsageError("--rake and --rake-schedule: choose one")
    if rake is not None:
        return parse_rake(rake)
    if schedule is not None:
        return read_rake_schedule(schedule)
    return None


def import_game(args: argparse.Namespace) -> Any:
    """The ``--game FILE`` of an import (``cluster.flows.game_import.ImportGame``, or None);
    exclusive with ``--rake`` and ``--rake-schedule`` (the game's [rake] is the schedule)."""
    path = getattr(args, "game", None)
    if path is None:
        return None
    if getattr(args, "rake", None) is not None or getattr(args, "rake_schedule", None) is not None:
        raise UsageError("--game and --rake/--rake-schedule: choose one (the game's [rake] is "
                         "the rake schedule)")
    from cluster.flows.game_import import read_import_game

    return read_import_game(path)


def name_key(args: argparse.Namespace) -> bytes | None:
    """The secret of ``--hash-names KEYFILE`` (None without it)."""
    from cluster.flows.import_histories import read_name_key

    path = getattr(args, "hash_names", None)
    return None if path is None else read_name_key(path)
