"""A stable-baselines3 ``VecEnv`` over a compiled engine, every opponent played inside the batch.

:class:`CompiledVecEnv` is :class:`~ice_envs.train.batched_vec_env.BatchedVecEnv` (same per-game
semantics: the learner at one seat per game, rewards summed since its last decision, ``info`` at a
game end, ``action_masks()``) on a game's compiled engine (:mod:`ice_envs.core.compiled`), for every
game and every option the scalar env supports, with the opponents of the training configs:

* ``random``, ``heuristic`` and ``greedy``: the game's compiled players
  (:mod:`ice_envs.core.compiled_players`), deciding exactly as the Python agents do, advanced in
  one compiled call through every opponent turn of the batch
  (:class:`~ice_envs.core.compiled_opponents.SeatPlayers`);
* ``self_play``: frozen snapshots of the learner (``.npz``, :class:`~ice_envs.agents.ppo_agent.PolicyNet`),
  one batched forward pass per snapshot for all the games waiting on it; each seat drawn from the
  pool as :class:`~ice_envs.wrappers.opponents.OpponentMix` does (the latest with probability
  ``latest_share``, else uniformly).

The kind of each opponent seat is drawn per game from the weights (``per_seat``, as
``OpponentMix``'s default; or one kind per table). Hidden cards are never re-dealt for a player that reads only its own
view, so an opponent's decision costs what its own rule costs.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ice_envs.agents.ppo_agent import PolicyNet, load_policy_net
from ice_envs.core.compiled_opponents import EXTERNAL, SeatPlayers
from ice_envs.core.compiled_players import compiled_player_names
from ice_envs.core.errors import OptionError
from ice_envs.core.vector import BatchedEngine
from ice_envs.core.vector import make as make_batched
from ice_envs.train.batched_vec_env import MAX_OPPONENT_ROUNDS, BatchedVecEnv
from ice_envs.wrappers.opponents import SEAT_SEPARATOR

__all__ = ["COMPILED_OPPONENT_KINDS", "CompiledVecEnv"]

#: The opponent kinds a :class:`CompiledVecEnv` plays.
COMPILED_OPPONENT_KINDS = ("random", "heuristic", "greedy", "self_play")
_IN_ENGINE = ("random", "heuristic", "greedy")


class BatchedPolicy:
    """A snapshot's :class:`~ice_envs.agents.ppo_agent.PolicyNet` as torch tensors, for one forward pass
    over many observations (torch's CPU kernels are several times numpy's for these shapes)."""

    def __init__(self, net: PolicyNet) -> None:
        import torch

        self._torch = torch
        self.weights = [torch.from_numpy(np.ascontiguousarray(w, dtype=np.float32)) for w in net.weights]
        self.biases = [torch.from_numpy(np.ascontiguousarray(b, dtype=np.float32)) for b in net.biases]
        self.activation = torch.tanh if net.activation == "tanh" else torch.relu

    def logits(self, obs: np.ndarray) -> np.ndarray:
        """``(rows, n_actions)`` float64 logits of ``obs`` (``(rows, obs_size)``)."""
        torch = self._torch
        with torch.inference_mode():
            x = torch.from_numpy(np.ascontiguousarray(obs, dtype=np.float32))
            last = len(self.weights) - 1
            for i, (w, b) in enumerate(zip(self.weights, self.biases, strict=True)):
                x = torch.nn.functional.linear(x, w, b)
                if i < last:
                    x = self.activation(x)
            return x.numpy().astype(np.float64)


class CompiledVecEnv(BatchedVecEnv):
    """``num_envs`` games of a compiled engine, the learner at one seat of each (module docstring).

    Args:
        game: the game (any game with a compiled engine).
        num_envs: games (= SB3 envs).
        num_players: seats per game.
        options: the game's options.
        opponents: weight per kind (``random``, ``heuristic``, ``greedy``, ``self_play``), drawn per
            opponent seat at each game start.
        learner_seat: a fixed learner seat; ``None`` draws it uniformly per game.
        seed: seeds the engine, the players' streams and the env's generator.
        illegal_action: ``"penalize"`` (default) or ``"raise"``.
        pool: ``.npz`` snapshot paths, oldest first (:meth:`set_pool`).
        latest_share: chance that a self-play seat gets the latest snapshot.
        snapshot_deterministic: snapshots play their most likely action instead of sampling.
        per_seat: draw a kind per opponent seat (``True``) or one kind for the whole table.
        league: league self-play: ``(members, weights, per_seat, deterministic)`` as
            :class:`~ice_envs.wrappers.opponents.LeagueOpponents` takes them (replaces ``opponents``;
            :meth:`set_league`, or ``set_attr("opponents", LeagueOpponents(...))`` as the training
            callbacks do, updates it). A fixed member is a compiled player (``random``, ``greedy``,
            ``heuristic``...) or ``ppo:PATH``; a snapshot member a ``.npz`` policy. Each finished
            game's ``info["opponents"]`` names its table, as the scalar training env's does.
        shaping: potential-based reward shaping ``(potential, scale, gamma)`` as
            :class:`~ice_envs.train.shaping.Shaper` adds it on the scalar path: between two learner
            decisions ``scale * (gamma * phi(s') - phi(s))`` (0 after a game's end, nothing on an
            illegal action), with the game's batched potential of that name
            (``GameSpec.batched_potentials``); ``info["episode"]["r"]`` stays the game's own return.
    """

    opponent_kinds = COMPILED_OPPONENT_KINDS

    def __init__(
        self,
        game: str,
        num_envs: int,
        num_players: int = 2,
        options: dict[str, Any] | None = None,
        opponents: dict[str, float] | None = None,
        learner_seat: int | None = None,
        seed: int | None = 0,
        illegal_action: str = "penalize",
        pool: Sequence[str] = (),
        latest_share: float = 0.5,
        snapshot_deterministic: bool = False,
        per_seat: bool = True,
        league: tuple[Sequence[tuple[str, str, str]], Sequence[int], bool, bool] | None = None,
        shaping: tuple[str, float, float] | None = None,
    ) -> None:
        self.per_seat = bool(per_seat)
        self._potential = None
        if shaping is not None:
            from ice_envs.core.registry import get_spec

            name, scale, gamma = shaping
            self._potential = get_spec(game).batched_potential(name)
            self.shaping = (str(name), float(scale), float(gamma))
            #: each game's potential at the learner's last decision (0 before the first)
            self.phi_last = np.zeros(num_envs, dtype=np.float64)
            self._GAME_ARRAYS = (*type(self)._GAME_ARRAYS, "phi_last")
        super().__init__(game, num_envs, num_players, options, opponents, learner_seat, seed, illegal_action)
        have = compiled_player_names(game)
        missing = [k for k in self.kinds if k in _IN_ENGINE and k not in have]
        if missing:
            raise OptionError(f"CompiledVecEnv: {game} has no compiled {', '.join(missing)} player (it has {have})")
        inside = [k for k in self.kinds if k in _IN_ENGINE]
        if league is not None:
            inside += [spec for spec in (_member_player(m, have) for m in league[0]) if spec and spec not in inside]
        self.players = SeatPlayers(self.engine, inside, seed=seed)
        n, p = self.num_envs, self.num_players
        self.seat_player = self.players.seat_player
        self.player_prng = self.players.prng
        self.player_memory = self.players.memory
        self.seat_kind = np.zeros((n, p), dtype=np.int64)
        self.snap = np.full((n, p), -1, dtype=np.int64)
        self.latest_share = float(latest_share)
        self.snapshot_deterministic = bool(snapshot_deterministic)
        #: every snapshot path ever pooled (``snap`` holds indices into it) and the pool, as indices
        self._snap_paths: list[str] = []
        self._pool: list[int] = []
        self._nets: dict[int, BatchedPolicy] = {}
        #: league self-play: the members' names, their seat (a player index, or ``-2 - k``: policy ``k``)
        #: and the cumulative integer weights; ``labels[i]``: game ``i``'s table for ``info["opponents"]``
        self._league: dict[str, Any] | None = None
        #: the arguments of the last set_league (the callbacks hand the same table to every env index)
        self._league_table: tuple[Any, ...] | None = None
        self.labels: list[str] = [""] * self.num_envs
        self.set_pool(pool)
        if league is not None:
            self.set_league(*league)

    # ---------------------------------------------------------------- hooks of BatchedVecEnv
    def _build_engine(
        self, game: str, num_envs: int, num_players: int, seed: int | None, options: dict[str, Any]
    ) -> BatchedEngine:
        return make_batched(game, num_envs, num_players, seed=seed, copy=False, engine="compiled", **options)

    def _engine_arrays(self) -> dict[str, np.ndarray]:
        return {**super()._engine_arrays(), "streams": self.engine._rng[:, :1]}

    _GAME_ARRAYS = (
        *BatchedVecEnv._GAME_ARRAYS,
        "seat_player",
        "player_prng",
        "player_memory",
        "seat_kind",
        "snap",
    )

    def set_pool(self, paths: Sequence[str]) -> None:
        """Replace the self-play pool (oldest first; the last is the latest snapshot)."""
        self._pool = [self._policy_index(path) for path in paths]
        self._drop_unused_nets()

    def _policy_index(self, path: str) -> int:
        path = str(path)
        if path not in self._snap_paths:
            self._snap_paths.append(path)
        return self._snap_paths.index(path)

    def _drop_unused_nets(self) -> None:
        used = set(self._pool) | set(self.snap[self.snap >= 0].tolist())
        if self._league is not None:
            used |= {-2 - k for k in self._league["seats"] if k <= -2}
        self._nets = {k: net for k, net in self._nets.items() if k in used}

    def set_league(
        self,
        members: Sequence[tuple[str, str, str]],
        weights: Sequence[int],
        per_seat: bool | None = None,
        deterministic: bool | None = None,
    ) -> None:
        """League self-play from now on: each new game's opponents drawn from ``members`` by the integer
        ``weights`` (as :class:`~ice_envs.wrappers.opponents.LeagueOpponents` draws them)."""
        table = ([tuple(m) for m in members], [int(w) for w in weights], per_seat, deterministic)
        if table == self._league_table:
            return
        from ice_envs.wrappers.opponents import LeagueOpponents

        checked = LeagueOpponents(self.game, self.num_players, members, weights)  # the same checks
        have = compiled_player_names(self.game)
        seats = []
        for member in checked.members:
            spec = _member_player(member, have)
            if spec:
                seats.append(self.players.index(spec))
            else:
                seats.append(-2 - self._policy_index(_member_policy_path(member)))
        old = self._league or {}
        self._league = {
            "names": [m[0] for m in checked.members],
            "seats": seats,
            "cumulative": np.cumsum(np.asarray(checked.weights, dtype=np.int64)),
            "per_seat": old.get("per_seat", True) if per_seat is None else bool(per_seat),
        }
        if deterministic is not None:
            self.snapshot_deterministic = bool(deterministic)
        self._drop_unused_nets()
        self._league_table = table

    def set_attr(self, attr_name: str, value: Any, indices: Any = None) -> None:
        """As SB3's; ``set_attr("opponents", LeagueOpponents(...))`` (the training callbacks' league
        update, once per env index) sets the whole batch's league."""
        from ice_envs.wrappers.opponents import LeagueOpponents

        if attr_name == "opponents" and isinstance(value, LeagueOpponents):
            self.set_league(value.members, value.weights, value.per_seat, value.snapshot_deterministic)
            return
        super().set_attr(attr_name, value, indices)

    def _net(self, index: int) -> BatchedPolicy:
        if index not in self._nets:
            self._nets[index] = BatchedPolicy(load_policy_net(Path(self._snap_paths[index])))
        return self._nets[index]

    def _new_episodes(self, idx: np.ndarray) -> None:
        """Seat the learner and every opponent of the new games ``idx``: a kind per opponent seat, an
        in-engine player or a snapshot for each; the players' memory of those games is cleared."""
        if not idx.size:
            return
        super()._new_episodes(idx)  # learner seat, table kind, returns, lengths, carry
        if self._league is not None:
            self._seat_league(idx)
            return
        p = self.num_players
        if self.per_seat:
            kinds = self.rng.choice(len(self.kinds), size=(idx.size, p), p=self.kind_probs)
        else:
            table = self.rng.choice(len(self.kinds), size=(idx.size, 1), p=self.kind_probs)
            kinds = np.repeat(table, p, axis=1)
        kinds[np.arange(idx.size), self.seat[idx]] = -1
        self.seat_kind[idx] = kinds
        self.players.forget(idx)
        self.seat_player[idx] = EXTERNAL
        self.snap[idx] = -1
        for k, kind in enumerate(self.kinds):
            rows, seats = np.nonzero(kinds == k)
            if not rows.size:
                continue
            if kind == "self_play":
                self.snap[idx[rows], seats] = self._draw_snapshots(rows.size)
            else:
                self.seat_player[idx[rows], seats] = self.players.index(kind)
        first = kinds.max(axis=1)  # the table's label: its highest drawn kind
        self.kind[idx] = np.maximum(first, 0)

    def _seat_league(self, idx: np.ndarray) -> None:
        """League members at the opponent seats of the new games ``idx``, from the learner's left."""
        league = self._league
        p = self.num_players
        others = p - 1
        self.players.forget(idx)
        self.seat_player[idx] = EXTERNAL
        self.snap[idx] = -1
        self.seat_kind[idx] = -1
        if others == 0:
            for i in idx.tolist():
                self.labels[i] = "solo"
            return
        cumulative = league["cumulative"]
        draws = self.rng.integers(int(cumulative[-1]), size=(idx.size, others if league["per_seat"] else 1))
        picks = np.searchsorted(cumulative, draws, side="right")
        if not league["per_seat"]:
            picks = np.repeat(picks, others, axis=1)
        seats = (self.seat[idx, None] + 1 + np.arange(others)[None, :]) % p
        where = np.asarray(league["seats"], dtype=np.int64)[picks]
        rows = np.repeat(idx[:, None], others, axis=1)
        inside = where >= 0
        self.seat_player[rows[inside], seats[inside]] = where[inside]
        self.snap[rows[~inside], seats[~inside]] = -2 - where[~inside]
        self.seat_kind[rows, seats] = picks
        names = league["names"]
        for row, game in enumerate(idx.tolist()):
            table = [names[k] for k in picks[row].tolist()]
            self.labels[game] = table[0] if len(set(table)) == 1 else SEAT_SEPARATOR.join(table)

    def _final_info(
        self, i: int, final_obs: np.ndarray, won: bool, truncated: bool, scores: np.ndarray
    ) -> dict[str, Any]:
        info = super()._final_info(i, final_obs, won, truncated, scores)
        if self._league is not None:
            info["opponents"] = self.labels[i]
        return info

    def _shape(self, rewards: np.ndarray | None, dones: np.ndarray, illegal: np.ndarray) -> None:
        if self._potential is None:
            return
        _, scale, gamma = self.shaping
        now = np.asarray(self._potential(self.engine.state, self.engine._cfg, self.seat), dtype=np.float64)
        if rewards is not None:
            after = np.where(dones, 0.0, now)
            bonus = scale * (gamma * after - self.phi_last)
            bonus[illegal] = 0.0
            rewards += bonus
        self.phi_last[:] = now  # a finished game's row is already the next game's first decision

    def _draw_snapshots(self, count: int) -> np.ndarray:
        if not self._pool:
            raise RuntimeError("self-play opponent drawn but the snapshot pool is empty")
        latest = self._pool[-1]
        if len(self._pool) == 1:
            return np.full(count, latest, dtype=np.int64)
        use_latest = self.rng.random(count) < self.latest_share
        other = np.asarray(self._pool, dtype=np.int64)[self.rng.integers(len(self._pool), size=count)]
        return np.where(use_latest, latest, other)

    # ---------------------------------------------------------------- opponents
    def _play_opponents(self, rewards: np.ndarray, dones: np.ndarray, infos: list[dict[str, Any]]) -> None:
        engine = self.engine
        rows_all = np.arange(self.num_envs)
        for _ in range(MAX_OPPONENT_ROUNDS):
            waiting = engine.seat != self.seat
            if not waiting.any():
                return
            inside = waiting & (self.seat_player[rows_all, engine.seat] >= 0)
            if inside.any():
                acc, _, info = self.players.advance(where=inside)
                self._credit(acc, inside, rewards, dones)
                if info["final_index"].size:
                    acted = ~dones & (self.lengths > 0)
                    self._finish(info, info["terminated"], info["truncated"], rewards, dones, infos, acted)
            waiting = engine.seat != self.seat
            outside = waiting & (self.snap[rows_all, engine.seat] >= 0)
            if not outside.any():
                continue
            actions = np.zeros(self.num_envs, dtype=np.int64)
            rows = np.flatnonzero(outside)
            snaps = self.snap[rows, engine.seat[rows]]
            for index in np.unique(snaps).tolist():
                mine = rows[snaps == index]
                actions[mine] = self._snapshot_actions(self._net(index), engine.obs[mine], engine.mask[mine])
            _, _, _, step_rewards, terminated, truncated, info = engine.step(actions, where=outside)
            self._credit(step_rewards, outside, rewards, dones)
            if info["final_index"].size:
                acted = ~dones & (self.lengths > 0)
                self._finish(info, terminated, truncated, rewards, dones, infos, acted)
        raise RuntimeError(f"{self.game}: opponents did not reach the learner's turn in {MAX_OPPONENT_ROUNDS} rounds")

    def _credit(self, step_rewards: np.ndarray, where: np.ndarray, rewards: np.ndarray, dones: np.ndarray) -> None:
        """The learner's share of ``step_rewards`` to its episode (or, for a game re-dealt this step, to
        what its next episode's first reward carries)."""
        rows = np.flatnonzero(where)
        mine = step_rewards[rows, self.seat[rows]]
        ongoing = ~dones[rows]
        rewards[rows[ongoing]] += mine[ongoing]
        self.carry[rows[~ongoing]] += mine[~ongoing]

    def _snapshot_actions(self, net: BatchedPolicy, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """One batched forward pass: each row's action sampled from the masked policy (or its argmax)."""
        logits = net.logits(obs)
        legal = mask.astype(bool)
        z = np.where(legal, logits, -np.inf)
        if self.snapshot_deterministic:
            return z.argmax(axis=1)
        z = np.exp(z - z.max(axis=1, keepdims=True))
        cdf = np.cumsum(z, axis=1)
        cdf /= cdf[:, -1:]
        u = self.rng.random(len(obs))
        return np.minimum((cdf <= u[:, None]).sum(axis=1), mask.shape[1] - 1)

    # ---------------------------------------------------------------- checkpoints
    def training_state(self) -> dict[str, Any]:
        data = super().training_state()
        data["snapshots"] = {"paths": list(self._snap_paths), "pool": list(self._pool), "labels": list(self.labels)}
        return data

    def load_training_state(self, data: dict[str, Any]) -> None:
        if not isinstance(data, dict) or "snapshots" not in data:
            raise ValueError("a compiled batched env state must hold 'snapshots'")
        snaps = data["snapshots"]
        if (
            not isinstance(snaps, dict)
            or set(snaps) != {"paths", "pool", "labels"}
            or not all(isinstance(p, str) for p in snaps["paths"])
            or not all(type(k) is int and 0 <= k < len(snaps["paths"]) for k in snaps["pool"])
            or not isinstance(snaps["labels"], list)
            or len(snaps["labels"]) != self.num_envs
            or not all(isinstance(x, str) for x in snaps["labels"])
        ):
            raise ValueError("'snapshots' must be {'paths': [...], 'pool': [indices into paths], 'labels': [...]}")
        rest = {k: v for k, v in data.items() if k != "snapshots"}
        super().load_training_state(rest)
        self._snap_paths = list(snaps["paths"])
        self._pool = list(snaps["pool"])
        self.labels = list(snaps["labels"])
        self._nets = {}


def _member_player(member: tuple[str, str, str], have: Sequence[str]) -> str | None:
    """The compiled player a league member stands for (``None``: a policy, played outside the engine).

    Raises:
        OptionError: a fixed member that is neither a compiled player nor ``ppo:PATH``.
    """
    name, kind, ref = member
    if kind != "agent":
        return None
    spec = ref.strip().lower()
    spec = "heuristic" if spec == "heuristic@v1" else spec
    if spec in have:
        return spec
    if spec.startswith("ppo:"):
        return None
    raise OptionError(
        f"league member {name!r}: {ref!r} cannot play inside the batched engine (compiled players: "
        f"{', '.join(have)}; or ppo:PATH)"
    )


def _member_policy_path(member: tuple[str, str, str]) -> str:
    """The policy file of a snapshot member or a ``ppo:PATH[?players=any]`` member."""
    name, kind, ref = member
    if kind == "snapshot":
        return ref
    return ref.split(":", 1)[1].split("?", 1)[0]
