"""Seats played inside a compiled engine: every opponent's turn advanced in machine code.

:class:`SeatPlayers` says which compiled player (:mod:`ice_envs.core.compiled_players`: ``random``,
``greedy``, ``heuristic``...) holds each seat of each game of a
:class:`~ice_envs.core.compiled.CompiledEngine`, or that a seat is played outside the engine (a
learner, a neural snapshot: ``-1``). It keeps each seat's random stream and memory, and:

* :meth:`SeatPlayers.advance` plays, in one compiled call, every game forward through the turns of
  its in-engine seats until a seat played outside must decide or the game ends, summing every
  seat's rewards on the way. A training env steps the learner's action with ``engine.step`` and
  then calls ``advance``; a frozen policy (a self-play snapshot) is one batched forward pass for the
  games waiting on it, stepped with ``engine.step(actions, where=...)``.
* :meth:`SeatPlayers.playout` plays every game to its end with the seats' players (search
  rollouts: the heuristic as rollout policy), after an optional first action.

A player decides exactly as the game's Python player does (tested decision by decision), so a
game advanced here is the game the scalar env would play with those agents, on the engine's chance.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ice_envs.core.compiled import CompiledEngine, seed_streams
from ice_envs.core.compiled_players import compiled_player
from ice_envs.core.errors import IllegalActionError, OptionError

__all__ = ["EXTERNAL", "SeatPlayers"]

#: ``seat_player`` entry of a seat played outside the engine (the learner, a snapshot).
EXTERNAL = -1


class SeatPlayers:
    """The players of every seat of every game of ``engine`` that play inside it (module docstring).

    Args:
        engine: a compiled batched engine.
        players: the compiled players that may sit (agent specs: ``random``, ``greedy``, ``heuristic``,
            ``heuristic@v2``...); :attr:`seat_player` holds indices into this list.
        seed: seeds the players' own streams (one per game and seat).

    :attr:`seat_player` ``(num_envs, num_players)``: the index of the player at each seat, or
    :data:`EXTERNAL`; set it (e.g. when a game is dealt) before :meth:`advance`. :attr:`memory` of a
    game is zeroed whenever it is dealt here; call :meth:`forget` for games dealt by ``engine.step``.
    """

    def __init__(self, engine: CompiledEngine, players: Sequence[str], seed: int | None = None) -> None:
        if not isinstance(engine, CompiledEngine):
            raise OptionError(f"SeatPlayers needs a compiled engine, got {type(engine).__name__}")
        self.engine = engine
        self.names = tuple(players)
        self.players = tuple(compiled_player(engine.game, name) for name in self.names)
        n, p = engine.num_envs, engine.num_players
        self.seat_player = np.full((n, p), EXTERNAL, dtype=np.int64)
        streams = seed_streams(None if seed is None else int(seed) ^ 0x0990, n * p)
        self.prng = np.zeros((n, p, 2), dtype=np.uint64)
        self.prng[:, :, 0] = streams.reshape(n, p)
        width = max([pl.memory_width for pl in self.players] + [1])
        self.memory = np.zeros((n, p, width), dtype=np.int64)
        self._acc = np.zeros((n, p), dtype=np.float64)
        self._ended = np.zeros(n, dtype=np.int64)
        loops = engine._loops
        #: each of :attr:`players` as its number in the engine's loops (``loops.PLAYERS``)
        self._kinds = np.array([loops.PLAYERS.index(player.name) for player in self.players], dtype=np.int64)
        self._advance, self._playout = loops.advance, loops.seat_playout

    def index(self, name: str) -> int:
        """The index of player ``name`` in :attr:`names`."""
        try:
            return self.names.index(name)
        except ValueError:
            raise OptionError(f"{self.engine.game}: {name!r} is not one of the seated players {self.names}") from None

    def forget(self, games: np.ndarray) -> None:
        """Zero the memory of ``games`` (indices or a boolean mask): they were dealt anew."""
        self.memory[np.asarray(games)] = 0

    def advance(self, where: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, dict[str, Any]]:
        """Play the in-engine seats of every game (or where ``where``) until a seat played outside must
        decide or the game ends; one compiled call.

        Returns ``(rewards, ended, info)``: ``rewards`` ``(N, P)`` summed over the decisions played;
        ``ended[i]``: the row of ``info``'s ``final_*`` arrays of game ``i`` if it ended (the game is
        dealt anew and waits: set its seats and call again), else ``-1``; ``info`` as ``engine.step``'s.
        """
        e = self.engine
        active = e._everywhere if where is None else np.asarray(where, dtype=bool)
        k = self._advance(
            active, self.seat_player, self._kinds, self.prng, self.memory, self._acc, self._ended, e.state, e._rng,
            e._cfg, e._score_mode, e.max_game_length, e.illegal_reward, e._mark, e.num_steps, e.last_scores, e.mask,
            e.seat, e.obs, e._rewards, e._terminated, e._truncated, e._illegal, e._fin_index, e._fin_obs,
            e._fin_rewards, e._fin_scores, e._fin_outcome, e._fin_length, e._scratch,
        )  # fmt: skip
        if k <= -2:
            game = -2 - k
            who = int(e.seat[game])
            name = self.names[int(self.seat_player[game, who])]
            raise IllegalActionError(f"{e.game}: game {game}: the compiled {name} player chose an illegal action")
        info = {
            "final_index": e._fin_index[:k].copy(),
            "illegal": e._illegal.copy(),
            "final_obs": e._fin_obs[:k].copy(),
            "final_rewards": e._fin_rewards[:k].copy(),
            "final_scores": e._fin_scores[:k].copy(),
            "final_outcome": e._fin_outcome[:k].copy(),
            "final_length": e._fin_length[:k].copy(),
            "terminated": e._terminated.copy(),
            "truncated": e._truncated.copy(),
        }
        return self._acc.copy(), self._ended.copy(), info

    def playout(
        self, first_actions: np.ndarray | None = None, *, max_decisions: int | None = None
    ) -> dict[str, np.ndarray]:
        """Every game from its row to its end with the seats' players (all seats must be in-engine),
        ``first_actions[i]`` first where ``>= 0``; as ``engine.playout`` (``scores``, ``outcome``,
        ``length``). The memory is zeroed first; the rows hold the finished games afterwards."""
        e = self.engine
        if (self.seat_player < 0).any():
            raise OptionError(f"{e.game}: playout needs an in-engine player at every seat")
        n, p = e.num_envs, e.num_players
        first = e.checked_first_actions(first_actions)
        self.memory[:] = 0
        out = {
            "scores": np.zeros((n, p), dtype=np.float64),
            "outcome": np.zeros((n, p), dtype=np.float64),
            "length": np.zeros(n, dtype=np.int64),
        }
        limit = e.max_game_length if max_decisions is None else int(max_decisions)
        game = self._playout(
            e.state, e._rng, e._cfg, e.mask, self.seat_player, self._kinds, self.prng, self.memory, first, limit,
            out["scores"], out["outcome"], out["length"],
        )  # fmt: skip
        if game >= 0:
            raise IllegalActionError(f"{e.game}: game {game}: a compiled player chose an illegal action in a playout")
        e._started = False
        return out
