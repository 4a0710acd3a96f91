"""SeatPlayers: in-engine seats advanced in one compiled call, whole games played out with the players."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("numba")

from ice_envs.core import vector
from ice_envs.core.compiled_opponents import EXTERNAL, SeatPlayers
from ice_envs.core.errors import OptionError


def test_advance_stops_every_game_at_a_seat_played_outside_or_at_its_end():
    engine = vector.make("cardiceo", 64, 3, seed=4, engine="compiled")
    engine.reset()
    players = SeatPlayers(engine, ["random", "heuristic"], seed=1)
    players.seat_player[:, 1] = players.index("random")
    players.seat_player[:, 2] = players.index("heuristic")
    rewards, ended, info = players.advance()
    waiting = players.seat_player[np.arange(64), engine.seat]
    assert ((waiting == EXTERNAL) | (ended >= 0)).all()
    assert (engine.seat[ended < 0] == 0).all()
    for i in np.flatnonzero(ended >= 0):  # a game that ended is reported with its final row
        assert info["final_index"][ended[i]] == i
    before = engine.state.copy()
    again, ended2, _ = players.advance()  # nothing left to play: every game waits on seat 0
    assert (ended2 < 0).all() and not again.any()
    assert np.array_equal(before, engine.state)


def test_advance_only_where_asked():
    engine = vector.make("cubemelt", 8, 3, seed=0, engine="compiled")
    engine.reset()
    players = SeatPlayers(engine, ["random"], seed=0)
    players.seat_player[:] = 0
    where = np.zeros(8, dtype=bool)
    where[:4] = True
    before = engine.state[4:].copy()
    players.advance(where=where)
    assert np.array_equal(before, engine.state[4:])


def test_playout_plays_every_game_to_its_end_with_the_seated_players():
    engine = vector.make("cubemelt", 32, 3, seed=2, engine="compiled")
    engine.reset()
    players = SeatPlayers(engine, ["heuristic", "greedy"], seed=3)
    players.seat_player[:, 0] = players.index("heuristic")
    players.seat_player[:, 1:] = players.index("greedy")
    out = players.playout()
    assert (out["length"] > 0).all()
    assert (out["outcome"] != 0).any(axis=1).all(), "every game ends decided"


def test_playout_needs_a_player_at_every_seat_and_unknown_players_are_named():
    engine = vector.make("cardiceo", 4, 2, seed=0, engine="compiled")
    engine.reset()
    players = SeatPlayers(engine, ["random"], seed=0)
    with pytest.raises(OptionError, match="in-engine player at every seat"):
        players.playout()
    with pytest.raises(OptionError, match="not one of the seated players"):
        players.index("heuristic")
    with pytest.raises(OptionError, match="no compiled player 'mcts'"):
        SeatPlayers(engine, ["mcts"])
