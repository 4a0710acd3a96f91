"""The training env: the learner's view of a game, with a declared, plain-JSON state for checkpoints.

:class:`TrainingEnv` is :class:`~ice_envs.wrappers.single_agent.SingleAgentEnv` (the same games,
rewards and opponents) that also remembers where its current game started and the learner's
actions since. That is its checkpoint state (:meth:`TrainingEnv.training_state`), plain JSON:

* ``start``: the env generator's bit-generator state just before the game was dealt, the count of
  games skipped until then, and who could be drawn as an opponent at that moment (the self-play
  pool's policy files, or the league's members and integer weights);
* ``actions``: the learner's actions in this game so far;
* ``opponents``: who can be drawn now (the pool or league as it stands);
* ``check``: the game's own ``state_dict()`` (the env contract makes it complete and JSON-able) and
  the learner's bookkeeping (seat, return, length, pending reward, skipped games).

:meth:`TrainingEnv.load_training_state` deals the game again from that generator state and replays
the learner's actions. Everything else follows, as it did the first time: the game and its
generator, the opponents (rebuilt from their specs, seeded from the env's generator at the deal)
with whatever they remember within a game, the generator of their views and the reward shaping.
So any registered game, built-in or plug-in, and any agent resume exactly; no object is rebuilt
from the file and nothing is imported by a name read from it. The replay must reach the saved
``state_dict()`` and bookkeeping, or the restore fails naming what differs. What it asks of an
opponent is what evaluation asks already: after ``reset(seed)`` its play depends only on the seed
and on what it is shown.
"""

from __future__ import annotations

import json
from typing import Any

import gymnasium as gym
import numpy as np

from ice_envs.core.serialize import from_jsonable, to_jsonable
from ice_envs.wrappers.opponents import LeagueOpponents, OpponentMix
from ice_envs.wrappers.single_agent import SingleAgentEnv

__all__ = ["TrainingEnv", "generator_from_state", "generator_state", "sampler_source", "set_sampler_source"]

#: The bit generators a saved generator state may name.
BIT_GENERATORS = {
    "PCG64": np.random.PCG64,
    "PCG64DXSM": np.random.PCG64DXSM,
    "MT19937": np.random.MT19937,
    "Philox": np.random.Philox,
    "SFC64": np.random.SFC64,
}
TRAINING_STATE_KEYS = frozenset(("start", "actions", "opponents", "check"))


def generator_state(rng: np.random.Generator) -> Any:
    """The bit-generator state of ``rng`` as plain JSON data."""
    return to_jsonable(rng.bit_generator.state)


def generator_from_state(data: Any) -> np.random.Generator:
    """A generator in the state :func:`generator_state` saved (a known bit generator only).

    Raises:
        ValueError: the data is not the state of a known bit generator.
    """
    name = data.get("bit_generator") if isinstance(data, dict) else None
    if name not in BIT_GENERATORS:
        raise ValueError(f"not the state of a known bit generator (names {name!r})")
    bit_generator = BIT_GENERATORS[name]()
    try:
        bit_generator.state = from_jsonable(data)
    except (TypeError, ValueError, KeyError, OverflowError) as exc:
        raise ValueError(f"not a {name} state: {exc}") from None
    return np.random.Generator(bit_generator)


def sampler_source(sampler: Any) -> dict[str, Any]:
    """Who a training env's opponent sampler can draw: ``{"pool": [files]}`` (an
    :class:`OpponentMix`), ``{"members": [[name, kind, ref], ...], "weights": [...]}`` (a
    :class:`LeagueOpponents`) or ``{}`` (a sampler the training code never changes)."""
    if isinstance(sampler, LeagueOpponents):
        return {"members": [list(m) for m in sampler.members], "weights": list(sampler.weights)}
    if isinstance(sampler, OpponentMix):
        return {"pool": list(sampler.pool)}
    return {}


def set_sampler_source(sampler: Any, source: dict[str, Any]) -> None:
    """Give ``sampler`` the opponents of :func:`sampler_source` (its agents of other draws are dropped).

    Raises:
        ValueError: ``source`` is not of the sampler's kind.
    """
    if not isinstance(source, dict):
        raise ValueError("an opponent source must be an object")
    if isinstance(sampler, LeagueOpponents) and set(source) == {"members", "weights"}:
        members = source["members"]
        if not isinstance(members, list) or not all(isinstance(m, list) and len(m) == 3 for m in members):
            raise ValueError("'members' must be a list of [name, kind, ref]")
        sampler.set_league([tuple(m) for m in members], source["weights"])
    elif isinstance(sampler, OpponentMix) and set(source) == {"pool"}:
        if not isinstance(source["pool"], list) or not all(isinstance(p, str) for p in source["pool"]):
            raise ValueError("'pool' must be a list of policy file paths")
        sampler.set_pool(source["pool"])
    elif source or isinstance(sampler, (LeagueOpponents, OpponentMix)):
        raise ValueError(f"opponents {sorted(source)} do not fit the env's {type(sampler).__name__}")


def _canonical(data: Any) -> str:
    return json.dumps(data, sort_keys=True, allow_nan=True)


class TrainingEnv(SingleAgentEnv):
    """A :class:`SingleAgentEnv` whose state a checkpoint saves as plain JSON (module docstring)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._game_start: dict[str, Any] | None = None
        self._actions: list[int] = []

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict]:
        """As :meth:`SingleAgentEnv.reset`, remembering where the game starts."""
        if seed is not None:
            gym.Env.reset(self, seed=seed)  # seeds np_random; the deal below draws from it
        self._game_start = {
            "rng": generator_state(self.np_random),
            "skipped": int(self._skipped),
            "opponents": sampler_source(self.opponents),
        }
        self._actions = []
        return super().reset(options=options)

    def step(self, action: int) -> tuple[np.ndarray, float, bool, bool, dict]:
        """As :meth:`SingleAgentEnv.step`, remembering the learner's action."""
        self._actions.append(int(action))
        return super().step(action)

    # ---------------------------------------------------------------- checkpoints
    def training_state(self) -> dict[str, Any]:
        """This env's checkpoint state, plain JSON (module docstring).

        Raises:
            RuntimeError: no game has been dealt yet.
        """
        if self._game_start is None:
            raise RuntimeError("the training env has no game yet: reset() it before saving its state")
        return {
            "start": self._game_start,
            "actions": list(self._actions),
            "opponents": sampler_source(self.opponents),
            "check": self._check_values(),
        }

    def load_training_state(self, data: dict[str, Any]) -> None:
        """Restore :meth:`training_state` by dealing the game again and replaying the learner's actions.

        Raises:
            ValueError: ``data`` is not a training state, or its replay does not reach the saved
                position (one line naming what differs).
        """
        if not isinstance(data, dict) or set(data) != TRAINING_STATE_KEYS:
            raise ValueError(f"a training env state must be an object with exactly {sorted(TRAINING_STATE_KEYS)}")
        start, actions = data["start"], data["actions"]
        if not isinstance(start, dict) or set(start) != {"rng", "skipped", "opponents"}:
            raise ValueError("'start' must be an object with rng, skipped and opponents")
        if type(start["skipped"]) is not int or start["skipped"] < 0:
            raise ValueError(f"'start.skipped' must be a count, got {start['skipped']!r}")
        if not isinstance(actions, list) or not all(type(a) is int and 0 <= a < self.action_space.n for a in actions):
            raise ValueError(f"'actions' must be a list of actions in 0..{self.action_space.n - 1}")
        set_sampler_source(self.opponents, start["opponents"])
        self.np_random = generator_from_state(start["rng"])
        self._skipped = start["skipped"]
        super().reset()
        for k, action in enumerate(actions):
            if self._done:
                raise ValueError(f"the replayed game ended after {k} of the learner's {len(actions)} actions")
            super().step(action)
        set_sampler_source(self.opponents, data["opponents"])
        self._game_start = start
        self._actions = list(actions)
        check, now = data["check"], self._check_values()
        if not isinstance(check, dict) or set(check) != set(now):
            raise ValueError(f"'check' must be an object with exactly {sorted(now)}")
        for key in sorted(now):
            if _canonical(check[key]) != _canonical(now[key]):
                raise ValueError(
                    f"the replayed game differs from the saved one in {key!r} (an opponent whose play does not "
                    "follow from its seed, or a state saved by other code)"
                )

    def _check_values(self) -> dict[str, Any]:
        return json.loads(
            json.dumps(
                {
                    "game": self.raw.state_dict(),
                    "seat": int(self.seat),
                    "return": float(self._return),
                    "length": int(self._length),
                    "carry": float(self._carry),
                    "skipped": int(self._skipped),
                    "done": bool(self._done),
                }
            )
        )
