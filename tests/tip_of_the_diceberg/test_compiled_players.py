"""The compiled greedy and heuristic players of Tip of the Diceberg decide as the Python players do.

Decision by decision (:func:`ice_envs.core.player_parity.run_player_parity`) over every player count,
every variant of the spec (the default catalog, the shipped custom catalog, compulsory powers) and an
inline custom catalog without some power decks; then the greedy player's re-deal against
``resample_hidden``, the one-action shortcut, and the heuristic's kept meld (used for the next item of
the same hand only; a position loaded mid-meld with an empty memory is searched in full).
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np
import pytest

from ice_envs import vector
from ice_envs.agents.spec import load_agent
from ice_envs.core.agent import PlayerView, make_view
from ice_envs.core.compiled_players import compiled_player
from ice_envs.core.player_parity import run_player_parity
from ice_envs.core.registry import make as make_env
from ice_envs.core.splitmix import SplitMixRng
from ice_envs.tip_of_the_diceberg import compiled_players as cp
from ice_envs.tip_of_the_diceberg import rules
from ice_envs.tip_of_the_diceberg.catalog import example_catalog_path
from ice_envs.tip_of_the_diceberg.compiled import legal
from ice_envs.tip_of_the_diceberg.compiled_players import _redeal
from ice_envs.tip_of_the_diceberg.rules import resample_hidden

GAME = "tip_of_the_diceberg"

#: A custom catalog as data: no discard or clear deck, a starter with a power, a dice-only card.
INLINE_CATALOG = {
    "name": "inline",
    "cards": [
        {"id": "S1", "deck": "starter", "pattern": {"count": 1}},
        {"id": "S2", "deck": "starter", "power": "take", "pattern": {"count": [2, 3], "sum": [9, 14]}},
        {"id": "R1", "deck": "main", "power": "reroll", "pattern": {"count": 3, "run": True, "distinct": "suit"}},
        {"id": "R2", "deck": "main", "power": "reroll", "pattern": {"count": [2, 4], "parity": "same"}},
        {"id": "T1", "deck": "main", "power": "take", "pattern": {"count": 2, "dice": 2, "same": "suit"}},
    ],
}

#: (player count, options, games) of each parity run; ``ICE_DICEBERG_PLAYER_PARITY_SCALE=2`` plays twice the games.
_SCALE = int(os.environ.get("ICE_DICEBERG_PLAYER_PARITY_SCALE", "1"))
CONFIGS: list[tuple[int, dict[str, Any], int]] = [
    (3, {}, 5 * _SCALE),
    (4, {}, 4 * _SCALE),
    (5, {}, 3 * _SCALE),
    (3, {"compulsory_powers": True}, 5 * _SCALE),
    (4, {"catalog": example_catalog_path()}, 4 * _SCALE),
    (3, {"catalog": INLINE_CATALOG}, 4 * _SCALE),
]


def _label(config: tuple[int, dict[str, Any], int]) -> str:
    n, options, _ = config
    return f"{n}p-" + ("-".join(options) or "default")


@pytest.mark.parametrize("player", ["greedy", "heuristic"])
@pytest.mark.parametrize("config", CONFIGS, ids=_label)
def test_compiled_player_decides_as_the_python_player(player: str, config: tuple[int, dict[str, Any], int]) -> None:
    n, options, games = config
    decisions, played = run_player_parity(
        GAME,
        player,
        num_players=n,
        games=games,
        seed=3,
        options=options,
        python_player=lambda seat: load_agent(player, GAME, seed=seat, num_players=n),
    )
    assert played == games
    assert decisions >= 100 * games


def _positions(num_players: int, games: int, seed: int) -> list[tuple[Any, dict[str, Any], Any]]:
    """(env, observation, view) at every decision of heuristic self-play (the env copied)."""
    out = []
    view_rng = np.random.default_rng(seed)
    for g in range(games):
        env = make_env(GAME, raw=True, num_players=num_players)
        env.reset(seed=seed + g)
        agents = [load_agent("heuristic", GAME, seed=p, num_players=num_players) for p in range(num_players)]
        while not all(env.terminations.values()):
            seat = env.current_seat
            observation = env.observe(env.agent_selection)
            view = make_view(env, seat, view_rng)
            out.append((env.game_state.copy(), observation, view))
            env.step(int(agents[seat].act(observation, view)))
    return out


def test_the_greedy_redeal_is_resample_hidden_drawn_alike() -> None:
    engine = vector.make(GAME, 1, 4, seed=0, engine="compiled")
    order = np.empty(60, dtype=np.int64)
    for k, (state, _, _) in enumerate(_positions(4, 1, 5)[::7]):
        row = np.asarray(engine.pack_state(state), dtype=engine.state_dtype)
        prng = np.array([12345 + k, 0], dtype=np.uint64)
        rng = SplitMixRng(12345 + k)
        out = np.empty_like(row)
        _redeal(row, engine._cfg, state.current, prng, out, order)
        expected = resample_hidden(state, state.current, rng)
        assert np.array_equal(out, engine.pack_state(expected))
        assert int(prng[0]) == rng.state


def test_greedy_takes_the_only_legal_action_without_drawing() -> None:
    engine = vector.make(GAME, 1, 3, seed=0, engine="compiled")
    _, mask, _ = engine.reset()
    single = np.zeros_like(mask[0])
    single[int(np.flatnonzero(mask[0])[-1])] = 1
    prng = np.array([99, 0], dtype=np.uint64)
    for name in ("greedy", "heuristic"):
        player = compiled_player(GAME, name)
        memory = np.zeros(max(1, player.memory_width), dtype=np.int64)
        assert player.act(engine.state[0], engine._cfg, single, prng, memory) == int(np.flatnonzero(single)[0])
        assert int(prng[0]) == 99 and not memory.any()


def test_heuristic_mid_meld_with_an_empty_memory_decides_as_a_fresh_python_heuristic() -> None:
    """A position loaded in the middle of a meld (nothing kept in memory, no plan cached) is searched in full."""
    player = compiled_player(GAME, "heuristic")
    engine = vector.make(GAME, 1, 3, seed=0, engine="compiled")
    checked = 0
    for state, observation, view in _positions(3, 2, 9):
        if not state.selection:
            continue
        agent = load_agent("heuristic", GAME, seed=0, num_players=3)
        expected = int(agent.act(observation, view))
        row = np.asarray(engine.pack_state(state), dtype=engine.state_dtype)
        memory = np.zeros(player.memory_width, dtype=np.int64)
        prng = np.array([1, 0], dtype=np.uint64)
        assert player.act(row, engine._cfg, observation["action_mask"], prng, memory) == expected
        checked += 1
    assert checked >= 50


def test_heuristic_keeps_the_meld_it_composes_and_only_for_that_hand() -> None:
    """The kept meld answers the next decision of the composition; another hand ignores it."""
    player = compiled_player(GAME, "heuristic")
    engine = vector.make(GAME, 1, 3, seed=0, engine="compiled")
    positions = _positions(3, 1, 4)
    starts = [i for i, (state, _, _) in enumerate(positions) if not state.selection and positions[i + 1][0].selection]
    assert starts
    state, observation, _ = positions[starts[0]]
    memory = np.zeros(player.memory_width, dtype=np.int64)
    prng = np.array([1, 0], dtype=np.uint64)
    row = np.asarray(engine.pack_state(state), dtype=engine.state_dtype)
    first = player.act(row, engine._cfg, observation["action_mask"], prng, memory)
    assert first < cp.NI and memory[cp.MEM_MELD] == 1  # an item: the meld is kept
    nxt_state, nxt_obs, nxt_view = positions[starts[0] + 1]
    assert nxt_state.selection == [first]
    nxt_row = np.asarray(engine.pack_state(nxt_state), dtype=engine.state_dtype)
    fresh = load_agent("heuristic", GAME, seed=0, num_players=3)
    expected = int(fresh.act(nxt_obs, nxt_view))
    assert cp._meld_goes_on(nxt_row, memory, cp._held(nxt_row, nxt_state.current)) == expected
    # another seat's hand (the same selection bits but other items) does not match the kept meld
    other = nxt_row.copy()
    other[cp.CURRENT] = (nxt_state.current + 1) % 3
    assert cp._meld_goes_on(other, memory, cp._held(other, int(other[cp.CURRENT]))) == -1


#: A 5-player re-roll position of :data:`INLINE_CATALOG` (a state row): the seat has marked its d4 showing 1
#: and holds a d10 showing 2; both re-rolls pay, so the d10 is marked next. The two dice's (suit, number)
#: keys are 1 and 65: one 64-bit word of seen keys would take the d10 for the d4.
REROLL_ROW = (
    2,
    3,
    0,
    -12,
    0,
    3,
    0,
    1,
    4,
    -12,
    4,
    2,
    0,
    4,
    -12,
    1,
    3,
    4,
    4,
    4,
    2,
    2,
    4,
    2,
    2,
    3,
    2,
    4,
    2,
    0,
    0,
    3,
    0,
    0,
    2,
    0,
    1,
    3,
    4,
    2,
    3,
    1,
    3,
    3,
    1,
    4,
    3,
    1,
    4,
    1,
    1,
    0,
    4,
    0,
    3,
    0,
    3,
    2,
    1,
    2,
    2,
    3,
    1,
    6,
    6,
    3,
    6,
    5,
    5,
    2,
    9,
    9,
    5,
    8,
    12,
    19,
    11,
    8,
    2,
    3,
    1,
    0,
    0,
    4,
    4,
    3,
    2,
    1,
    -1,
    -1,
    -1,
    -1,
    -1,
    -1,
    -1,
    -1,
    0,
    1,
    2,
    4,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    -1,
    -1,
    1,
    -1,
    -1,
    -1,
    -1,
    -1,
    -1,
    -1,
    -1,
    -1,
    3,
    0,
    0,
    2,
    1,
    0,
    0,
    0,
    0,
    0,
    0,
    4,
    1,
    1,
    1,
    1,
    1,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    -1,
    0,
    0,
    1,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    1,
    2,
    0,
    0,
    0,
    0,
    0,
    1123,
    0,
    0,
)


def test_heuristic_judges_each_die_of_a_reroll_whatever_its_suit_and_number() -> None:
    engine = vector.make(GAME, 1, 5, seed=0, engine="compiled", catalog=INLINE_CATALOG)
    row = np.asarray(REROLL_ROW, dtype=engine.state_dtype)
    engine.state[0] = row
    state = engine.state_of(0)
    mask = np.zeros(engine.n_actions, dtype=np.int8)
    legal(row, engine._cfg, mask)
    view = PlayerView(
        game=GAME, seat=state.current, num_players=5, state=state, legal_actions=np.flatnonzero(mask).tolist()
    )
    expected = int(load_agent("heuristic", GAME, seed=0, num_players=5).act({"action_mask": mask}, view))
    player = compiled_player(GAME, "heuristic")
    got = player.act(
        row, engine._cfg, mask, np.array([1, 0], dtype=np.uint64), np.zeros(player.memory_width, dtype=np.int64)
    )
    assert got == expected == rules.MARK + 9


def test_a_hand_plan_past_the_dense_memo_values_subsets_as_the_python_plan_does() -> None:
    """A hand of more than ``DENSE_BITS`` items (cards and many taken dice) is searched with the hashed memo; its
    values, asked in the same order, are the Python ``HandPlan``'s to the bit."""
    from ice_envs.tip_of_the_diceberg import compiled_plans as plans
    from ice_envs.tip_of_the_diceberg.heuristic import HandPlan

    engine = vector.make(GAME, 1, 4, seed=0, engine="compiled")
    state = _positions(4, 1, 21)[0][0]
    seat = state.current
    rng = np.random.default_rng(5)
    pool = [d for d in range(rules.NUM_DICE) if state.die_loc[d] == rules.POOL]
    for d in pool[: plans.DENSE_BITS + 2 - len(rules.items_of(state, seat))]:
        state.die_loc[d] = seat
    items = rules.items_of(state, seat)
    assert len(items) > plans.DENSE_BITS
    cards = state.config.catalog.cards
    python = HandPlan(
        items,
        [rules.pattern_melds(cards[i].pattern, items).melds for i in state.slots],
        [cards[i].power for i in state.slots],
    )
    row = np.asarray(engine.pack_state(state), dtype=engine.state_dtype)
    held = cp._held(row, seat)
    compiled = plans.build_plan(row, engine._cfg, held, plans.new_scratch(), plans.new_entry_table())
    assert compiled[plans.P_KEYS].shape[0] > 0  # hashed
    for mask in [python.full] + [int(m) for m in rng.integers(1, python.full, size=200)]:
        assert plans.value(compiled, mask) == python.value(mask)


def test_the_plan_kept_in_memory_decides_as_a_plan_listed_afresh() -> None:
    """Each decision of a game with the plan of the hand kept in memory equals the same decision with it
    forgotten (the plan listed again), and keeping it changes nothing else in the memory."""
    player = compiled_player(GAME, "heuristic")
    engine = vector.make(GAME, 1, 3, seed=0, engine="compiled")
    memory = np.zeros((3, player.memory_width), dtype=np.int64)
    kept = 0
    for state, observation, _ in _positions(3, 1, 8):
        row = np.asarray(engine.pack_state(state), dtype=engine.state_dtype)
        seat, mask = state.current, observation["action_mask"].astype(np.int8)
        forgetful = memory[seat].copy()
        kept += forgetful[cp.MEM_KEPT] > 0
        forgetful[cp.MEM_KEPT :] = 0
        got = player.act(row, engine._cfg, mask, np.array([1, 0], dtype=np.uint64), memory[seat])
        assert player.act(row, engine._cfg, mask, np.array([1, 0], dtype=np.uint64), forgetful) == got
        assert np.array_equal(forgetful[: cp.MEM_KEPT], memory[seat, : cp.MEM_KEPT])
    assert kept >= 50
