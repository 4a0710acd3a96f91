"""``TipOfTheDicebergCompiled.pack_state`` is the inverse of ``state_of``, and ``load`` puts scalar states back.

Positions of random play (every phase, cleared tricks, finished rounds and games) with the default
catalog, the compulsory powers and a custom catalog missing power decks.
"""

from __future__ import annotations

import numpy as np
import pytest

from ice_envs import vector

GAME = "tip_of_the_diceberg"

#: A custom catalog: no discard or clear deck, a starter with a power, a dice-only card.
SMALL_CATALOG = {
    "name": "small",
    "cards": [
        {"id": "S1", "deck": "starter", "pattern": {"count": 1}},
        {"id": "S2", "deck": "starter", "power": "take", "pattern": {"count": [2, 3], "sum": [9, 14]}},
        {"id": "R1", "deck": "main", "power": "reroll", "pattern": {"count": 3, "run": True, "distinct": "suit"}},
        {"id": "R2", "deck": "main", "power": "reroll", "pattern": {"count": [2, 4], "parity": "same"}},
        {"id": "T1", "deck": "main", "power": "take", "pattern": {"count": 2, "dice": 2, "same": "suit"}},
    ],
}


@pytest.mark.parametrize(
    ("num_players", "options"),
    [
        (3, {}),
        (4, {"num_rounds": 2}),
        (5, {}),
        (3, {"compulsory_powers": True}),
        (4, {"catalog": SMALL_CATALOG}),
    ],
)
def test_pack_state_inverts_state_of_and_load_restores_the_states(num_players: int, options: dict) -> None:
    num_envs = 24
    engine = vector.make(GAME, num_envs, num_players, seed=7, engine="compiled", **options)
    _, mask, _ = engine.reset()
    rng = np.random.default_rng(7)
    phases: set[int] = set()
    for step in range(300):
        _, mask, *_ = engine.step(vector.random_actions(mask, rng))
        if step % 7:
            continue
        rows = engine.state.copy()
        states = [engine.state_of(i) for i in range(num_envs)]
        for i, state in enumerate(states):
            assert np.array_equal(engine.pack_state(state), rows[i]), f"game {i} at step {step}"
            phases.add(state.phase)
        if step % 49:
            continue
        # load() the scalar states into a fresh engine and read them back
        other = vector.make(GAME, num_envs, num_players, seed=1, engine="compiled", **options)
        _, other_mask, _ = other.load(states)
        assert np.array_equal(other.state, rows)
        assert np.array_equal(other_mask, mask)
        assert [other.state_of(i) for i in range(num_envs)] == states
    assert len(phases) >= 3  # the draft, play and powers at least
