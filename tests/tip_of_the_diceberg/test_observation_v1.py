"""The observation pieces of v1: ``slot_melds`` and ``past_out_orders``, decoded against the engine state."""

from __future__ import annotations

import numpy as np
import pytest

import ice_envs
from ice_envs.tip_of_the_diceberg import env as E
from ice_envs.tip_of_the_diceberg import rules
from ice_envs.tip_of_the_diceberg.patterns import ITEM_DIE0, NUM_CARDS, parse_card

MAIN = ["R1", "D1", "T1", "C1"]


def expected_slot_melds(s: rules.DicebergState) -> np.ndarray:
    """Row k: the items on slot k this trick (cards by id, die d at column 60 + d); the same for every seat."""
    out = np.zeros((E.MAX_SLOTS, NUM_CARDS + rules.NUM_DICE), dtype=np.float32)
    for k, meld in enumerate(s.slot_meld):
        assert (s.slot_player[k] >= 0) == bool(meld)
        for it in meld:
            out[k, it] = 1.0
    return out


def expected_past_out_orders(s: rules.DicebergState, seat: int) -> np.ndarray:
    """Row r: the (r+1)-th latest finished round; column j: seat ``seat + j``'s place (1st/2nd/3rd/stayed in)."""
    n = s.config.num_players
    out = np.zeros((E.PAST_ROUNDS, E.MAX_SEATS, E.PAST_PLACES), dtype=np.float32)
    finished = list(s.history)
    for r in range(min(E.PAST_ROUNDS, len(finished))):
        order = finished[len(finished) - 1 - r]
        for j in range(n):
            p = (seat + j) % n
            out[r, j, order.index(p) if p in order else 3] = 1.0
    return out


def check_every_seat(env) -> None:
    raw = env.unwrapped
    s = raw.game_state
    lay = raw.obs_layout
    for seat, agent in enumerate(raw.possible_agents):
        obs = raw.observe(agent)["observation"]
        melds = lay.view(obs, "slot_melds")
        assert np.array_equal(melds, expected_slot_melds(s)), (agent, s.slot_meld)
        assert np.array_equal(lay.view(obs, "past_out_orders"), expected_past_out_orders(s, seat)), (agent, s.history)
        # consistent with the v0 pieces: the merged table and the dice "on a slot"
        assert np.array_equal(melds[:, :NUM_CARDS].max(axis=0), lay.view(obs, "table"))
        on_slot = lay.view(obs, "die_locations")[:, 2]
        assert np.array_equal(melds[:, NUM_CARDS:].max(axis=0), on_slot)


@pytest.mark.parametrize("n", [3, 4, 5])
def test_new_pieces_decode_from_the_state_in_random_games(n):
    """Random positions of whole three-round games (every round, the end included), from every seat."""
    rng = np.random.default_rng(100 + n)
    env = ice_envs.make("tip_of_the_diceberg", num_players=n)
    checked = played = rounds_seen = 0
    for game in range(2):
        env.reset(seed=10 * n + game)
        for agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                check_every_seat(env)
                env.step(None)
                continue
            s = env.unwrapped.game_state
            if rng.random() < 0.03:
                check_every_seat(env)
                checked += 1
                played += any(s.slot_meld)
                rounds_seen = max(rounds_seen, len(s.history))
            legal = np.flatnonzero(obs["action_mask"])
            env.step(int(legal[rng.integers(legal.size)]))
        assert len(env.unwrapped.game_state.history) == 3
    assert checked >= 20 and played >= 5 and rounds_seen == 2


def test_slot_melds_show_which_meld_is_on_which_slot():
    """Two melds on two slots: each row holds its own meld, cards and dice, for every seat."""
    hands = [["d4:1", "d6:1", "d8:5"], ["d4:2", "d10:7"], ["d4:3"], ["d4:4"]]
    env = ice_envs.make("tip_of_the_diceberg", num_players=4, main_cards=MAIN)
    env.reset(seed=0, options={"start_player": 0, "hands": hands, "dice": [["d10:1"], ["d12:2"], [], []]})
    raw = env.unwrapped
    s = raw.game_state
    die0, die1 = s.die_loc.index(0), s.die_loc.index(1)
    for a in (parse_card("d4:1"), parse_card("d6:1"), ITEM_DIE0 + die0, rules.COMMIT + 4):  # slot 4: S5 (3 of a number)
        env.step(a)
    for a in (parse_card("d4:2"), ITEM_DIE0 + die1, rules.COMMIT + 1):  # slot 1: S2 (a pair)
        env.step(a)
    lay = raw.obs_layout
    for agent in raw.possible_agents:
        melds = lay.view(raw.observe(agent)["observation"], "slot_melds")
        assert np.flatnonzero(melds[4]).tolist() == [parse_card("d4:1"), parse_card("d6:1"), ITEM_DIE0 + die0]
        assert np.flatnonzero(melds[1]).tolist() == [parse_card("d4:2"), ITEM_DIE0 + die1]
        assert melds.sum() == 5
    check_every_seat(env)


def test_past_out_orders_after_a_round():
    """A finished round's out-order, seen from every seat; row 1 stays empty until a second round is over."""
    hands = [["d8:8"], ["d4:1"], ["d6:1", "d6:2"]]
    env = ice_envs.make("tip_of_the_diceberg", num_players=3, main_cards=MAIN)
    env.reset(seed=0, options={"start_player": 0, "hands": hands, "dice": [[], [], []], "pool": []})
    for a in (parse_card("d8:8"), rules.COMMIT + 0, rules.PASS, rules.PASS, parse_card("d4:1"), rules.COMMIT + 0):
        env.step(a)
    raw = env.unwrapped
    s = raw.game_state
    assert s.history == [[0, 1]] and s.round == 1, "player 0 out first, player 1 second: the round ends"
    lay = raw.obs_layout
    for seat, agent in enumerate(raw.possible_agents):
        past = lay.view(raw.observe(agent)["observation"], "past_out_orders")
        for p, place in ((0, 0), (1, 1), (2, 3)):
            assert past[0, (p - seat) % 3, place] == 1.0
        assert past[0].sum() == 3 and past[1].sum() == 0
    check_every_seat(env)
