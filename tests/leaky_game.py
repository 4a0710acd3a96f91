"""A game that leaks hidden information, for the test kit's hidden-information check.

Leaky Cardiceo is Cardiceo whose observation shows each seat the next seat's hand in place of its
own, and whose ``resample_hidden`` returns the state unchanged, so that the leak cannot show up as
a changed observation. Its spec declares ``hidden_information=True``; ``ice_envs.testing.check_game``
must refuse it. Registered only inside the test that uses it (:func:`registered`).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import numpy as np

from ice_envs.cardiceo.env import CardiceoEnv
from ice_envs.core.aec import IceAECEnv
from ice_envs.core.registry import _BY_ENV_NAME as BY_ENV_NAME
from ice_envs.core.registry import GAMES, GameSpec, Variant, register
from ice_envs.core.wrapping import make_factories

SPEC = GameSpec(
    name="leaky_cardiceo",
    version=0,
    env_module="tests.leaky_game",
    players=(2,),
    summary="Cardiceo that shows you the next hand (leaky_cardiceo_v0).",
    quick=Variant({"hand_size": 5}),
    max_random_decisions=5_000,
    hidden_information=True,
)


class LeakyCardiceoEnv(CardiceoEnv):
    """leaky_cardiceo_v0: Cardiceo that shows each seat the next seat's hand and re-deals nothing."""

    metadata = {**IceAECEnv.metadata, "name": SPEC.env_name}

    def _encode(self, seat: int) -> np.ndarray:
        obs = super()._encode(seat).copy()
        hand = self.obs_layout.slice("hand")
        obs[hand] = super()._encode((seat + 1) % self.num_players)[hand]
        return obs

    def _resample_hidden(self, seat: int, rng: np.random.Generator) -> Any:
        return self.game_state.copy()


env, raw_env = make_factories(LeakyCardiceoEnv)


@contextlib.contextmanager
def registered() -> Iterator[GameSpec]:
    """The leaky game in the registry for the duration of the block."""
    register(SPEC)
    try:
        yield SPEC
    finally:
        GAMES.pop(SPEC.name, None)
        BY_ENV_NAME.pop(SPEC.env_name, None)
