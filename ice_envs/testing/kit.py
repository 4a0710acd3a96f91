"""The checks of the env contract, and the two ways of running them: :func:`check_game` (one call) and
:func:`contract_params` (one pytest test per check and case)."""

from __future__ import annotations

import functools
import traceback
import warnings
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import ice_envs.testing.checks_env as checks_env
import ice_envs.testing.checks_game as checks_game
from ice_envs.core.registry import GAMES, get_spec
from ice_envs.testing.cases import Case, game_cases, given_case, quick_case
from ice_envs.testing.checks_game import CheckSkipped


@dataclass(frozen=True)
class Check:
    """One check of the contract: ``run(case)`` raises ``AssertionError`` naming what is wrong.

    ``per_game`` checks run once per game (on its short game), the others on every case."""

    name: str
    run: Callable[[Case], None]
    per_game: bool = False


#: Every check of the contract, in the order they run.
CHECKS: tuple[Check, ...] = (
    Check("registration", checks_game.registration, per_game=True),
    Check("layout_table", checks_game.layout_table, per_game=True),
    Check("pettingzoo_api_test", checks_env.pettingzoo_api_test),
    Check("pettingzoo_seed_test", checks_env.pettingzoo_seed_test),
    Check("same_seed_same_game", checks_env.same_seed_same_game),
    Check("random_play-env", functools.partial(checks_env.random_play, raw_factory=False)),
    Check("random_play-raw_env", functools.partial(checks_env.random_play, raw_factory=True)),
    Check("render_modes", checks_env.render_modes),
    Check("illegal_actions-env", functools.partial(checks_env.illegal_actions, raw_factory=False)),
    Check("illegal_actions-raw_env", functools.partial(checks_env.illegal_actions, raw_factory=True)),
    Check("bad_options", checks_env.bad_options),
    Check("score_rewards", checks_env.score_rewards),
    Check("state_not_shadowed", checks_env.state_not_shadowed),
    Check("observation_layout", checks_env.observation_layout),
    Check("gym_id", checks_game.gym_id, per_game=True),
    Check("training", checks_game.training, per_game=True),
)
CHECK_NAMES = tuple(check.name for check in CHECKS)


class ContractError(AssertionError):
    """A game broke the contract: the message names every failed check and case."""


@dataclass(frozen=True)
class ContractItem:
    """One check on one case: a pytest parameter of :func:`contract_params`."""

    check: Check
    case: Case

    @property
    def id(self) -> str:
        return f"{self.case.game}-{self.check.name}" if self.check.per_game else f"{self.case.id}-{self.check.name}"

    def run(self) -> None:
        """Run the check; a check that cannot run here is a pytest skip with its reason."""
        try:
            self.check.run(self.case)
        except CheckSkipped as exc:
            import pytest

            pytest.skip(str(exc))


def contract_items(
    game: str, options: dict[str, Any] | None = None, checks: Iterable[str] | None = None, skip: Iterable[str] = ()
) -> list[ContractItem]:
    """The (check, case) pairs of ``game``: every case of its spec, or the one case of ``options``."""
    wanted = _checked_names(checks) - _checked_names(skip)
    if options:
        case = given_case(game, options)
        cases, once = [case], case
    else:
        cases, once = game_cases(game), quick_case(game)
    items = []
    for check in CHECKS:
        if check.name in wanted:
            items += [ContractItem(check, once)] if check.per_game else [ContractItem(check, c) for c in cases]
    return items


def check_game(
    name: str, *, checks: Iterable[str] | None = None, skip: Iterable[str] = (), **options: Any
) -> list[str]:
    """Run the env contract on game ``name``; raise :class:`ContractError` naming every failed check.

    Without ``options``: every check on every case of the game's spec (each variant at each player
    count, and ``skip_forced=True`` once); the once-per-game checks on its ``quick`` game. With
    ``options`` (``num_players=3, goal=10``): every check on that one configuration. ``checks``: only
    the checks of these names (:data:`CHECK_NAMES`); ``skip``: all but these. A check that cannot run here (the training smoke
    run without the ``train`` extra) is skipped with a warning saying why. Returns the ids of the
    skipped checks.
    """
    get_spec(name)
    failures: list[str] = []
    skipped: list[str] = []
    first: BaseException | None = None
    for item in contract_items(name, options, checks, skip):
        try:
            item.check.run(item.case)
        except CheckSkipped as exc:
            skipped.append(item.id)
            warnings.warn(f"ice_envs.testing: {item.id}: {exc}", stacklevel=2)
        except Exception as exc:
            first = first or exc
            where = traceback.extract_tb(exc.__traceback__)[-1]
            failures.append(f"{item.id}: {type(exc).__name__}: {exc} ({where.filename}:{where.lineno})")
    if failures:
        raise ContractError(
            f"{name} breaks the env contract in {len(failures)} check(s):\n" + "\n".join(failures)
        ) from (first)
    return skipped


def contract_params(
    games: Iterable[str] | None = None,
    checks: Iterable[str] | None = None,
    skip: Iterable[str] = (),
    built_in_only: bool = False,
) -> list:
    """``pytest.param`` s of every (check, case) of ``games`` (default: every registered game;
    ``built_in_only``: ice-envs' own), for ``@pytest.mark.parametrize("item", contract_params(...))``
    with a test that calls ``item.run()``. Test ids: ``<game>-<variant>-<n>p-<check>``, ``<game>-<check>``."""
    import pytest

    names = list(games) if games is not None else [n for n, s in GAMES.items() if s.built_in or not built_in_only]
    return [pytest.param(item, id=item.id) for name in names for item in contract_items(name, checks=checks, skip=skip)]


def _checked_names(checks: Iterable[str] | None) -> set[str]:
    if checks is None:
        return set(CHECK_NAMES)
    wanted = {checks} if isinstance(checks, str) else set(checks)
    unknown = wanted - set(CHECK_NAMES)
    if unknown:
        raise ValueError(f"unknown contract checks {sorted(unknown)}; known: {list(CHECK_NAMES)}")
    return wanted
