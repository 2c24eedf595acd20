"""Real sites' hands the import misread (issue 34): small copies of hands of ../shared/sitetext in
tests/fixtures/sitetext_real, each read exactly, and its outcome never a false accusation of the
operator."""

from __future__ import annotations

from decimal import Decimal as D
from pathlib import Path
from typing import Any

from audits.runner import run_audits
from cluster.cli import main
from sim.histories.sites.text import read_history

REAL = Path(__file__).resolve().parents[2] / "fixtures" / "sitetext_real"


def _outcome(tmp_path: Path, *names: str) -> dict[str, Any]:
    """Import the fixtures as a lab would and run the outcome audit: its details."""
    src = tmp_path / "src"
    src.mkdir()
    for name in names:
        (src / name).write_bytes((REAL / name).read_bytes())
    run = tmp_path / "run"
    assert main(["import", str(src), "--out", str(run), "--workers", "0", "--quiet"]) in (0, 1)
    (res,) = run_audits(run, ["outcome"]).results
    return dict(res.details)


def test_ongame_finishing_stacks_of_players_who_sat_the_hand_out(tmp_path: Path) -> None:
    """Ongame's summary states every seated player's finishing stack, with ``, net: N`` only
    for those who put chips in: a player who folded without a bet finished with his stack (he
    was read as finishing with 0, "lost 12.88 more than his bets": a wrong payout on a fair
    hand)."""
    (h,) = read_history(REAL / "ongame-sitting-out.txt").hands
    assert h.finishing_stacks is not None
    fin = dict(zip(h.players, h.finishing_stacks, strict=True))
    assert fin == {"Player1": D("4.81"), "Player0": D("10.80"), "Player2": D("12.88"),
                   "Hero": D("14.18"), "Player4": D("8.60")}
    classes = _outcome(tmp_path, "ongame-sitting-out.txt")["classes"]
    assert classes == {"rake (no schedule: not checked)": 1}


def test_ipoker_tournament_hands_with_a_dead_button_or_no_small_blind(tmp_path: Path) -> None:
    """An MTT table after a knock-out: no player has ``dealer="1"`` (the button on the seat of
    the player knocked out), or only a big blind is posted (the small blind's player is out).
    Both are read with the players from the first blind's seat (PokerKit's own order dropped
    the players after the first who acted: an internal "'Hero' is not in list" leaked as the
    skip reason)."""
    f = read_history(REAL / "ipoker-mtt.xml")
    dead_button, big_blind_only = f.hands
    assert dead_button.hand == "3869492660"
    assert dead_button.players[:2] == ("Hero", "Player18")  # the small and big blind
    assert dead_button.blinds_or_straddles[:2] == (100, 200)
    assert big_blind_only.hand == "3869492722"
    assert big_blind_only.players[0] == "Player10" and big_blind_only.players[-1] == "Hero"
    assert big_blind_only.blinds_or_straddles == (250, 0, 0, 0, 0, 0, 0, 0, 0)
    assert not any("not in list" in s.reason or "cannot parse" in s.reason for s in f.skipped)
    src = tmp_path / "src"
    src.mkdir()
    (src / "mtt.xml").write_bytes((REAL / "ipoker-mtt.xml").read_bytes())
    run = tmp_path / "run"
    assert main(["import", str(src), "--out", str(run), "--workers", "0", "--quiet"]) == 0
    assert main(["audit", str(run), "--workers", "0", "--quiet", "--only", "payouts,chips"]) == 0


def test_ipoker_bet_attribute_against_the_actions_is_one_fact_stated_twice() -> None:
    """A player's ``bet`` attribute is his total put in, which his actions state again: two
    values are a named skip "stated twice" (farfalla's bet="28,105" with 28,005 chips, all in
    by his actions: the pot and the uncalled bet read from the attribute accused the operator
    of moving 100 to another player), never a ValueError text."""
    f = read_history(REAL / "ipoker-mtt.xml")
    (skip,) = f.skipped
    assert skip.hand == "3869611627" and skip.kind == "stated twice"
    assert skip.reason == ("stated twice: 'farfalla' bet 28105 in his player line, but his "
                           "actions put in 28005")


def test_partypoker_tournament_hands_without_post_lines() -> None:
    """PartyPoker's 2011 tournament style writes ``Blinds(300/600)`` and no post line: the
    blinds are posted by the seats after the button (heads-up: the button the small blind), as
    the pots show (they were "blinds_or_straddles [0, 0]" and "'Player6' is paid but is not a
    player"); a hand announced (``Game #N starts.``) and never written is a truncated hand,
    not glued to the next hand's header ("not hold'em")."""
    f = read_history(REAL / "partypoker-stt-no-posts.txt")
    hu1, hu2, four = f.hands
    assert (hu1.players, hu1.blinds_or_straddles, hu1.winnings) == (
        ("Player1", "Player0"), (300, 600), (600, 0))
    assert hu2.winnings == (0, 1200)
    assert four.players == ("Player4", "Player8", "Player0", "Player7")
    assert four.blinds_or_straddles == (200, 400, 0, 0) and four.winnings == (0, 0, 1000, 0)
    (skip,) = f.skipped
    assert skip.hand == "10315957294" and skip.kind == "truncated hand"


def test_absolute_walk_collects_the_big_blinds_own_bet() -> None:
    """Absolute writes an uncalled bet's return as a line, except the big blind's in a walk:
    ``PLAYER2 Collects $6 from main pot`` (``Total Pot($6)``) is his 4 of pot and his own 2
    back (read as 6 paid: "paid more than the rules", a false wrong payout)."""
    (h,) = read_history(REAL / "absolute-walk.txt").hands
    assert dict(zip(h.players, h.winnings or (), strict=True))["PLAYER2"] == 4


def test_a_big_blind_all_in_for_less_than_a_blind_is_a_named_skip() -> None:
    """PartyPoker: the big blind all in for $0.01 (his stack), no more than the small blind;
    the site has the others call the full $0.02 (``calls [$0.02 USD]``), the engine the amount
    posted, so the rules' pot came short and the operator was accused ("got 0.05, the rules
    pay 0.03"): a hand the engine does not play as the site did is a named skip."""
    f = read_history(REAL / "partypoker-short-big-blind.txt")
    (skip,) = f.skipped
    assert not f.hands and skip.kind == "unsupported"
    assert "the big blind all in for 0.01" in skip.reason


def test_a_raise_to_is_the_amount_after_to(tmp_path: Path) -> None:
    """A Holdem Manager re-export of a PokerStars hand writes ``raises $6 to $6`` (the site:
    ``raises $4 to $6``): a raise to 6, as the site's own line reads; it was read as 2 + 6, the
    pot came to 17 and the operator "kept 4.65 but its record states a rake of 0.65"."""
    (h,) = read_history(REAL / "pokerstars-hm-reexport.txt").hands
    assert [a.text for a in h.actions if " cbr " in a.text] == ["p6 cbr 6", "p2 cbr 7.50"]
    classes = _outcome(tmp_path, "pokerstars-hm-reexport.txt")["classes"]
    assert classes == {"rake (no schedule: not checked)": 1}


def test_full_tilt_names_an_all_ins_hand_on_the_river(tmp_path: Path) -> None:
    """Full Tilt shows an all-in's cards (``Hero shows [Kh Kd]``), then on the river names the
    hand (``Hero shows two pair, Kings and Sixes``): a line that moves nothing (it was an
    "unrecognised line" and skipped the hand); the hand reads and pays as the rules do."""
    (h,) = read_history(REAL / "fulltilt-shows-hand-name.txt").hands
    assert [a.text for a in h.actions if " sm " in a.text] == ["p1 sm KhKd", "p8 sm 3c5s"]
    classes = _outcome(tmp_path, "fulltilt-shows-hand-name.txt")["classes"]
    assert classes == {"exact": 1}


def test_ipoker_a_player_who_bet_without_an_action_is_stated_twice() -> None:
    """A ``<player>`` line with bet="$1.80" and win="$2.44" and no action of his in the hand
    (a parser's test file, a seat line copied under another name): his bet is stated by his
    player line and contradicted by the actions, "stated twice" (it said "'TrapistBeer' is paid
    but is not a player of the hand", as if we had lost a player)."""
    f = read_history(REAL / "ipoker-player-without-action.xml")
    (skip,) = f.skipped
    assert skip.kind == "stated twice"
    assert skip.reason == ("stated twice: 'TrapistBeer' bet 1.80 in his player line, but has no "
                           "action in the hand")
