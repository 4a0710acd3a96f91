"""What the contract checks run on: one game at one player count with one set of options, and the
small helpers every check shares (random legal actions, observation equality, expected errors)."""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

import ice_envs
from ice_envs.core.registry import GameSpec, get_spec

#: The variant name of the case the kit adds to a game's own: the base env's ``skip_forced=True``.
SKIP_FORCED = "skip_forced"
#: The variant name of a case given by explicit options (``check_game(name, num_players=3, ...)``).
GIVEN = "given"


@dataclass(frozen=True)
class Case:
    """One configuration of a game: ``ice_envs.make(game, num_players=players, **options)``."""

    game: str
    variant: str
    players: int
    options: dict[str, Any] = field(default_factory=dict)

    @property
    def id(self) -> str:
        """``<game>-<variant>-<players>p``, the case's name in test ids and failure messages."""
        return f"{self.game}-{self.variant}-{self.players}p"

    @property
    def spec(self) -> GameSpec:
        return get_spec(self.game)

    def make(self, raw: bool = False, **extra: Any) -> Any:
        """A new env of this case (``raw=True``: without PettingZoo's wrappers), with ``extra`` options."""
        return ice_envs.make(self.game, num_players=self.players, raw=raw, **self.options, **extra)


def game_cases(game: str) -> list[Case]:
    """Every case the contract covers for ``game``: each variant of its spec at each of its player
    counts, and the base env's ``skip_forced=True`` once (default variant, a middle player count)."""
    spec = get_spec(game)
    cases = [Case(spec.name, variant, n, options) for variant, n, options in spec.cases()]
    middle = spec.players[len(spec.players) // 2]
    return [*cases, Case(spec.name, SKIP_FORCED, middle, {"skip_forced": True})]


def quick_case(game: str) -> Case:
    """The spec's short game (:attr:`~ice_envs.core.registry.GameSpec.quick`): what the once-per-game checks play."""
    spec = get_spec(game)
    return Case(spec.name, "quick", spec.quick_players, dict(spec.quick.options))


def given_case(game: str, options: dict[str, Any]) -> Case:
    """The case of explicit ``options`` (``num_players`` among them, else the game's smallest count)."""
    spec = get_spec(game)
    rest = dict(options)
    players = rest.pop("num_players", min(spec.players))
    return Case(spec.name, GIVEN, players, rest)


def random_action(rng: np.random.Generator, mask: np.ndarray) -> int:
    """A legal action of ``mask`` drawn uniformly."""
    legal = np.flatnonzero(mask)
    return int(legal[rng.integers(legal.size)])


def obs_equal(a: dict, b: dict) -> bool:
    """Whether two observations (vector and action mask) are identical."""
    return np.array_equal(a["observation"], b["observation"]) and np.array_equal(a["action_mask"], b["action_mask"])


@contextlib.contextmanager
def raises(kind: type[BaseException], pattern: str) -> Iterator[None]:
    """Like ``pytest.raises(kind, match=pattern)``, without pytest: the block must raise ``kind``
    with a message that ``re.search`` finds ``pattern`` in."""
    try:
        yield
    except kind as exc:
        if not re.search(pattern, str(exc)):
            raise AssertionError(f"{kind.__name__} message {str(exc)!r} does not match {pattern!r}") from exc
    else:
        raise AssertionError(f"no {kind.__name__} was raised (expected one matching {pattern!r})")
