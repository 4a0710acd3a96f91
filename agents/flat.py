"""Flat Monte Carlo search on the compiled engines: every candidate move played out thousands of times a decision.

    ice-envs evaluate cardiceo --agents flat,heuristic,heuristic,heuristic --games 200 --seed 0
    ice-envs evaluate cubemelt --agents flat:rollouts=8192,rollout=random,heuristic --games 100

Rollout-based policy improvement (Tesauro and Galperin, "On-line policy improvement using Monte-Carlo
search", NIPS 1996; Bertsekas' rollout algorithm) with common random numbers, run on a game's compiled
batched engine (:mod:`ice_envs.core.compiled`) so that one decision plays tens of thousands of games:

1. **Re-deal.** ``redeals`` re-deals of everything the deciding seat cannot see (the game's
   ``resample_hidden`` through :meth:`~ice_envs.agents.search.Simulator.determinize`, with the agent's own
   generator, from what the seat knows). When two re-deals are equal (nothing is hidden, as in CubeMelt) one
   serves every sample.
2. **Samples.** Sample ``j`` is re-deal ``j % redeals`` with chance stream ``j`` and rollout-player streams
   ``j``. **Every candidate move is played on the same samples** (common random numbers): the candidates'
   totals differ by their moves, not by the luck of their deals or dice, so close moves are told apart with
   far fewer rollouts than independent samples need.
3. **Roll out.** Every (candidate, sample) pair is one game of a batch: the position of its re-deal, the
   candidate first, then every seat played to the end by the compiled ``rollout`` player (``heuristic``,
   ``greedy`` or ``random``: :mod:`ice_envs.core.compiled_players`, the same decisions as the Python
   players) in one compiled call (:meth:`~ice_envs.core.compiled_opponents.SeatPlayers.playout`).
4. **Select a challenger** among the candidates other than the base move (the game's heuristic move on the
   view, v1 unless ``heuristic=v2``): with ``halving`` (default) in ``ceil(log2(challengers))`` rounds of
   equal size (successive halving, Karnin, Koren and Somekh, ICML 2013): each round plays fresh samples of the
   challengers left and keeps the better half by total; without, in one round. Ties go to the lowest action id.
5. **Check it against the base move** (the guard): one more round of the same size plays the challenger and
   the base move on fresh samples, and the challenger is played only if its mean gain over the base move,
   paired sample by sample, exceeds ``margin`` standard errors of that paired difference; otherwise the base
   move is. The check's samples are not the ones the challenger was selected on: the best of many noisy
   estimates is biased upwards (the winner's curse), a fresh sample is not. A decision with one legal move is
   played at once; with ``width=1`` the base move is played without rollouts.

The heuristic giving the base move decides at every decision of the seat, with the agent's seed and
generator stream, as if it played the seat (its memory included): with ``width=1``, or a margin no gain
passes, the agent plays the heuristic's game exactly. ``heuristic=v2`` builds the search on the game's second
heuristic (``heuristic@v2``): it gives the base move and, with ``rollout=heuristic``, plays the rollouts.

Values (``value``): ``win`` (default), the seat's win share at the end (a win shared by ``k`` seats counts
``1/k``; a game cut at the engine's length cap counts nothing); ``score``, the seat's final score. With
``depth=D`` each rollout stops after ``D`` decisions (the candidate's included): a game still going then
counts as won by the seats leading on the game's running score (shared as above), or is worth that score.

Budget: ``rollouts`` games per decision in all (at least one sample per candidate and round). With
``width=W`` only ``W`` candidates are searched: the base move and the ``W - 1`` best others by the greedy
agent's exact values on the view (:class:`~ice_envs.agents.greedy.GreedyAgent`, ties to the lowest id).

Bit-exact: win shares are integers in units of ``1 / lcm(1..n)``, scores are summed exactly (integers, or
fractions of the floats' exact binary values), the guard compares squares in exact arithmetic (:func:`beats`),
and the engines draw with integer SplitMix64 streams, so a
decision never hinges on the floating-point unit and a seed gives the same decision on every machine.

Information: the agent reads the view's state only through its own re-deals, so its decision is the same
whichever re-deal of the hidden cards the view holds.

Engines: the game needs a compiled engine that loads positions (``pack_state``) and numba (the ``fast`` extra,
imported only when the agent is built); without them building the agent raises ``ValueError`` saying so.
"""

from __future__ import annotations

import copy
import dataclasses
from collections import OrderedDict
from collections.abc import Sequence
from fractions import Fraction
from math import ceil, log2
from typing import TYPE_CHECKING, Any

import numpy as np

from ice_envs.agents.greedy import GreedyAgent
from ice_envs.agents.search import Exact, reward_unit, same_state, simulator_for
from ice_envs.core.agent import PlayerView, SeededAgent
from ice_envs.core.errors import OptionError
from ice_envs.core.protocols import ConfigOptions
from ice_envs.core.registry import HEURISTIC_VERSIONS, get_spec
from ice_envs.core.vector import compiled_available, engine_class
from ice_envs.core.vector import make as make_engine

if TYPE_CHECKING:
    from ice_envs.core.compiled import CompiledEngine
    from ice_envs.core.compiled_opponents import SeatPlayers

__all__ = [
    "DEFAULT_MARGIN",
    "DEFAULT_REDEALS",
    "DEFAULT_ROLLOUTS",
    "ROLLOUTS",
    "VALUES",
    "Check",
    "FlatMonteCarloAgent",
    "beats",
]

#: Rollouts per decision when ``rollouts`` is not given (well under a second of one core per decision).
DEFAULT_ROLLOUTS = 4096
#: Re-deals of the hidden information per decision.
DEFAULT_REDEALS = 32
#: Standard errors by which a challenger must beat the base move on fresh samples to be played.
DEFAULT_MARGIN = Fraction(2)
#: The rollout policies (compiled players).
ROLLOUTS = ("heuristic", "greedy", "random")
#: What a rollout is worth to the seat: its win share, or its final score.
VALUES = ("win", "score")
#: Engines kept per agent (one per batch size met).
_ENGINE_CACHE = 8
_SEED_SPACE = 2**63


class FlatMonteCarloAgent(SeededAgent):
    """Flat Monte Carlo search with common random numbers on the compiled engine (see the module docstring).

    Args:
        game: the game's registry name.
        num_players: seats at the table (``None``: read from each view).
        seed: seed of the agent's own generator (re-deals, chance and rollout streams) and of its heuristic.
        rollouts: games played out per decision (the budget).
        redeals: re-deals of the hidden information per decision.
        rollout: the compiled player of every seat in the rollouts: ``heuristic``, ``greedy`` or ``random``.
        value: ``win`` (the seat's win share) or ``score`` (its final score).
        width: search at most this many candidates (the base move and the best by greedy value; ``None``: all).
        halving: select the challenger by successive halving (``False``: one round over every candidate).
        margin: standard errors by which the challenger's paired gain over the base move, on the check
            round's fresh samples, must exceed 0 for the challenger to be played (a number >= 0).
        depth: stop each rollout after this many decisions (the candidate's included) and value it by the
            running scores (``None``: play to the end).
        heuristic: the version of the game's heuristic (``v1`` or ``v2``, as ``heuristic@v2`` names it; a game
            without that version plays its newest below it) that gives the base move and, with
            ``rollout="heuristic"``, plays every seat of the rollouts.

    Raises ``ValueError`` for a bad option, a game without a compiled engine that loads positions, or a
    rollout player the game does not have compiled.

    After each search :attr:`last_search` holds ``{action: (samples, total)}`` of every candidate over all its
    samples (totals in units of ``1 / lcm(1..n)`` for ``win``), :attr:`last_rounds` the rounds played,
    :attr:`last_base` the base move and :attr:`last_check` the check of the challenger against it.
    """

    name = "flat"
    needs_view = True
    needs_observation = False

    def __init__(
        self,
        game: str,
        num_players: int | None = None,
        seed: int | None = None,
        *,
        rollouts: int = DEFAULT_ROLLOUTS,
        redeals: int = DEFAULT_REDEALS,
        rollout: str = "heuristic",
        value: str = "win",
        width: int | None = None,
        halving: bool = True,
        margin: Fraction | int | str | float = DEFAULT_MARGIN,
        depth: int | None = None,
        heuristic: str = "v1",
    ) -> None:
        for label, number in (("rollouts", rollouts), ("redeals", redeals)):
            if isinstance(number, bool) or not isinstance(number, int) or number < 1:
                raise ValueError(f"flat: {label} must be an integer >= 1, got {number!r}")
        for label, number in (("width", width), ("depth", depth)):
            if number is not None and (isinstance(number, bool) or not isinstance(number, int) or number < 1):
                raise ValueError(f"flat: {label} must be an integer >= 1, got {number!r}")
        if rollout not in ROLLOUTS:
            raise ValueError(f"flat: rollout must be one of {', '.join(ROLLOUTS)}, got {rollout!r}")
        if value not in VALUES:
            raise ValueError(f"flat: value must be one of {', '.join(VALUES)}, got {value!r}")
        self.margin = _margin(margin)
        spec = get_spec(game)
        self.game = spec.name
        self.num_players = num_players
        try:
            #: The heuristic version played (``v1`` when the game has no newer one up to the one asked for).
            self.heuristic = spec.heuristic_version(heuristic)
        except OptionError:
            raise ValueError(
                f"flat: heuristic must be one of {', '.join(HEURISTIC_VERSIONS)}, got {heuristic!r}"
            ) from None
        self.rollouts, self.redeals, self.rollout, self.value = rollouts, redeals, rollout, value
        self.width, self.halving, self.depth = width, bool(halving), depth
        #: The compiled player of the rollouts (``heuristic@v2`` for the second heuristic).
        self.rollout_player = (
            rollout if rollout != "heuristic" or self.heuristic == "v1" else f"heuristic@{self.heuristic}"
        )
        check_searchable(self.game, self.rollout_player)
        cls = spec.heuristic_class(self.heuristic)
        #: The game's heuristic, kept across decisions: it sees every decision of the agent's seat, with the
        #: agent's seed, so its memory and its generator are those of the heuristic playing the seat.
        self._heuristic = None if cls is None else cls(seed)
        super().__init__(seed)
        self._engines: OrderedDict[tuple[Any, int, int], tuple[CompiledEngine, SeatPlayers]] = OrderedDict()
        #: ``{action: (samples, total)}`` of the last search.
        self.last_search: dict[int, tuple[int, Exact]] = {}
        #: Rounds of the last search.
        self.last_rounds = 0
        #: The base move of the last decision (the heuristic's on the view; ``None`` without a heuristic).
        self.last_base: int | None = None
        #: The last search's check of its challenger against the base move (``None`` when there was none).
        self.last_check: Check | None = None

    def __getstate__(self) -> dict[str, Any]:
        """Pickled without its engines (each process builds its own)."""
        state = dict(self.__dict__)
        state["_engines"] = OrderedDict()
        return state

    @property
    def rng(self) -> np.random.Generator:
        """The agent's generator; setting it gives the heuristic an identical copy (the same stream)."""
        return self._rng

    @rng.setter
    def rng(self, generator: np.random.Generator) -> None:
        self._rng = generator
        if self._heuristic is not None:
            self._heuristic.rng = copy.deepcopy(generator)

    def reset(self, seed: int | None = None) -> None:
        """A new game: the agent's generator re-seeded (and its heuristic's, with the same seed), the heuristic's
        memory cleared."""
        super().reset(seed)
        if self._heuristic is not None:
            self._heuristic.reset(seed=seed)

    # ------------------------------------------------------------------ playing
    def act(self, observation: dict[str, np.ndarray], view: PlayerView | None = None) -> int:
        legal = np.flatnonzero(observation["action_mask"]).tolist()
        if view is None:
            return self.random_legal(observation["action_mask"])
        # The heuristic decides at every decision, one legal move or not, as it would playing the seat.
        base = self._base_move(view, legal, observation)
        self.last_base = base
        if len(legal) == 1:
            return int(legal[0])
        return self._search(view, sorted(int(a) for a in legal), base)

    def search(self, view: PlayerView, legal: Sequence[int], observation: dict[str, np.ndarray] | None = None) -> int:
        """The move to play from ``view`` among ``legal`` (see the module docstring)."""
        legal = sorted(int(a) for a in legal)
        base = self._base_move(view, legal, observation)
        self.last_base = base
        return self._search(view, legal, base)

    def _search(self, view: PlayerView, legal: list[int], base: int | None) -> int:
        """Select a challenger by successive halving, then check it against the base move on fresh samples."""
        candidates = self._candidates(view, legal, base)
        self.last_check = None
        if len(candidates) == 1:
            self.last_search, self.last_rounds = {}, 0
            return candidates[0]
        challengers = [a for a in candidates if a != base]
        selecting = 0 if len(challengers) == 1 else (max(1, ceil(log2(len(challengers)))) if self.halving else 1)
        checking = 0 if base is None else 1
        rounds = selecting + checking
        per_round = self.rollouts // rounds
        deals = self._deals(view)
        chance_key, player_key = (int(k) for k in self.rng.integers(0, _SEED_SPACE, size=2))
        totals: dict[int, Exact] = {}
        played: dict[int, int] = {}
        first_sample = 0

        def play(moves: list[int], samples: int) -> Any:
            nonlocal first_sample
            sample_ids = np.arange(first_sample, first_sample + samples)
            values = self._play(view, deals, moves, sample_ids, chance_key, player_key)
            for c, action in enumerate(moves):
                totals[action] = totals.get(action, 0) + _total(values[c])
                played[action] = played.get(action, 0) + samples
            first_sample += samples
            return values

        for r in range(selecting):
            play(challengers, max(1, per_round // len(challengers)))
            if r + 1 < selecting:
                challengers = _ranked(challengers, totals, base)[: ceil(len(challengers) / 2)]
        challenger = _ranked(challengers, totals, base)[0] if selecting else challengers[0]
        if base is None:
            choice = challenger
        else:
            values = play([challenger, base], max(1, per_round // 2))
            self.last_check = Check.of(challenger, values[0] - values[1], self.margin)
            choice = challenger if self.last_check.passed else base
        self.last_rounds = rounds
        self.last_search = {a: (played[a], totals[a]) for a in sorted(totals)}
        return choice

    # ------------------------------------------------------------------ pieces
    def _base_move(self, view: PlayerView, legal: list[int], observation: dict[str, np.ndarray] | None) -> int | None:
        """The game's heuristic move on the view (``None`` for a game without a heuristic)."""
        agent = self._heuristic
        if agent is None:
            return None
        sim = simulator_for(view.game, view.num_players)
        obs = {"action_mask": sim.mask(legal)}
        if getattr(agent, "needs_observation", False):
            obs["observation"] = (
                observation["observation"]
                if observation is not None and "observation" in observation
                else sim.observation(view.state, view.seat)
            )
        move = int(agent.act(obs, view))
        return move if move in legal else None

    def _candidates(self, view: PlayerView, legal: list[int], base: int | None) -> list[int]:
        """The moves searched: all legal ones, or with ``width`` the base move and the best by greedy value."""
        if self.width is None or len(legal) <= self.width:
            return legal
        if self.width == 1 and base is not None:
            return [base]
        greedy = GreedyAgent(self.game, view.num_players, int(self.rng.integers(0, _SEED_SPACE)), samples=1)
        values = self._compiled_greedy_values(view, legal)
        rest = legal if values is None else [a for a in legal if a not in values]
        if rest:  # the Python agent's values (of the actions it samples, where the game's compiled values stop)
            values = {**(values or {}), **greedy.action_values(view, rest)}
        order = sorted(legal, key=lambda a: (a != base, -values[a], a))
        return sorted(order[: self.width])

    def _compiled_greedy_values(self, view: PlayerView, legal: list[int]) -> dict[int, Fraction] | None:
        """The greedy agent's values of ``legal`` from the game's compiled ``greedy_values``
        (:mod:`ice_envs.core.compiled_players`), the same exact values as the Python agent's; the actions it
        samples are left out; ``None`` where the game has no such function."""
        from ice_envs.core.compiled_players import compiled_greedy_values

        hook = compiled_greedy_values(self.game)
        if hook is None:
            return None
        values_of, unit = hook
        engine, _ = self._engine(view.state, view.num_players, 1)
        row = np.asarray(engine.pack_state(view.state), dtype=engine.state_dtype)
        mask = np.zeros(engine.mask.shape[1], dtype=np.int8)
        mask[legal] = 1
        out = np.zeros(mask.shape[0], dtype=np.int64)
        sampled = np.zeros(mask.shape[0], dtype=np.int8)
        values_of(row, engine.config_row(), mask, out, sampled)
        return {a: Fraction(int(out[a]), unit) for a in legal if not sampled[a]}

    def _deals(self, view: PlayerView) -> list[Any]:
        """``redeals`` re-deals of what the seat cannot see (one when nothing is hidden)."""
        sim = simulator_for(view.game, view.num_players)
        first = sim.determinize(view.state, view.seat, self.rng)
        if self.redeals == 1:
            return [first]
        second = sim.determinize(view.state, view.seat, self.rng)
        if same_state(first, second):
            return [first]
        deals = [first, second]
        while len(deals) < self.redeals:
            deals.append(sim.determinize(view.state, view.seat, self.rng))
        return deals

    def _play(
        self,
        view: PlayerView,
        deals: list[Any],
        candidates: list[int],
        sample_ids: np.ndarray,
        chance_key: int,
        player_key: int,
    ) -> np.ndarray:
        """Each candidate's value for the seat on each of the samples ``sample_ids``: an ``(M, S)`` array of
        exact values (``int64``, or Python ``Fraction`` objects for fractional scores), from one batch whose row
        ``c * S + k`` is candidate ``c`` on sample ``sample_ids[k]``."""
        m, s, p = len(candidates), len(sample_ids), view.num_players
        engine, players = self._engine(deals[0], p, m * s)
        # The chance stream of sample j and its players' streams (one per seat), the same for every candidate.
        chance = _streams(chance_key, sample_ids)
        seats = _streams(player_key, (sample_ids[:, None] * p + np.arange(p)).reshape(-1)).reshape(s, p)
        engine.load([deals[int(j) % len(deals)] for j in sample_ids] * m, streams=np.tile(chance, m))
        players.prng[:, :, 0] = np.tile(seats, (m, 1))
        players.prng[:, :, 1] = 0
        out = players.playout(np.repeat(np.asarray(candidates, dtype=np.int64), s), max_decisions=self.depth)
        # A rollout cut by ``depth`` has no outcome yet: its leaders by running score count as its winners.
        cut = ~(out["outcome"] != 0).any(axis=1) if self.depth is not None else np.zeros(m * s, dtype=bool)
        if self.value == "win":
            scores = out["scores"]
            won = np.where(cut[:, None], scores == scores.max(axis=1, keepdims=True), out["outcome"] > 0)
            winners = won.sum(axis=1)
            unit = reward_unit(p)
            share = np.where(won[:, view.seat], unit // np.maximum(winners, 1), 0).astype(np.int64)
            return share.reshape(m, s)
        scores = out["scores"][:, view.seat].reshape(m, s)
        if np.array_equal(scores, np.floor(scores)) and np.abs(scores).max(initial=0) < 2**52:
            return scores.astype(np.int64)
        exact = {float(u): Fraction(float(u)) for u in np.unique(scores)}
        return np.array([[exact[float(v)] for v in row] for row in scores], dtype=object)

    def _engine(self, state: Any, num_players: int, size: int) -> tuple[CompiledEngine, SeatPlayers]:
        """A compiled engine of ``size`` games configured as ``state`` is, with the rollout player at every
        seat (kept for reuse, a few batch sizes at a time)."""
        from ice_envs.core.compiled_opponents import SeatPlayers

        config = getattr(state, "config", None)
        key = (config, num_players, size)
        if key in self._engines:
            self._engines.move_to_end(key)
            return self._engines[key]
        options = _options_of(config)
        engine = make_engine(self.game, size, num_players, seed=0, engine="compiled", **options)
        if config is not None and engine.config != config:
            raise OptionError(f"flat: {self.game}: cannot build a compiled engine with the game's options {config}")
        players = SeatPlayers(engine, [self.rollout_player], seed=0)
        players.seat_player[:] = 0
        self._engines[key] = (engine, players)
        if len(self._engines) > _ENGINE_CACHE:
            self._engines.popitem(last=False)
        return engine, players


@dataclasses.dataclass(frozen=True)
class Check:
    """The check of a challenger against the base move on the same ``samples`` fresh samples: ``gain`` and
    ``squares`` are the sum and the sum of squares of its paired differences (exact, in value units)."""

    challenger: int
    samples: int
    gain: Exact
    squares: Exact
    margin: Fraction
    #: The mean gain exceeds 0 by more than ``margin`` standard errors of the mean paired difference.
    passed: bool

    @classmethod
    def of(cls, challenger: int, differences: np.ndarray, margin: Fraction) -> Check:
        """The check of ``differences`` (challenger minus base, one per sample), decided in exact arithmetic."""
        k = len(differences)
        gain = _total(differences)
        squares = _total(differences * differences)
        return cls(int(challenger), k, gain, squares, margin, beats(gain, squares, k, margin))

    @property
    def z(self) -> float:
        """The mean gain in standard errors (for reports; the decision is :func:`beats`, exact)."""
        k = self.samples
        if k < 2:
            return 0.0
        var = (Fraction(self.squares) - Fraction(self.gain) ** 2 / k) / (k - 1)
        if var == 0:
            return float("inf") if self.gain > 0 else 0.0
        return float(self.gain / k / (var / k) ** 0.5)


def beats(gain: Exact, squares: Exact, samples: int, margin: Fraction) -> bool:
    """Whether paired differences with sum ``gain`` and sum of squares ``squares`` over ``samples`` samples have
    a mean above 0 by more than ``margin`` standard errors (the sample standard deviation over
    ``sqrt(samples)``). Exact: ``D / k > m * sqrt((Q - D**2 / k) / ((k - 1) * k))`` is, for ``D > 0``,
    ``D**2 * (k - 1) > m**2 * (k * Q - D**2)``. With ``margin`` 0 any positive gain passes; otherwise fewer
    than two samples never do."""
    if gain <= 0:
        return False
    if margin == 0:
        return True
    k = samples
    if k < 2:
        return False
    return gain * gain * (k - 1) > margin * margin * (k * squares - gain * gain)


def _ranked(candidates: list[int], totals: dict[int, Exact], base: int | None) -> list[int]:
    """Best first: highest total, then the base move, then the lowest id (exact comparisons)."""
    return sorted(candidates, key=lambda a: (-totals[a], a != base, a))


def _total(values: np.ndarray) -> Exact:
    """The exact sum of ``values`` (``int64`` or ``Fraction`` objects)."""
    if values.dtype == object:
        return sum(values.tolist(), Fraction(0))
    return int(values.sum(dtype=np.int64))


def _margin(margin: Fraction | int | str | float) -> Fraction:
    """``margin`` as an exact number >= 0 (a float is read by its shortest decimal, 2.5 as 5/2)."""
    if isinstance(margin, bool):
        raise ValueError(f"flat: margin must be a number >= 0, got {margin!r}")
    try:
        value = Fraction(str(margin)) if isinstance(margin, float) else Fraction(margin)
    except (ValueError, TypeError, ZeroDivisionError):
        raise ValueError(f"flat: margin must be a number >= 0, got {margin!r}") from None
    if value < 0:
        raise ValueError(f"flat: margin must be a number >= 0, got {margin!r}")
    return value


def check_searchable(game: str, rollout: str) -> None:
    """Raise ``ValueError`` unless ``game`` has a compiled engine that loads positions and a compiled ``rollout``
    player."""
    name = get_spec(game).name
    if not compiled_available():
        raise ValueError("flat: the compiled engines need numba (pip install 'ice-envs[fast]')")
    from ice_envs.core.compiled import CompiledEngine
    from ice_envs.core.compiled_players import compiled_player

    try:
        cls = engine_class(name, "compiled")
    except (OptionError, ImportError) as exc:
        raise ValueError(f"flat: {name} has no compiled engine ({exc})") from None
    if not issubclass(cls, CompiledEngine) or cls.pack_state is CompiledEngine.pack_state:
        raise ValueError(f"flat: {name}'s compiled engine cannot load positions yet (no pack_state): no flat search")
    try:
        compiled_player(name, rollout)
    except OptionError as exc:
        raise ValueError(f"flat: rollout={rollout} needs a compiled {rollout} player: {exc}") from None


def _options_of(config: Any) -> dict[str, Any]:
    """The env options that rebuild a game's ``config``: its ``env_options()`` where it has them
    (:class:`~ice_envs.core.protocols.ConfigOptions`), else its fields but the player count."""
    if config is None or not dataclasses.is_dataclass(config):
        return {}
    if isinstance(config, ConfigOptions):
        return dict(config.env_options())
    return {f.name: getattr(config, f.name) for f in dataclasses.fields(config) if f.name != "num_players"}


def _streams(key: int, ids: np.ndarray) -> np.ndarray:
    """SplitMix64 stream states of ``ids`` under ``key`` (stream ``i`` depends only on ``key`` and ``i``)."""
    from ice_envs.core.compiled import seed_streams

    top = int(ids.max()) + 1 if ids.size else 0
    return seed_streams(key, top)[ids]
