"""Real sites' hands the import misread (issue 34): small copies of hands of ../shared/sitetext in
tests/fixtures/sitetext_real, each read exactly, and its outcome never a false accusation of the
operator."""

from __future__ import annotations

from decimal import Decimal as D
from pathlib import Path
from typing import Any

from audits.runner import run_audits
from cluster.cli import main
from sim.histories.sites.text import read_history, reads_history

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


def test_absolute_writes_a_ten_as_10_and_preselected_actions() -> None:
    """Absolute's 2009-11 exports write a ten as ``10`` (``Dealt to HERO [10c 4d]``) and an
    action chosen in advance with ``(Preselection)`` (``PLAYER4 - Raises $0.20 to $0.30
    (Preselection)``): the same cards and the same action (both were "unrecognised line")."""
    (h,) = read_history(REAL / "absolute-ten-preselection.txt").hands
    texts = [a.text for a in h.actions]
    hero = h.players.index("HERO")
    assert f"d dh p{hero + 1} Tc4d" in texts
    p4 = h.players.index("PLAYER4") + 1
    assert f"p{p4} cbr 0.30" in texts and f"p{p4} cc" in texts
    assert dict(zip(h.players, h.winnings or (), strict=True))["PLAYER5"] == D("5.70")


def test_partypoker_mac_style_with_decimal_commas() -> None:
    """PartyPoker's 2012 Mac client: ``seat 1: Player0 ( $24,72 USD )``, ``calls [ $0,25 USD
    ]`` and two lines written as one (``Player3 is sitting outPlayer4 posts big blind``): read
    exactly, 24,72 as 24.72 (never 2,472), and the hand number is the hand's own (``Hand
    History for Game 12395237393``, not the ``#Game No`` counter, which is no hand of its
    own)."""
    f = read_history(REAL / "partypoker-mac-decimal-comma.txt")
    (h,) = f.hands
    assert not f.skipped and h.hand == "12395237393"
    stacks = dict(zip(h.players, h.starting_stacks, strict=True))
    assert stacks["Player0"] == D("24.72") and stacks["Hero"] == D("27.26")
    assert dict(zip(h.players, h.winnings or (), strict=True))["Player4"] == D("3.27")
    # the euro style writes the symbol after a comma amount in one line: 0,35 is 0.35
    (e,) = read_history(REAL / "partypoker-eur-symbol-after.txt").hands
    assert D("-0.35") in e.blinds_or_straddles


def test_a_decimal_comma_beside_a_point_before_three_digits_is_a_skip() -> None:
    """A hand with decimal commas (``$24,72``) and an amount ``$1.000`` (a thousand, or one
    with three decimals: the text does not say) is skipped by name, never read one way."""
    text = (REAL / "partypoker-mac-decimal-comma.txt").read_text("utf-8")
    forged = text.replace("Player4 bets [ $1 USD ]", "Player4 bets [ $1.000 USD ]")
    assert forged != text
    f = reads_history(forged, source="forged.txt")
    (skip,) = f.skipped
    assert not f.hands and skip.kind == "unrecognised line"
    assert "decimal comma" in skip.reason


def test_a_raise_nobody_can_answer_is_the_call_it_amounts_to(tmp_path: Path) -> None:
    """PokerStars accepts ``HomerrrJay: raises €2.70 to €5.90`` over an all-in for 3.20 when
    the only other player still to act holds 2.83 (nobody can answer it) and returns the 2.70
    as an uncalled bet; the engine allows only the call there ("raising is not allowed": the
    hand was skipped). Both move the same chips: replayed as the call, betting PASS and the
    operator's payout judged."""
    (h,) = read_history(REAL / "pokerstars-raise-nobody-can-answer.txt").hands
    p = h.players.index("HomerrrJay") + 1
    assert [a.text for a in h.actions if a.text.startswith(f"p{p} ")] == [
        f"p{p} cbr 0.50", f"p{p} cc", f"p{p} sm KdKs"]
    src = tmp_path / "src"
    src.mkdir()
    (src / "h.txt").write_bytes((REAL / "pokerstars-raise-nobody-can-answer.txt").read_bytes())
    run = tmp_path / "run"
    assert main(["import", str(src), "--out", str(run), "--workers", "0", "--quiet"]) == 0
    assert main(["audit", str(run), "--workers", "0", "--quiet", "--only",
                 "betting,payouts,chips,outcome"]) == 0


def test_a_tournament_split_pot_is_shared_in_whole_chips(tmp_path: Path) -> None:
    """An Ongame tournament pot of 2,765 chips split by two winners: the site pays 1,383 and
    1,382 (the odd chip to the first clockwise from the button). Imported beside a cash hand
    in cents (the run's unit 0.01) the rules split it into 1,382.50 each and accused the
    operator of paying half a chip too much: a tournament is split in whole chips."""
    details = _outcome(tmp_path, "ongame-tournament-split.txt", "absolute-ten-preselection.txt")
    assert details["money"]["exponent"] == 2
    assert details["classes"] == {"exact": 1, "rake (no schedule: not checked)": 1}


def test_run_it_twice_and_cash_out_are_named_skips(tmp_path: Path) -> None:
    """A board run twice (``Hand was run twice``, ``*** FIRST FLOP ***``) and a player's
    cash-out (``cashed out the hand for $22.77 | Cash Out Fee $0.46``: money paid outside the
    pot) are not what the engine models: named skips, which the certificate lists as not
    certified (``import.not_certified``)."""
    twice = read_history(REAL / "pokerstars-run-it-twice.txt")
    cash = read_history(REAL / "pokerstars-cash-out.txt")
    assert not twice.hands and [s.kind for s in twice.skipped] == ["run it twice"]
    assert not cash.hands and [s.kind for s in cash.skipped] == ["cash-out"]
    assert "$22.77" in cash.skipped[0].reason


def test_ipoker_uncalled_bet_over_a_post_of_both_blinds() -> None:
    """iPoker: Player0 posts both blinds (type 2, sum="$0.06" at $0.02/$0.04: 0.04 live, 0.02
    dead), Player11 raises to 0.16 and wins uncontested, ``win="$0.26"`` (his 0.12 not called
    back, 0.14 of pot). The uncalled bet was read from the bet attributes (0.16 - 0.06 = 0.10),
    so he was "paid 0.16, the rules pay 0.14": a false wrong payout. The uncalled bet comes
    from the actions (a dead blind calls nothing): 0.12, paid 0.14, rake 0."""
    (h,) = read_history(REAL / "ipoker-post-both-uncalled.xml").hands
    paid = dict(zip(h.players, h.winnings or (), strict=True))
    assert paid["Player11"] == D("0.14") and h.total_pot == D("0.14") and h.rake == 0


def test_a_raise_beyond_the_stack_is_not_replayed_as_a_call(tmp_path: Path) -> None:
    """Red team of the unanswerable raise replayed as a call: HomerrrJay (10.42 in chips)
    ``raises €20.00 to €23.20`` over the all-in, with ``Uncalled bet (€20.00)`` to match. No
    site accepts a raise of more than the player has: it stays a raise, which the replay
    refuses (a named skip), never a call that hides the impossible action."""
    text = (REAL / "pokerstars-raise-nobody-can-answer.txt").read_text(encoding="utf-8")
    forged = (text.replace("raises €2.70 to €5.90", "raises €20.00 to €23.20")
              .replace("Uncalled bet (€2.70)", "Uncalled bet (€20.00)"))
    (h,) = reads_history(forged).hands
    p = h.players.index("HomerrrJay") + 1
    assert [a.text for a in h.actions if a.text.startswith(f"p{p} ")] == [
        f"p{p} cbr 0.50", f"p{p} cbr 23.20", f"p{p} sm KdKs"]
    src = tmp_path / "src"
    src.mkdir()
    (src / "h.txt").write_text(forged, encoding="utf-8")
    assert main(["import", str(src), "--out", str(tmp_path / "run"), "--workers", "0",
                 "--quiet"]) != 0  # the one hand skipped: nothing imported
