"""Iceberg Rummy v1: the hand cap truncates, and the observation pieces added in v1.

Each observation piece is decoded with ``layout.view`` and compared with values computed from the
engine state, at random positions, from every seat; crafted positions show the rulebook situation
each addition is about. Rule numbers (R7.4, I17, I23, I24) refer to ``docs/rules/iceberg_rummy.md``.
"""

from __future__ import annotations

import copy
import json

import numpy as np
import pytest

import ice_envs
from ice_envs.core.errors import OptionError
from ice_envs.core.masks import sample_legal
from ice_envs.iceberg_rummy import melds as M
from ice_envs.iceberg_rummy import picture
from ice_envs.iceberg_rummy import rules as R

#: Player 0 (dealer player 1) draws 7S and can go out at once with the run 5S 6S 7S.
GOES_OUT = {"dealer": 1, "hands": ["5S 6S", "3D 3H 4C"], "stock": ["7S"]}


def make(n: int = 2, **kwargs):
    return ice_envs.make("iceberg_rummy", num_players=n, raw=True, **kwargs)


def card(name: str) -> int:
    return M.parse_card(name)


def view(env, seat: int, piece: str) -> np.ndarray:
    return env.obs_layout.view(env.observe(f"player_{seat}")["observation"], piece)


def go_out(env) -> None:
    """Player 0 lays 5S 6S 7S and goes out (the position of ``GOES_OUT``)."""
    for c in sorted(M.parse_cards("5S 6S 7S")):
        env.step(c)
    env.step(R.COMMIT_NEW)


def turn(env, discard: str, play: str = "") -> None:
    """The acting player lays ``play`` as a new meld (if given), then discards ``discard``."""
    if play:
        for c in sorted(M.parse_cards(play)):
            env.step(c)
        env.step(R.COMMIT_NEW)
    env.step(R.DISCARD_BASE + card(discard))


# ------------------------------------------------------------------ the hand cap (R7.4, I17)
def test_the_hand_cap_truncates_the_episode_without_an_outcome():
    """R7.4, I17: nobody has 5000 when ``max_hands`` is reached: every agent is truncated, no outcome reward,
    no winner, the scores (the last hand settled) in the infos."""
    env = make(max_hands=1)
    env.reset(seed=0, options=GOES_OUT)
    go_out(env)
    assert all(env.truncations.values()) and not any(env.terminations.values())
    assert env.rewards == {"player_0": 0.0, "player_1": 0.0}
    assert env.win_shares().tolist() == [0.0, 0.0] and env.winners() == []
    for agent in env.agents:
        assert env.infos[agent] == {"scores": [0.3, -0.2], "max_hands": True}
    assert env.legal_actions() == [] and not env.action_mask().any()
    assert "stopped undecided at the hand cap (max_hands=1, truncated): no winner" in env.render_view(None)
    assert picture._status(env.game_state) == "stopped at the hand cap (max_hands=1): no winner"
    assert env.render_view(None, "rgb_array").ndim == 3


def test_score_rewards_still_carry_the_last_settlement_at_the_cap():
    """R7.8: under ``reward_mode="score"`` the capped hand's settlement is paid with the truncation."""
    env = make(max_hands=1, reward_mode="score")
    env.reset(seed=0, options=GOES_OUT)
    go_out(env)
    assert all(env.truncations.values()) and not any(env.terminations.values())
    assert env.rewards["player_0"] == pytest.approx(0.3)  # the run's 30 points (x1: no ace)
    assert env.rewards["player_1"] == pytest.approx(-0.2)  # a pair left in hand (-10) and a dead card (-10)


def test_max_hands_end_decide_keeps_the_v0_decided_game():
    """R7.4 with ``max_hands_end="decide"``: the cap ends a decided game, highest total winning (+1 / -1)."""
    env = make(max_hands=1, max_hands_end="decide")
    env.reset(seed=0, options=GOES_OUT)
    go_out(env)
    assert all(env.terminations.values()) and not any(env.truncations.values())
    assert env.rewards == {"player_0": 1.0, "player_1": -1.0} and env.winners() == [0]


def test_reaching_5000_in_the_capped_hand_is_a_decided_game():
    """R5.6 (I16): a total of 5000 at the end of a hand wins, the cap notwithstanding."""
    env = make(max_hands=1)
    env.reset(seed=0, options=GOES_OUT)
    env.game_state.totals[:] = [4980, 0]
    go_out(env)
    assert all(env.terminations.values()) and not any(env.truncations.values())
    assert env.rewards == {"player_0": 1.0, "player_1": -1.0}


def test_a_truncated_game_round_trips_through_state_dict_and_reset():
    env = make(max_hands=1)
    env.reset(seed=0, options=GOES_OUT)
    go_out(env)
    saved = json.loads(json.dumps(env.state_dict()))
    other = make(max_hands=1)
    other.load_state_dict(saved)
    assert other.truncations == env.truncations and other.game_state.truncated
    assert other.win_shares().tolist() == [0.0, 0.0]
    fresh = make(max_hands=1)
    fresh.reset(options={"state": saved["state"]})  # a finished position: truncated at once
    assert all(fresh.truncations.values()) and not any(fresh.terminations.values())
    assert fresh.infos["player_0"]["max_hands"] is True


@pytest.mark.parametrize("n", [2, 5])
def test_random_full_games_stop_truncated_at_the_cap(n):
    """Random players never reach 5000 (I17): with ``max_hands=2`` every game stops truncated after 2 hands."""
    env = ice_envs.make("iceberg_rummy", num_players=n, max_hands=2)
    env.reset(seed=n)
    rng = np.random.default_rng(n)
    ends = []
    for _agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        if term or trunc:
            ends.append((reward, term, trunc, info.get("max_hands")))
            env.step(None)
            continue
        env.step(sample_legal(rng, obs["action_mask"]))
    assert ends == [(0.0, False, True, True)] * n
    assert env.unwrapped.game_state.hand_no == 2


def test_truncated_states_are_checked():
    env = make(max_hands=1)
    env.reset(seed=0, options=GOES_OUT)
    go_out(env)
    data = json.loads(json.dumps(env.state_dict()))
    decided = copy.deepcopy(data)
    decided["state"]["fields"]["winners"] = [0]
    undone = copy.deepcopy(data)
    undone["state"]["fields"]["truncated"] = False
    for bad, match in ((decided, "truncated=True: only"), (undone, "winners=.*distinct winners")):
        with pytest.raises(OptionError, match=match):
            make(max_hands=1).load_state_dict(bad)
    with pytest.raises(OptionError, match="config"):  # the same state under "decide" is another configuration
        make(max_hands=1, max_hands_end="decide").load_state_dict(data)


# ------------------------------------------------------------------ the v1 pieces at random positions
def expected_pieces(state: R.IcebergRummyState, seat: int) -> dict[str, np.ndarray]:
    """The v1 pieces of ``seat``'s view, computed from the engine state (docstring of the env's layout)."""
    cfg = state.config
    cap = cfg.max_hands
    left = 0.0 if cap is None or cfg.single_hand else max(0, cap - state.hand_no) / cap
    return {
        "hands_played": np.array([state.hand_no / 100]),
        "hands_left": np.array([left]),
        "passed_cards": np.minimum(state.passed[seat], cfg.decks) / 2,
        "passed_held": np.array([float(state.still_left[seat] >= 0)]),
    }


def check_views(env, counts: dict[str, int]) -> None:
    """Every seat's v1 pieces (and the selection pieces) against the state, and what the flag claims is true."""
    s: R.IcebergRummyState = env.game_state
    n = s.num_players
    for seat in range(n):
        for piece, value in expected_pieces(s, seat).items():
            np.testing.assert_allclose(view(env, seat, piece), value, rtol=1e-6, err_msg=f"{piece} of seat {seat}")
        held, known = view(env, seat, "passed_held")[0], view(env, seat, "passed_known")[0]
        if known:
            assert held  # passed_held extends passed_known
        if n > 2:
            assert held == known
        if held:  # the claim is true: the last pass is in the left-hand neighbour's hand (or lies face down for it)
            x, left = int(s.last_passed[seat]), (seat + 1) % n
            assert s.hands[left, x] > 0 or (s.pending == x and s.pending_to == left)
            counts["held_not_known"] += int(not known)
        sees = seat == s.current or not s.config.allow_clear
        selection = np.zeros(M.NUM_CARDS)
        np.add.at(selection, s.selection, 0.5)
        assert np.array_equal(view(env, seat, "selection"), selection if sees else np.zeros(M.NUM_CARDS))
        assert view(env, seat, "composing")[0] == float(bool(s.selection) and sees)
        counts["hidden_selection"] += int(bool(s.selection) and not sees)
    counts["positions"] += 1


@pytest.mark.parametrize(
    "n, options",
    [
        (2, {"max_hands": 4}),
        (2, {"max_hands": 3, "num_decks": 2, "allow_clear": True}),
        (3, {"max_hands": 3, "allow_clear": True}),
        (4, {"max_hands": 2}),
        (5, {"single_hand": True, "allow_clear": True}),
        (2, {"max_hands": None}),
    ],
)
def test_v1_pieces_decode_from_the_state_from_every_seat(n, options):
    env = make(n, **options)
    rng = np.random.default_rng(17 + n)
    counts = {"positions": 0, "held_not_known": 0, "hidden_selection": 0}
    hands_seen = set()
    for game in range(2):
        env.reset(seed=game)
        while not (any(env.terminations.values()) or any(env.truncations.values())):
            if rng.random() < 0.15:
                check_views(env, counts)
                hands_seen.add(env.game_state.hand_no)
            env.step(sample_legal(rng, env.action_mask()))
            if options.get("max_hands") is None and not options.get("single_hand") and env.num_steps > 400:
                break
        check_views(env, counts)  # the final position too
    assert counts["positions"] > 30
    if not options.get("single_hand"):
        assert len(hands_seen) > 1  # positions of several hands
    if n == 2:
        assert counts["held_not_known"] > 0  # the 2-player flag knows more than passed_known
    if options.get("allow_clear"):
        assert counts["hidden_selection"] > 0


def test_hands_played_and_hands_left_tell_the_first_hand_from_the_last():
    """Hand 1 and hand 100 used to be observed alike; now they differ in ``hands_played`` and ``hands_left``."""
    env = make(max_hands=100)
    env.reset(seed=0, options=GOES_OUT)
    assert view(env, 0, "hands_played")[0] == 0.0 and view(env, 1, "hands_left")[0] == 1.0
    env.game_state.hand_no = 99  # the same deal as the last hand of the game
    assert view(env, 0, "hands_played")[0] == pytest.approx(0.99)
    assert view(env, 1, "hands_left")[0] == pytest.approx(0.01)
    uncapped = make(max_hands=None)
    uncapped.reset(seed=0, options=GOES_OUT)
    assert view(uncapped, 0, "hands_left")[0] == 0.0


# ------------------------------------------------------------------ the cards passed (R3.6)
def test_passed_cards_remember_every_pass_of_the_hand():
    """R3.6: cards go face down to the left; the passer knows each card it passed (``passed`` shows only the last)."""
    env = make(3)
    env.reset(
        seed=0,
        options={
            "dealer": 2,
            "hands": ["2C 4D 9H 10H", "3D 5C 7H 9C", "3S 4S 8D 8H"],
            "stock": ["KC", "KD", "KH", "QC", "QD", "QH"],
        },
    )
    turn(env, "9H")  # player 0 passes 9H to player 1
    turn(env, "3D")
    turn(env, "8D")
    turn(env, "2C")  # player 0 passes 2C
    passed = view(env, 0, "passed_cards")
    assert np.flatnonzero(passed).tolist() == sorted([card("9H"), card("2C")]) and passed.max() == 0.5
    assert np.flatnonzero(view(env, 0, "passed")).tolist() == [card("2C")]
    assert not view(env, 1, "passed_cards")[card("9H")]  # player 1 passed 3D only
    assert np.flatnonzero(view(env, 1, "passed_cards")).tolist() == [card("3D")]


# ------------------------------------------------------------------ the 2-player flag (I23)
POSITION_2P = {"dealer": 1, "hands": ["2C 4D 9H 10H", "3D 5C 7H 9C"], "stock": ["KC", "KD", "KH", "QC", "QD"]}


def test_two_players_see_the_card_passed_back_so_the_pass_is_still_held():
    """I23 (R3.1, R3.6): with 2 players the card the opponent passes back is picked up and seen; if it is another
    card, the card passed to it is still in its hand. ``passed_known`` forgets it, ``passed_held`` keeps it."""
    env = make(2)
    env.reset(seed=0, options=POSITION_2P)
    turn(env, "9H")  # player 0 passes 9H; player 1 picks it up
    assert view(env, 0, "passed_known")[0] == 1.0 and view(env, 0, "passed_held")[0] == 1.0
    turn(env, "3D")  # player 1 passes back 3D: player 0 picks it up and sees it is not 9H
    assert env.game_state.hands[0, card("3D")] and env.game_state.hands[1, card("9H")]
    assert view(env, 0, "passed_known")[0] == 0.0  # the v0 piece
    assert view(env, 0, "passed_held")[0] == 1.0  # the v1 piece: 9H is still with player 1
    assert view(env, 1, "passed_held")[0] == 1.0  # and 3D with player 0


def test_the_flag_drops_when_the_card_comes_back_or_is_played():
    env = make(2)
    env.reset(seed=0, options=POSITION_2P)
    turn(env, "9H")
    turn(env, "9H")  # player 1 passes the very card back
    assert view(env, 0, "passed_held")[0] == 0.0
    env = make(2)
    env.reset(seed=0, options={**POSITION_2P, "hands": ["2C 4D 9H 10H", "3D 9C 9S 7H"]})
    turn(env, "9H")
    turn(env, "3D", play="9C 9H 9S")  # player 1 lays the 9H it was passed in a set (face up), then passes
    assert view(env, 0, "passed_held")[0] == 0.0


def test_with_three_players_the_neighbours_pass_is_not_seen():
    """I23: with 3 or more players the neighbour passes on to a third player: nothing is seen, nothing is known."""
    env = make(3)
    env.reset(seed=0, options={"dealer": 2, "hands": ["2C 4D 9H 10H", "3D 5C 7H 9C", "3S 4S 8D 8H"]})
    turn(env, "9H")
    assert view(env, 0, "passed_held")[0] == 1.0
    turn(env, "3D")  # player 1 passes 3D to player 2: player 0 does not see it
    assert view(env, 0, "passed_held")[0] == 0.0 == view(env, 0, "passed_known")[0]


def test_the_flag_is_not_kept_when_the_card_passed_back_is_never_picked_up():
    """I23 with R7.2 (I21): the holder of the last ace discards and the hand ends at once; that card is never
    picked up, so the opponent learns nothing from it (compare the hand going on: the flag stays)."""
    env = make(2, single_hand=True, ace_holder_finishes=True)
    options = {"dealer": 1, "hands": ["AC AD AH 2C 4D 9H", "3D 5C"], "stock": ["KC", "AS", "KD"]}
    env.reset(seed=0, options=options)
    turn(env, "9H")  # player 0 placed three aces; player 1 picks up 9H and draws the last ace
    assert env.game_state.end_after_turn
    turn(env, "3D")  # the hand ends with this discard: 3D goes to nobody
    assert all(env.terminations.values())
    assert env.game_state.hands[1, card("9H")] and view(env, 0, "passed_held")[0] == 0.0


def test_resample_keeps_the_still_held_card_with_the_opponent():
    """``resample_hidden`` agrees with the flag: with two decks and the other 9S on the table, only the flag
    (not the cards passed) says where player 0's 9S is."""
    env = make(2, num_decks=2)
    env.reset(
        seed=0,
        options={
            "dealer": 1,
            "hands": ["9S 2C 4D 10H", "3D 5C 7H 9C"],
            "stock": ["KC", "KD", "KH", "QC"],
            "melds": [(1, "9S 10S JS")],
        },
    )
    turn(env, "9S")
    turn(env, "3D")
    state = env.game_state
    assert state.known_left[0] == -1 and state.still_left[0] == card("9S")
    rng = np.random.default_rng(0)
    for _ in range(40):
        new = R.resample_hidden(state, 0, rng)
        assert new.hands[1, card("9S")] > 0
        R.check_state(new, state.config)
        assert np.array_equal(_encode_state(env, new, 0), env._encode(0))  # player 0 cannot tell them apart


def _encode_state(env, state: R.IcebergRummyState, seat: int) -> np.ndarray:
    saved = env.game_state
    env.game_state = state
    try:
        return env._encode(seat)
    finally:
        env.game_state = saved


def test_still_left_is_checked_against_the_hands():
    env = make(2)
    env.reset(seed=0, options=POSITION_2P)
    turn(env, "9H")
    turn(env, "3D")
    data = json.loads(json.dumps(env.state_dict()))
    fields = data["state"]["fields"]
    cases = [
        ([card("2C"), -1], "is not player 0's last pass held by its left-hand neighbour"),
        ([-1, card("3D")], None),  # forgetting is consistent (player 0's known_left is -1 after the pass back)
        ([card("9H"), -1], "does not agree with known_left"),  # player 1's 3D is known to be with player 0
    ]
    for values, match in cases:
        bad = copy.deepcopy(data)
        bad["state"]["fields"]["still_left"] = {**fields["still_left"], "__ndarray__": values}
        if match is None:
            make(2).load_state_dict(bad)
            continue
        with pytest.raises(OptionError, match=match):
            make(2).load_state_dict(bad)
    three = make(3)
    three.reset(seed=0)
    three.step(three.legal_actions()[-1])  # a discard
    data = json.loads(json.dumps(three.state_dict()))
    data["state"]["fields"]["still_left"]["__ndarray__"] = [-1, -1, -1]
    with pytest.raises(OptionError, match="does not agree with known_left"):
        make(3).load_state_dict(data)


# ------------------------------------------------------------------ the private selection (I24)
SELECTING = {"dealer": 2, "hands": ["5S 6S 9H 2C", "3D 5C 7H 9C", "3S 4S 8D 8H"], "stock": ["7S"]}


@pytest.mark.parametrize("allow_clear", [False, True])
def test_the_selection_is_private_only_when_it_can_be_taken_back(allow_clear):
    """I24 (R7.6): with the clear action a selection can be shown and taken back, so it is not laid face up:
    only the acting player sees it (pieces ``selection`` and ``composing``, and the text view)."""
    env = make(3, allow_clear=allow_clear)
    env.reset(seed=0, options=SELECTING)
    env.step(card("5S"))
    mine = np.zeros(M.NUM_CARDS)
    mine[card("5S")] = 0.5
    assert np.array_equal(view(env, 0, "selection"), mine) and view(env, 0, "composing")[0] == 1.0
    for seat in (1, 2):
        seen = not allow_clear
        assert np.array_equal(view(env, seat, "selection"), mine if seen else np.zeros(M.NUM_CARDS))
        assert view(env, seat, "composing")[0] == float(seen)
        assert ("Composing: 5S" in env.render_view(seat)) == seen
    assert "Composing: 5S" in env.render_view(0) and "Composing: 5S" in env.render_view(None)


def test_resample_from_another_seat_drops_a_private_selection():
    """I24: another seat cannot tell a play is begun, so its re-deal may put those cards anywhere; the re-dealt
    state is a valid position that seat observes exactly as the real one."""
    env = make(3, allow_clear=True)
    env.reset(seed=0, options=SELECTING)
    env.step(card("5S"))
    env.step(card("6S"))
    state = env.game_state
    rng = np.random.default_rng(1)
    moved = 0
    for _ in range(30):
        for seat in (1, 2):
            new = R.resample_hidden(state, seat, rng)
            assert new.selection == []
            R.check_state(new, state.config)
            assert np.array_equal(_encode_state(env, new, seat), env._encode(seat))
            moved += int(new.hands[0, card("5S")] == 0)
    assert moved > 0
    own = R.resample_hidden(state, 0, rng)  # the acting player keeps its own selection
    assert own.selection == state.selection
