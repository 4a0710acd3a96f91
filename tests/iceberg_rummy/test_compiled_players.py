"""Iceberg Rummy's compiled greedy and heuristic players decide as the Python players do, decision by decision.

Every variant of the spec at every player count, for ``greedy``, ``heuristic`` and ``heuristic@v2``
(over 20,000 compared decisions per player), and a few positions where the players' plans, ties,
re-deals and fallbacks matter.
"""

from __future__ import annotations

import os

import numpy as np
import pytest

from ice_envs.agents.spec import load_agent
from ice_envs.core import vector
from ice_envs.core.agent import make_view
from ice_envs.core.compiled_players import compiled_player, compiled_player_names
from ice_envs.core.player_parity import run_player_parity
from ice_envs.core.registry import make as make_env
from ice_envs.core.splitmix import SplitMixRng
from ice_envs.iceberg_rummy import compiled_hand_tools as T
from ice_envs.iceberg_rummy import compiled_players as CP
from ice_envs.iceberg_rummy import melds as M
from ice_envs.iceberg_rummy import rules
from ice_envs.iceberg_rummy.compiled import HANDS, NC, PENDING, STOCK, STOCK_POS
from ice_envs.iceberg_rummy.compiled_redeal import redeal
from ice_envs.iceberg_rummy.spec import SPEC

GAME = "iceberg_rummy"
PLAYERS = ("greedy", "heuristic", "heuristic@v2")
#: Decisions compared per variant and player count (a full game is cut there; single hands are played whole):
#: 140 in CI (3,640 per player over the 26 tables); ICE_RUMMY_PLAYER_PARITY_DECISIONS=780 gives the 20,000-decision
#: sweep per player (about 8 minutes on 2 cores).
_PER_TABLE = int(os.environ.get("ICE_RUMMY_PLAYER_PARITY_DECISIONS", "140"))
DECISIONS = {"greedy": _PER_TABLE, "heuristic": _PER_TABLE, "heuristic@v2": _PER_TABLE}
TABLES = [
    (name, n)
    for name, variant in SPEC.variants.items()
    for n in (variant.players if variant.players is not None else SPEC.players)
]


def _python(player: str, n: int):
    return lambda seat: load_agent(player, GAME, seed=0, num_players=n)


@pytest.mark.parametrize("player", PLAYERS)
@pytest.mark.parametrize(("variant", "num_players"), TABLES)
def test_parity_with_the_python_player(player: str, variant: str, num_players: int) -> None:
    options = dict(SPEC.variants[variant].options)
    target = DECISIONS[player]
    total = 0
    seed = 11
    while total < target:  # whole games (a full game cut at the target)
        decisions, _ = run_player_parity(
            GAME,
            player,
            num_players=num_players,
            games=1,
            seed=seed,
            options=options,
            python_player=_python(player, num_players),
            max_decisions=target - total,
        )
        assert decisions > 0
        total += decisions
        seed += 1
    assert total >= target


def test_every_player_is_listed() -> None:
    assert compiled_player_names(GAME) == ("random", "greedy", "heuristic", "heuristic@v2")
    assert compiled_player(GAME, "heuristic@v1") is CP.PLAYERS["heuristic"]
    assert CP.PLAYERS["heuristic"].memory_width == CP.HEURISTIC_MEMORY


# ---------------------------------------------------------------------------- positions
def _env(num_players: int = 2, seed: int = 3, **options):
    position = options.pop("position", None)
    env = make_env(GAME, raw=True, num_players=num_players, **options)
    env.reset(seed=seed, options=position)
    return env


def _both(env, player: str, *, memory: np.ndarray | None = None, python=None, stream: int = 12345):
    """The Python player's and the compiled player's decision for the deciding seat (and their streams)."""
    n = env.num_players
    seat = env.current_seat
    engine = vector.make(GAME, 1, n, seed=0, engine="compiled", **_options(env))
    compiled = compiled_player(GAME, player)
    agent = python if python is not None else load_agent(player, GAME, seed=0, num_players=n)
    agent.rng = SplitMixRng(stream)
    observation = env.observe(env.agent_selection)
    view = make_view(env, seat, np.random.default_rng(7))
    expected = int(agent.act(observation, view))
    row = np.asarray(engine.pack_state(env.game_state), dtype=engine.state_dtype)
    prng = np.array([stream, 0], dtype=np.uint64)
    if memory is None:
        memory = np.zeros(max(compiled.memory_width, 1), dtype=np.int64)
    mask = np.asarray(observation["action_mask"], dtype=np.int8)
    got = int(compiled.act(row, engine._cfg, mask, prng, memory))
    return expected, got, agent.rng.state, int(prng[0])


def _options(env) -> dict:
    cfg = env.game_state.config
    return {
        "single_hand": cfg.single_hand,
        "ace_scoring": cfg.ace_scoring,
        "ace_holder_finishes": cfg.ace_holder_finishes,
        "allow_clear": cfg.allow_clear,
        "max_hands": cfg.max_hands,
        "max_hands_end": cfg.max_hands_end,
    }


def test_the_plan_is_kept_in_memory_and_followed_card_by_card() -> None:
    """5C 5D 5H 6H 7H: the pair 5C 5D and the run 5H 6H 7H (not the set); the pair first (lowest cards),
    selected card by card from the plan in memory."""
    position = {"dealer": 1, "hands": [M.parse_cards("5C 5D 5H 6H 7H KS 9D"), M.parse_cards("2C 3D 4S 8C JD QH KH")]}
    env = _env(position=position)
    player = load_agent("heuristic", GAME, seed=0, num_players=2)
    memory = np.zeros(CP.HEURISTIC_MEMORY, dtype=np.int64)
    chosen = []
    while env.current_seat == 0 and len(chosen) < 3:
        expected, got, _, _ = _both(env, "heuristic", memory=memory, python=player)
        assert got == expected
        chosen.append(got)
        env.step(expected)
    five_c, five_d = M.parse_cards("5C 5D")
    assert chosen == [five_c, five_d, rules.COMMIT_NEW]
    assert memory[CP.PLAN_VALID] == 1 and memory[CP.PLAN_LEN] == 2


def test_without_a_plan_the_selection_is_completed_as_python_does() -> None:
    """A position met mid-selection with no plan (memory zeroed): the best play extending the selection."""
    position = {"dealer": 1, "hands": [M.parse_cards("5C 5D 5H 6H 7H KS 9D"), M.parse_cards("2C 3D 4S 8C JD QH KH")]}
    env = _env(position=position)
    env.step(M.parse_card("5H"))  # a selection the heuristic would not have begun
    expected, got, _, _ = _both(env, "heuristic")
    assert got == expected == M.parse_card("6H")


@pytest.mark.parametrize("seed", range(6))
def test_discards_match_on_fresh_deals(seed: int) -> None:
    """The first decision of fresh deals of full games (mostly discards: card values and their ties)."""
    env = _env(num_players=3, seed=seed)
    for player in PLAYERS:
        expected, got, python_state, compiled_state = _both(env, player)
        assert got == expected
        assert compiled_state == python_state


def test_redeal_matches_resample_hidden_draw_for_draw() -> None:
    """The re-deal of the hidden cards is ``rules.resample_hidden`` with the same stream: same hands, stock."""
    for n, seed in ((2, 1), (4, 2), (5, 3)):
        env = _env(num_players=n, seed=seed, single_hand=True)
        for _ in range(15):  # some turns in, with passes and melds
            env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[-1]))
        engine = vector.make(GAME, 1, n, seed=0, engine="compiled", single_hand=True)
        state = env.game_state
        seat = state.current
        for stream in (5, 99):
            python = rules.resample_hidden(state, seat, SplitMixRng(stream))
            row = np.asarray(engine.pack_state(state), dtype=engine.state_dtype)
            out = np.empty_like(row)
            prng = np.array([stream, 0], dtype=np.uint64)
            redeal(row, seat, engine._cfg, prng, out)
            hands = out[HANDS : HANDS + n * NC].reshape(n, NC)
            assert np.array_equal(hands, python.hands)
            start = int(out[STOCK_POS])
            assert out[STOCK + start : STOCK + start + python.stock_size].tolist() == python.stock.tolist()
            assert int(out[PENDING]) == python.pending


def test_greedy_asks_python_only_where_a_new_hand_is_dealt() -> None:
    """In a full game the greedy player's outcomes that deal a new hand come from numpy's generator, asked of
    the Python rules; single hands never need them."""
    before = CP.PYTHON_CALLS["dealt_value"]
    run_player_parity(
        GAME,
        "greedy",
        num_players=2,
        games=2,
        seed=5,
        options={"single_hand": True},
        python_player=_python("greedy", 2),
    )
    assert CP.PYTHON_CALLS["dealt_value"] == before
    run_player_parity(GAME, "greedy", num_players=2, games=1, seed=5, python_player=_python("greedy", 2))
    assert CP.PYTHON_CALLS["dealt_value"] > before


def _hands_against_real_tables(env_seed: int, rng_seed: int):
    """``(state, table row, hand)``: hands of 2-24 cards (no aces, two decks) from the cards not on the table, ten
    at every tenth position of a 4-player single hand played at random, melds preferred."""
    rng = np.random.default_rng(rng_seed)
    engine = vector.make(GAME, 1, 4, seed=0, engine="compiled", single_hand=True)
    env = _env(num_players=4, seed=env_seed, single_hand=True)
    for step in range(400):
        mask = env.observe(env.agent_selection)["action_mask"]
        legal = np.flatnonzero(mask)
        plays = legal[(legal < rules.DISCARD_BASE) | (legal >= rules.COMMIT_NEW)]
        env.step(int(rng.choice(plays if plays.size else legal)))
        if all(env.terminations.values()):
            return
        if step % 10:
            continue
        state = env.game_state
        row = np.asarray(engine.pack_state(state), dtype=engine.state_dtype)
        table = T._table_of(row)
        on_table = np.zeros(NC, dtype=np.int64)
        for _, _, cards in state.melds:
            np.add.at(on_table, list(cards), 1)
        pool = np.repeat(np.arange(NC), 2 - on_table)
        for _ in range(10):
            hand = np.zeros(NC, dtype=np.int64)
            np.add.at(hand, rng.choice(pool, size=int(rng.integers(2, 25)), replace=False), 1)
            hand[list(M.ACE_IDS)] = 0
            yield state, table, hand


def test_small_playouts_are_the_reference_playouts() -> None:
    """The heuristic's play-outs (the small exhaustive search, else the engine's) equal ``melds.best_playout``
    on hands of 2-24 cards against tables of real play, two decks."""
    settled = 0
    for state, table, hand in _hands_against_real_tables(9, 4):
        expected = M.best_playout(hand.astype(np.int8), state.table())
        assert T._playout(hand, table, len(state.melds)) == expected
        settled += T._small_playout(hand, table, len(state.melds), T._new_plays())[0] >= 0
    assert settled > 50  # the small search answered many of them


def test_playouts_without_each_card_are_the_reference_playouts() -> None:
    """``playouts_without`` (one search per component) gives, for every card in a play, the points of
    ``melds.best_playout`` of the hand less one copy of it, on hands of 2-24 cards against tables of real play,
    two decks; cards in no play are left alone."""
    checked = 0
    for state, table, hand in _hands_against_real_tables(11, 6):
        plays = T._new_plays()
        n = T._plays_of(hand, table, len(state.melds), *plays)
        out = np.full(NC, -7, dtype=np.int64)
        T.playouts_without(hand, table, len(state.melds), plays, n, out)
        in_play = {int(c) for p in range(max(n, 0)) for c in plays[0][p, : plays[1][p]]}
        for c in range(NC):
            if c not in in_play or hand[c] == 0:
                assert out[c] == -7
                continue
            rest = hand.copy()
            rest[c] -= 1
            assert out[c] == M.best_playout(rest.astype(np.int8), state.table())[0]
            checked += 1
    assert checked > 200


@pytest.mark.parametrize("ace_scoring", ["multiplier", "fixed", "doubling", "cats"])
def test_going_out_check_matches_python_answer_and_stream(ace_scoring: str) -> None:
    """The compiled going-out check (bounded penalties, an early answer) gives ``heuristic.going_out_wins``'s
    answer and leaves the generator where the Python check leaves it, at positions of single hands for every
    seat, with gains from far below to far above the others' hands (answers of both kinds; a negative gain is no
    real play's, but the check is the same function of it)."""
    from ice_envs.iceberg_rummy import heuristic as H

    rng = np.random.default_rng(8)
    answers = {True: 0, False: 0}
    for n, seed in ((2, 4), (3, 5), (4, 6)):
        env = _env(num_players=n, seed=seed, single_hand=True, ace_scoring=ace_scoring)
        engine = vector.make(GAME, 1, n, seed=0, engine="compiled", single_hand=True, ace_scoring=ace_scoring)
        for step in range(300):
            if all(env.terminations.values()):
                break
            legal = np.flatnonzero(env.observe(env.agent_selection)["action_mask"])
            env.step(int(rng.choice(legal)))
            if step % 7 or all(env.terminations.values()):
                continue
            state = env.game_state
            row = np.asarray(engine.pack_state(state), dtype=engine.state_dtype)
            for seat in range(n):
                for gain in (-200, -40, -10, 0, 10, 40, 200):
                    stream = int(rng.integers(1, 2**62))
                    python_rng = SplitMixRng(stream)
                    expected = H.going_out_wins(state, seat, gain, python_rng)
                    prng = np.array([stream, 0], dtype=np.uint64)
                    assert CP._going_out_wins(row, seat, engine._cfg, gain, prng) == expected
                    assert int(prng[0]) == python_rng.state
                    answers[bool(expected)] += 1
    assert min(answers.values()) > 20
