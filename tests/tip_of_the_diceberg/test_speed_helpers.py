"""The helpers added for speed: pair compatibility tables, bitmask meld trees, ``apply_legal``,
rolling dice in one draw, meld caches derived from the previous items."""

from __future__ import annotations

import numpy as np
import pytest

from ice_envs.tip_of_the_diceberg import patterns as P
from ice_envs.tip_of_the_diceberg import rules
from ice_envs.tip_of_the_diceberg.catalog import example_catalog_path, load_catalog
from tests.tip_of_the_diceberg.test_patterns import ALL_PATTERNS, _random_items


def test_bits():
    assert rules.bits(0) == []
    assert rules.bits(0b1010) == [1, 3]
    assert rules.bits(1 << 77 | 1) == [0, 77]


def test_companions_admit_every_pair_of_a_meld():
    """Two items of any meld are companions of each other (the table only rules out pairs)."""
    rng = np.random.default_rng(7)
    for p in ALL_PATTERNS:
        for _ in range(5):
            items = _random_items(rng, 8, 4, low_dice=True)
            by_id = {it[0]: it for it in items}
            for meld in P.enumerate_melds(p, items):
                for a in meld:
                    x = by_id[a]
                    ok = p.companions(x[1], x[2])
                    assert all(ok[by_id[b][1] * 21 + by_id[b][2]] for b in meld if b != a)


def test_pattern_melds_tree_matches_the_melds():
    rng = np.random.default_rng(11)
    for p in ALL_PATTERNS[:40]:
        items = _random_items(rng, 10, 4, low_dice=True)
        melds = P.enumerate_melds(p, items)
        pm = rules.PatternMelds(melds)
        assert pm.first == frozenset(m[0] for m in melds)
        prefixes = {m[:i] for m in melds for i in range(1, len(m) + 1)}
        for prefix in prefixes:
            nxt = {m[len(prefix)] for m in melds if m[: len(prefix)] == prefix and len(m) > len(prefix)}
            assert pm.node(prefix) == (nxt, prefix in melds)
        assert pm.node((99,)) is None


def test_apply_legal_equals_apply_on_legal_actions():
    rng_a, rng_b, pick = np.random.default_rng(3), np.random.default_rng(3), np.random.default_rng(4)
    a = rules.new_game(rules.DicebergConfig(num_players=4), rng_a)
    b = rules.new_game(rules.DicebergConfig(num_players=4), rng_b)
    for _ in range(500):
        if rules.is_over(a):
            break
        legal = rules.legal_actions(a)
        action = legal[int(pick.integers(len(legal)))]
        rules.apply(a, action, rng_a)
        rules.apply_legal(b, action, rng_b)
        assert a == b


def test_rolling_many_dice_at_once_draws_what_one_die_at_a_time_draws():
    """``_roll`` draws a numpy generator's dice in one call: the same values and the same stream afterwards."""
    state = rules.new_game(rules.DicebergConfig(num_players=5), np.random.default_rng(0))
    for seed in range(30):
        which = sorted(np.random.default_rng(seed).choice(rules.NUM_DICE, 1 + seed % 12, replace=False).tolist())
        a, b = np.random.default_rng(seed), np.random.default_rng(seed)
        rules._roll(state, a, which)
        expected = [int(b.integers(1, P.SUIT_FACES[P.DIE_TYPE[d]] + 1)) for d in which]
        assert [state.die_value[d] for d in which] == expected
        assert a.integers(0, 1 << 30) == b.integers(0, 1 << 30)


def _check_seeded(s: rules.DicebergState) -> int:
    """Every seat's cached melds (if cached) equal a fresh enumeration, as sets, with the right first items."""
    checked = 0
    for seat in range(s.config.num_players):
        items = rules.items_of(s, seat)
        cached = rules._SLOT_MELDS.get((s.config.catalog, tuple(s.slots), items))
        if cached is None:
            continue
        for pm, idx in zip(cached, s.slots):
            fresh = P.enumerate_melds(s.config.catalog.cards[idx].pattern, items)
            assert sorted(pm.melds) == sorted(fresh) and len(set(pm.melds)) == len(pm.melds)
            assert pm.first_mask == sum({1 << m[0] for m in fresh})
        checked += 1
    return checked


@pytest.mark.parametrize("catalog", ["default", "example"])
def test_derived_meld_caches_equal_fresh_enumeration_for_every_change(catalog):
    """Plays, takes, discards and re-rolls, also with identical dice, derive every seat's melds exactly."""
    rng = np.random.default_rng(21)
    kinds: set[str] = set()
    checked = 0
    for game in range(6):
        options = {} if catalog == "default" else {"catalog": load_catalog(example_catalog_path())}
        s = rules.new_game(rules.DicebergConfig(num_players=3 + game % 3, **options), rng)
        for _ in range(500):
            if rules.is_over(s):
                break
            for seat in range(s.config.num_players):
                rules.slot_melds(s, seat)  # every seat's cache warm, so every change is derived
            legal = rules.legal_actions(s)
            action = legal[int(rng.integers(len(legal)))]
            held = rules.items_of(s, s.current)
            twins = len({(it[1], it[2]) for it in held if it[3]}) < sum(1 for it in held if it[3])
            if s.phase == rules.PHASE_REROLL and action == rules.REROLL:
                kinds.add("reroll")
            elif twins:
                kinds.add("identical dice held")
            rules.apply(s, action, rng)
            checked += _check_seeded(s)
    assert kinds == {"reroll", "identical dice held"} and checked > 1000


def test_taking_a_die_identical_to_one_held_is_derived():
    """The last of identical dice joins only melds with all of them; one before them is searched afresh."""
    cfg = rules.DicebergConfig(num_players=4)
    s = rules.new_game(cfg, np.random.default_rng(1), start_player=0, hands=[["d6:2", "d8:2"], [], [], []])
    s.phase, s.draft_order = rules.PHASE_PLAY, []
    s.die_loc = [rules.POOL] * rules.NUM_DICE
    s.die_value = [2 if P.DIE_TYPE[d] == 0 else 5 for d in range(rules.NUM_DICE)]  # the d4s show 2
    s.die_loc[0] = 0  # seat 0 holds d4 #0 showing 2
    rules.slot_melds(s, 0)
    rules._take_die(s, 0, 1)  # d4 #1 (also 2) comes after #0: derived
    assert _check_seeded(s) >= 1
    key = (cfg.catalog, tuple(s.slots), rules.items_of(s, 0))
    assert key in rules._SLOT_MELDS


@pytest.mark.parametrize("n", [3, 5])
def test_patched_observations_equal_fresh_encodings(n):
    """A select patches the selecting seat's last observation (``_play_memo``): every observation
    ``last()`` gives, and every seat's ``observe``, equals a fresh encoding of the same state."""
    from ice_envs import tip_of_the_diceberg_v1
    from ice_envs.core.masks import sample_legal

    env = tip_of_the_diceberg_v1.raw_env(num_players=n)
    rng = np.random.default_rng(n)
    patched = 0
    for game in range(2):
        env.reset(seed=game)
        for agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            s = env.game_state
            memo = env._play_memo
            if memo is not None and memo[0] is s and memo[1] == env._num_steps and s.selection:
                patched += 1
            seat = env._seat_of[agent]
            np.testing.assert_array_equal(obs["observation"], env._encode_fresh(seat))
            for q, other in enumerate(env.possible_agents):
                np.testing.assert_array_equal(env.observe(other)["observation"], env._encode_fresh(q))
            env.step(None if term or trunc else sample_legal(rng, obs["action_mask"]))
    assert patched > 100  # the patched path was taken


def test_patched_observation_is_independent_of_what_was_returned():
    """Writing into a returned observation changes neither the memo nor the next observation."""
    from ice_envs import tip_of_the_diceberg_v1

    env = tip_of_the_diceberg_v1.raw_env(num_players=4)
    env.reset(seed=3)
    while env.game_state.phase != rules.PHASE_PLAY:
        env.step(int(np.flatnonzero(env.action_mask())[0]))
    first = env.observe(env.agent_selection)["observation"]
    first[:] = 7.0
    select = int(np.flatnonzero(env.action_mask()[: rules.COMMIT])[0])
    env.step(select)
    seat = env._seat_of[env.agent_selection]
    after = env.observe(env.agent_selection)["observation"]
    np.testing.assert_array_equal(after, env._encode_fresh(seat))
    assert after.max() == 1.0
    # a state put in its place (same step count) is encoded afresh
    env.game_state = env.game_state.copy()
    env.game_state.selection = []
    np.testing.assert_array_equal(env.observe(env.agent_selection)["observation"], env._encode_fresh(seat))
