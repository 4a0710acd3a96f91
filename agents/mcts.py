"""Information-set Monte Carlo tree search (determinized ISMCTS), generic over every game.

    ice-envs evaluate cubemelt --players 2 --agents mcts:sims=100,rollout=random,heuristic --games 100

Single-observer ISMCTS (Cowling, Powley and Whitehouse, "Information Set Monte Carlo Tree
Search", IEEE TCIAIG 2012): one tree over the searching seat's information, and a
determinization per iteration (from a pool of re-deals drawn for the decision).

1. **Determinize.** Each iteration plays on a re-deal of everything the seat cannot see
   (:meth:`~ice_envs.agents.search.Simulator.determinize`, the engine's ``resample_hidden`` with the
   agent's own generator). A decision draws a pool of ``redeals`` re-deals (default
   :data:`DEFAULT_REDEALS`), the first when iteration 0 needs it and so on, and iteration ``i`` plays on
   a copy of re-deal ``i % redeals``: a re-deal costs 0.05-1 ms of CPU in these engines, a copy of
   one 0.004-0.02 ms. When the second re-deal equals the first (the seat sees everything, as in CubeMelt)
   the first serves every iteration. ``redeals=None`` draws a fresh re-deal every iteration (the
   ISMCTS of the paper).
2. **Select.** From the root, while every action legal in this determinization has a child,
   move to the child of highest UCB1 with availability counts,
   ``mean + c * sqrt(ln(available) / visits)``, where ``available`` counts the iterations in which
   the child's action was legal at its parent (each legal child's count goes up by one per pass).
   A node's ``mean`` is the reward of the seat that chose its action (whoever decides, off-turn
   deciders included).
3. **Expand** one untried legal action, drawn with the agent's generator. With ``width``, the root
   searches only the ``width`` root actions of best greedy value
   (:meth:`~ice_envs.agents.greedy.GreedyAgent.action_values` on the view, exact, ties to the lowest
   id) and expands them best first: move pruning with the greedy ordering as the prior.
4. **Roll out** to the end of the game, or for ``depth`` decisions, with the rollout policy:
   ``random`` (uniform legal), ``greedy`` (the action of best greedy value for the seat deciding,
   one sampled outcome each, ties to the lowest id) or ``heuristic`` (the game's heuristic agent, given
   the rollout state as its view). Chance is sampled in the engine's ``apply`` with the agent's
   generator, so tree nodes are sequences of actions and chance outcomes average inside them.
5. **Back up** the rewards: at the end of the game each seat's win share (a shared win is shared);
   at the depth cap (or the game's own cap, or its declared maximum length) the seats with the
   highest greedy value share the win (:meth:`~ice_envs.agents.search.Simulator.leader_rewards`).

The move played is the most visited root action; ties go to the highest mean, then the lowest id.
A decision with one legal action is played at once.

**Flat search** (``tree=flat``): no tree below the root; rollout-based policy improvement
(Bertsekas' rollout algorithm; Tesauro and Galperin, "On-line policy improvement using Monte-Carlo
search", NIPS 1996). Each candidate root action is followed by rollouts to the end (or ``depth``)
with the rollout policy for every seat; the candidates are the root actions (``width``: the best by
greedy value) and the rollout policy's own choice, the **base action**. Successive halving spends
the ``sims`` rollouts, every candidate of a sample playing on the same re-deal with the same chance
seed (common random numbers), and a challenger replaces the base action only if it beats it by
``margin`` standard errors, paired by sample (:meth:`MCTSAgent.flat_search`). Against opponents
that play the rollout policy (``rollout=heuristic`` against heuristic seats) this is one policy
improvement step over the heuristic. ``reward=win`` counts a shared win as a whole win (as the
evaluation's win rate does) instead of its share, in either search.

**Budget.** ``sims`` iterations per decision, or ``seconds`` of wall time. Only ``sims`` is
reproducible: with ``seconds`` the number of iterations depends on the machine and its load.

**Bit-exact.** Rewards are integers (units of ``1/lcm(1..n)``), so visit counts and reward sums are
exact. UCB1 is compared as an integer: ``floor(2**24 * mean) + isqrt(floor(2**48 * c**2 *
ln(available) / visits))`` with ``c`` a fraction (as written in the spec) and ``ln`` from a table
computed with :mod:`decimal` (correctly rounded on every machine), floored to ``2**-48``; ties go to
the lowest action id. No decision depends on the floating-point unit.

**Information.** Like :mod:`ice_envs.agents.greedy` it never reads the view's state except through
its own re-deals, so its decision is the same whichever re-deal the view holds.
"""

from __future__ import annotations

import time
from decimal import ROUND_FLOOR, Context, Decimal
from fractions import Fraction
from functools import cache
from math import isqrt
from typing import Any

import numpy as np

from ice_envs.agents.greedy import GreedyAgent
from ice_envs.agents.search import Simulator, same_state, simulator_for
from ice_envs.agents.whole_moves import WHOLE_MOVE_LENGTH, WHOLE_MOVES_MAX, follow, whole_moves
from ice_envs.agents.whole_moves import RecordingDraws as _Draws
from ice_envs.core.agent import PlayerView, SeededAgent
from ice_envs.core.registry import get_spec

__all__ = [
    "AUTO_WIDTH_VISITS",
    "WHOLE_MOVES_MAX",
    "WHOLE_MOVE_LENGTH",
    "DEFAULT_C",
    "DEFAULT_REDEALS",
    "DEFAULT_SIMS",
    "LEAVES",
    "REWARDS",
    "ROLLOUTS",
    "TREES",
    "MCTSAgent",
    "ucb_score",
]

#: Iterations per decision when neither ``sims`` nor ``seconds`` is given.
DEFAULT_SIMS = 200
#: Re-deals of the hidden information per decision, by default; iterations cycle through them.
DEFAULT_REDEALS = 16
#: The exploration constant of Cowling et al. (2012) for rewards in [0, 1].
DEFAULT_C = Fraction(7, 10)
#: The rollout policies.
ROLLOUTS = ("random", "greedy", "heuristic")
#: What a won rollout is worth: ``share`` (a win shared by ``k`` seats is worth ``1/k``) or ``win`` (every
#: winner gets 1, as ``ice-envs evaluate`` counts a shared win as a win).
REWARDS = ("share", "win")
#: The searches: ``ucb`` (the ISMCTS tree) or ``flat`` (rollouts of the root actions, successive halving).
TREES = ("ucb", "flat")
#: How an unfinished rollout is scored: ``rank`` (graded: each seat's rank among the seats by greedy value,
#: 1 for the leader, 0 for the last, ties halved), ``margin`` (graded: each seat's greedy value placed
#: linearly between the lowest, 0, and the highest, 1) or ``leader`` (the leaders share a whole win).
LEAVES = ("rank", "margin", "leader")
#: Without ``width``, the tree search keeps at most ``sims // AUTO_WIDTH_VISITS`` root actions (the best by
#: greedy value): every root action gets a few visits and selection happens.
AUTO_WIDTH_VISITS = 4
#: Fixed-point bits of the UCB1 scores and of the logarithm table.
_SCORE_BITS = 24
_LN_BITS = 48
_LN_CONTEXT = Context(prec=60)


@cache
def _ln_fixed(n: int) -> int:
    """``floor(ln(n) * 2**48)``, computed in decimal arithmetic (the same on every machine)."""
    ln = Decimal(n).ln(_LN_CONTEXT)
    return int(_LN_CONTEXT.multiply(ln, Decimal(2**_LN_BITS)).to_integral_value(rounding=ROUND_FLOOR))


def ucb_score(reward: int, visits: int, available: int, unit: int, c2: Fraction) -> int:
    """UCB1 with availability counts as an integer (see the module docstring).

    ``reward`` is the node's reward sum in units of ``1/unit`` over ``visits`` visits; ``c2`` is the
    exploration constant squared.
    """
    exploit = (reward << _SCORE_BITS) // (unit * visits)
    explore = isqrt((c2.numerator * _ln_fixed(available) << (2 * _SCORE_BITS)) // (c2.denominator * visits << _LN_BITS))
    return exploit + explore


class _Node:
    """A node of the tree: the move that leads to it, who chose it, and its statistics.

    Its children are keyed by ``(deciding seat, action)`` and grouped by the chance outcome that
    followed the move (:attr:`branches`, keyed by what the engine drew: ``()`` when it drew
    nothing), so a node is never credited to a seat that did not decide there, and the same action
    id after another roll of the dice is another node."""

    __slots__ = ("mover", "branches", "visits", "reward", "squares", "available")

    def __init__(self, mover: int) -> None:
        self.mover = mover
        self.branches: dict[Any, dict[tuple[int, int], _Node]] = {}
        self.visits = 0
        self.reward = 0
        self.squares = 0
        self.available = 1

    @property
    def children(self) -> dict[tuple[int, int], _Node]:
        """The children after no chance draw (the root's children)."""
        return self.branches.setdefault((), {})


class MCTSAgent(SeededAgent):
    """See the module docstring.

    Args:
        game: the game's registry name.
        num_players: seats at the table (``None``: read from each view).
        seed: seed of the agent's own generator.
        sims: iterations per decision (default :data:`DEFAULT_SIMS`); not with ``seconds``.
        seconds: wall time per decision instead of ``sims`` (not reproducible).
        rollout: ``"random"``, ``"greedy"`` or ``"heuristic"``.
        c: the exploration constant (> 0), best given as a fraction or a decimal string.
        depth: rollout decisions before the rollout is scored by the greedy values; ``None``:
            roll out to the end of the game (within its declared maximum length).
        redeals: re-deals per decision that the iterations cycle through (``None``: a fresh
            re-deal every iteration).
        width: search only this many root actions, the best by greedy value (``None``: all).
        distinct: with ``width``, count actions of equal greedy value (exact expectations) as one, the
            lowest id (in CubeMelt, re-rolls that keep the same faces).
        tree: ``"ucb"`` (the ISMCTS tree) or ``"flat"`` (rollouts of the root actions with successive
            halving and common random numbers, :meth:`flat_search`).
        margin: ``tree=flat``: standard errors by which the best candidate must beat the base action,
            paired by sample, to replace it (``0``: any advantage).
        reward: ``"share"`` (a shared win is worth ``1/k``) or ``"win"`` (worth a whole win, as the
            evaluation's win rate counts it).
        leaf: how a rollout stopped before the end is scored: ``"rank"`` (graded by greedy value) or
            ``"leader"`` (the leaders share the win).
        guard: ``tree=ucb``: keep the game's heuristic move unless the most visited move beats its mean by
            ``margin`` standard errors (the heuristic's move is always searched).
        whole: ``tree=flat``: the candidates are whole moves, the seat's own decisions up to the next
            chance draw or the next seat's decision (:meth:`whole_moves`); the rest of the chosen move is
            played without searching again.
    """

    name = "mcts"
    needs_view = True
    needs_observation = False

    def __init__(
        self,
        game: str,
        num_players: int | None = None,
        seed: int | None = None,
        *,
        sims: int | None = None,
        seconds: float | None = None,
        rollout: str = "random",
        c: Fraction | int | str = DEFAULT_C,
        depth: int | None = None,
        redeals: int | None = DEFAULT_REDEALS,
        width: int | None = None,
        tree: str = "ucb",
        distinct: bool = False,
        margin: Fraction | int | str = 0,
        reward: str = "share",
        leaf: str = "rank",
        guard: bool = False,
        whole: bool = False,
    ) -> None:
        super().__init__(seed)
        if sims is not None and seconds is not None:
            raise ValueError("mcts: give sims or seconds, not both")
        if sims is not None and (isinstance(sims, bool) or not isinstance(sims, int) or sims < 1):
            raise ValueError(f"mcts: sims must be an integer >= 1, got {sims!r}")
        if seconds is not None and (isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or seconds <= 0):
            raise ValueError(f"mcts: seconds must be a number > 0, got {seconds!r}")
        if rollout not in ROLLOUTS:
            raise ValueError(f"mcts: rollout must be one of {list(ROLLOUTS)}, got {rollout!r}")
        c = Fraction(c)
        if c <= 0:
            raise ValueError(f"mcts: c must be > 0, got {c}")
        if depth is not None and (isinstance(depth, bool) or not isinstance(depth, int) or depth < 1):
            raise ValueError(f"mcts: depth must be an integer >= 1, got {depth!r}")
        if redeals is not None and (isinstance(redeals, bool) or not isinstance(redeals, int) or redeals < 1):
            raise ValueError(f"mcts: redeals must be an integer >= 1, got {redeals!r}")
        if width is not None and (isinstance(width, bool) or not isinstance(width, int) or width < 1):
            raise ValueError(f"mcts: width must be an integer >= 1, got {width!r}")
        if not isinstance(distinct, bool):
            raise ValueError(f"mcts: distinct must be True or False, got {distinct!r}")
        try:
            margin = Fraction(margin)
        except (TypeError, ValueError, ZeroDivisionError):
            raise ValueError(f"mcts: margin must be a number >= 0, got {margin!r}") from None
        if margin < 0:
            raise ValueError(f"mcts: margin must be >= 0, got {margin}")
        if reward not in REWARDS:
            raise ValueError(f"mcts: reward must be one of {list(REWARDS)}, got {reward!r}")
        if tree not in TREES:
            raise ValueError(f"mcts: tree must be one of {list(TREES)}, got {tree!r}")
        if leaf not in LEAVES:
            raise ValueError(f"mcts: leaf must be one of {list(LEAVES)}, got {leaf!r}")
        if not isinstance(guard, bool):
            raise ValueError(f"mcts: guard must be True or False, got {guard!r}")
        if not isinstance(whole, bool):
            raise ValueError(f"mcts: whole must be True or False, got {whole!r}")
        if whole and tree != "flat":
            raise ValueError("mcts: whole is for tree=flat")
        if guard and tree == "flat":
            raise ValueError("mcts: guard is for tree=ucb (the flat search always weighs its rollout policy's move)")
        if tree == "flat" and seconds is not None:
            raise ValueError("mcts: tree=flat takes sims, not seconds (its rounds are sized from sims)")
        self.game = get_spec(game).name
        self.sim: Simulator | None = None
        #: Rewards are in units of ``1 / unit``: the win-share unit of the table times ``2 * (n - 1)``, so
        #: that graded leaf values are whole numbers too (set with the simulator).
        self.unit = 1
        self._scale = 1
        if num_players is not None:
            self.use_simulator(simulator_for(self.game, num_players))
        self.sims = sims if sims is not None or seconds is not None else DEFAULT_SIMS
        self.seconds = seconds
        self.rollout = rollout
        self.c = c
        self._c2 = c * c
        self.depth = depth
        self.redeals = redeals
        self.width = width
        self.tree = tree
        self.distinct = distinct
        self.margin = margin
        self.reward = reward
        self.leaf = leaf
        self.guard = guard
        self.whole = whole
        #: ``whole=yes``: the rest of the chosen whole move, and the seat playing it.
        self._plan: list[int] = []
        self._plan_seat = -1
        self._heuristic: Any = None
        self._guard_agent: Any = None
        if rollout == "heuristic" or guard:
            cls = get_spec(game).heuristic_class()
            if cls is None:
                raise ValueError(f"mcts: game {game!r} has no heuristic agent for rollout=heuristic or guard")
            if rollout == "heuristic":
                self._heuristic = cls(0)
            self._guard_agent = cls(0) if guard else None
        #: ``{action: (visits, reward sum)}`` of the root after the last search (rewards in units of ``1/unit``).
        self.last_search: dict[int, tuple[int, int]] = {}
        #: Iterations of the last search.
        self.last_iterations = 0
        #: Distinct re-deals of the last search.
        self.last_deals = 0
        #: The tree of the last ``tree=ucb`` search (its root).
        self.last_root: _Node | None = None

    def __getstate__(self) -> dict[str, Any]:
        """Pickled without its simulator (each process has its own, see :func:`simulator_for`)."""
        state = dict(self.__dict__)
        state["sim"] = None
        return state

    def use_simulator(self, sim: Simulator) -> None:
        """Search with ``sim`` (its table size sets :attr:`unit`)."""
        self.sim = sim
        self._scale = 2 * max(1, sim.num_players - 1)
        self.unit = sim.unit * self._scale

    # ------------------------------------------------------------------ playing
    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self._plan = []

    def act(self, observation: dict[str, np.ndarray], view: PlayerView | None = None) -> int:
        legal = np.flatnonzero(observation["action_mask"]).tolist()
        if view is None:
            return self.random_legal(observation["action_mask"])
        if self._plan:
            step = self._plan.pop(0)
            if view.seat == self._plan_seat and step in legal:
                return int(step)
            self._plan = []
        if len(legal) == 1:
            return int(legal[0])
        return self.search(view, legal)

    def search(self, view: PlayerView, legal: list[int]) -> int:
        """Run the search from ``view`` over the root actions ``legal``; the action to play."""
        self.use_simulator(simulator_for(view.game, view.num_players))
        if self._heuristic is not None:
            self._heuristic.reset(seed=int(self.rng.integers(0, 2**63)))
        if self.tree == "flat":
            return self.flat_search(view, legal)
        root = _Node(view.seat)
        guarded = self._guarded_action(view, legal) if self.guard else None
        order = self.root_order(view, legal)
        if guarded is not None and guarded not in order:
            order = [*order[:-1], guarded] if self.sims is not None and len(order) >= self.sims else [*order, guarded]
        root_actions = frozenset(order)
        deals: list[Any] = []
        deadline = None if self.seconds is None else time.perf_counter() + self.seconds
        iterations = 0
        while True:
            self._iterate(root, self._deal(view, deals, iterations), root_actions, order)
            iterations += 1
            if deadline is None:
                if iterations >= self.sims:
                    break
            elif time.perf_counter() >= deadline:
                break
        self.last_iterations = iterations
        self.last_deals = len(deals) if self.redeals is not None else iterations
        self.last_root = root
        children = {a: ch for (_, a), ch in root.children.items()}
        self.last_search = {a: (ch.visits, ch.reward) for a, ch in sorted(children.items()) if a in root_actions}
        choice = self._final_choice(root, sorted(root_actions))
        if guarded is not None and choice != guarded:
            choice = self._guard_choice(children, choice, guarded, self.margin)
        return choice

    def _guarded_action(self, view: PlayerView, legal: list[int]) -> int:
        """The game's heuristic move on the view (the move that ``guard`` keeps unless beaten)."""
        agent = self._guard_agent
        agent.reset(seed=int(self.rng.integers(0, 2**63)))
        observation = {"action_mask": self.sim.mask(legal)}
        if getattr(agent, "needs_observation", False):
            observation["observation"] = self.sim.observation(view.state, view.seat)
        return int(agent.act(observation, view))

    @staticmethod
    def _guard_choice(children: dict[int, _Node], choice: int, guarded: int, margin: Fraction) -> int:
        """``choice`` if its mean beats the guarded move's by more than ``margin`` standard errors (Welch's,
        exact in fractions), else ``guarded``. A move without two visits never beats it."""
        a, b = children.get(choice), children.get(guarded)
        if a is None or a.visits < 2:
            return guarded
        if b is None or b.visits < 2:
            return choice if a.reward > 0 and margin == 0 else guarded
        mean_a, mean_b = Fraction(a.reward, a.visits), Fraction(b.reward, b.visits)
        diff = mean_a - mean_b
        if diff <= 0:
            return guarded
        var = sum(
            (Fraction(n.squares) - Fraction(n.reward) ** 2 / n.visits) / (n.visits - 1) / n.visits for n in (a, b)
        )
        return choice if diff * diff > margin * margin * var else guarded

    def root_order(self, view: PlayerView, legal: list[int]) -> list[int]:
        """The root actions in the order they are expanded: ascending ids (drawn at random when expanded);
        with ``width``, the ``width`` best by the greedy agent's values on the view, best first (ties to
        the lowest id), and the others pruned; with ``distinct``, of actions of equal greedy value only
        the lowest id is kept."""
        width = self.root_width()
        if width is None or (len(legal) <= width and not self.distinct):
            return sorted(int(a) for a in legal) if self.width is None else self._ranked(view, legal)[:width]
        return self._ranked(view, legal)[:width]

    def root_width(self) -> int | None:
        """Root actions searched at most: ``width``, never more than ``sims``; without ``width``, the tree
        search keeps ``sims // AUTO_WIDTH_VISITS`` (at least 1), the flat search ``sims // 2`` (at least 2)
        so that no root action goes without samples. ``None``: all (a ``seconds`` budget, no ``width``)."""
        if self.sims is None:
            return self.width
        cap = max(1, self.sims // AUTO_WIDTH_VISITS) if self.tree == "ucb" else max(2, self.sims // 2)
        if self.width is None:
            return cap
        return min(self.width, self.sims)

    def _ranked(self, view: PlayerView, legal: list[int]) -> list[int]:
        """``legal`` by the greedy agent's values on the view, best first (ties to the lowest id); with
        ``distinct``, one action (the lowest id) per value."""
        greedy = GreedyAgent(self.game, view.num_players, seed=int(self.rng.integers(0, 2**63)))
        values = greedy.action_values(view, [int(a) for a in legal])
        ranked = sorted(values, key=lambda a: (-values[a], a))
        if self.distinct:
            ranked = [a for i, a in enumerate(ranked) if i == 0 or values[a] != values[ranked[i - 1]]]
        return ranked

    # ------------------------------------------------------------------ flat search
    def flat_search(self, view: PlayerView, legal: list[int]) -> int:
        """Rollout-based policy improvement at the root (``tree=flat``); the action to play.

        The candidates are the root actions (with ``width``, the ``width`` best by greedy value) and
        the **base action**, the rollout policy's own choice (``greedy`` or ``heuristic``) on the first
        re-deal. Successive halving (Karnin, Koren and Somekh, ICML 2013) spends the ``sims`` rollouts
        over ``ceil(log2 K)`` rounds for ``K`` candidates (none for one): round ``r`` rolls every surviving candidate
        out ``max(1, sims // (survivors * rounds))`` times and keeps the better half by reward sum
        (ties: the earlier candidate), and the base action always. Every rollout of a sample uses the
        same re-deal and the same chance seed for every candidate (common random numbers), so
        candidates are compared on the same luck. The choice: the best survivor by reward sum (ties to
        the earlier candidate); it replaces the base action only if its advantage over it, paired by
        sample, exceeds ``margin`` standard errors (:meth:`_flat_choice`).
        """
        deals: list[Any] = []
        first = self._deal(view, deals, 0)
        candidates: list[Any] = (
            self._whole_candidates(view, legal, first) if self.whole else self._flat_candidates(view, legal, first)
        )
        base = None if self.rollout == "random" else candidates[0]
        stats = {a: [0, 0, 0, 0] for a in candidates}  # visits, reward sum, paired difference sum, its squares
        alive, samples = list(candidates), 0
        rounds = (len(alive) - 1).bit_length()  # 0 for a single candidate: nothing to compare
        for r in range(rounds):
            for _ in range(max(1, self.sims // (len(alive) * rounds))):
                deal = first if samples == 0 else self._deal(view, deals, samples)
                seed = int(self.rng.integers(0, 2**63))
                rewards = {a: self._flat_rollout(deal, a, seed)[view.seat] for a in alive}
                self._flat_record(stats, rewards, base)
                samples += 1
            if r < rounds - 1:
                kept = set(sorted(alive, key=lambda a: -stats[a][1])[: (len(alive) + 1) // 2])  # stable sort
                alive = [a for a in alive if a in kept or a == base]
        self.last_iterations = sum(st[0] for st in stats.values())
        self.last_deals = len(deals) if self.redeals is not None else samples
        self.last_search = {a: (st[0], st[1]) for a, st in sorted(stats.items())}
        choice = self._flat_choice(alive, stats, base, self.margin)
        if self.whole:
            self._plan, self._plan_seat = list(choice[1:]), view.seat
            return choice[0]
        return choice

    def whole_moves(self, state: Any, seat: int) -> list[tuple[tuple[int, ...], Any]]:
        """The whole moves of ``seat`` in ``state``, ``(actions, state after)`` in the order found.

        A whole move is a sequence of ``seat``'s own decisions that ends where the engine draws chance,
        another seat decides, the game ends or :data:`WHOLE_MOVE_LENGTH` decisions are made. Past
        :data:`WHOLE_MOVES_MAX` sequences the ones still open stop where they are (partial moves, which
        the rollout policy completes). The state after a move that drew chance is one sample of it."""
        return whole_moves(self.sim, state, seat)

    def _whole_candidates(self, view: PlayerView, legal: list[int], deal: Any) -> list[tuple[int, ...]]:
        """The candidates of a whole-move flat search: the rollout policy's own whole move first (its
        decisions from the first re-deal while it is the seat's turn and nothing is drawn), then the
        whole moves of best greedy value after them (:meth:`root_width` of them, ties to the first found)."""
        sim, seat = self.sim, view.seat
        moves = self.whole_moves(sim.copy(deal), seat)
        ranked = sorted(range(len(moves)), key=lambda i: -Fraction(sim.value(moves[i][1], seat)))
        order = [moves[i][0] for i in ranked]
        width = self.root_width()
        if width is not None:
            order = order[:width]
        if self.rollout == "random":
            return order
        base = self._base_whole_move(sim.copy(deal), seat, legal)
        return [base, *(m for m in order if m != base)]

    def _base_whole_move(self, state: Any, seat: int, legal: list[int]) -> tuple[int, ...]:
        """The rollout policy's whole move from ``state`` (see :meth:`_whole_candidates`)."""
        sim = self.sim
        rng = np.random.default_rng(int(self.rng.integers(0, 2**63)))
        if self._heuristic is not None:
            self._heuristic.reset(seed=int(rng.integers(0, 2**63)))
        if self.rollout == "heuristic":
            return follow(sim, state, seat, self._heuristic_action, rng)
        return follow(sim, state, seat, lambda s, lg: self._greedy_action(sim.copy(s), lg, rng), rng)

    @staticmethod
    def _flat_record(stats: dict[int, list[int]], rewards: dict[int, int], base: int | None) -> None:
        """Add one sample's rewards to ``stats`` (and each candidate's difference to the base action's)."""
        for action, reward in rewards.items():
            st = stats[action]
            st[0] += 1
            st[1] += reward
            if base is not None:
                d = reward - rewards[base]
                st[2] += d
                st[3] += d * d

    @staticmethod
    def _flat_choice(alive: list[int], stats: dict[int, list[int]], base: int | None, margin: Fraction) -> int:
        """The survivor of highest reward sum (survivors have equal visits; ties to the earliest in
        ``alive``). It replaces ``base`` only if its paired differences to it (sum ``S``, sum of squares
        ``Q``) give ``S > 0`` and ``S**2 > margin**2 * Q``: the mean difference is more than ``margin``
        standard errors (``sqrt(Q) / n``, the differences' root mean square over ``sqrt(n)``) above 0."""
        best = max(alive, key=lambda a: (stats[a][1], -alive.index(a)))
        if base is None or best == base:
            return best
        total, squares = stats[best][2], stats[best][3]
        m2 = margin * margin
        return best if total > 0 and total * total * m2.denominator > m2.numerator * squares else base

    def _flat_candidates(self, view: PlayerView, legal: list[int], deal: Any) -> list[int]:
        """The candidates of :meth:`flat_search` in order of preference: the base action first (if the
        rollout policy has one), then :meth:`root_order`."""
        order = self.root_order(view, legal)
        if self.rollout == "random":
            return order
        state = self.sim.copy(deal)
        rng = np.random.default_rng(int(self.rng.integers(0, 2**63)))
        if self.rollout == "heuristic":
            self._heuristic.reset(seed=int(rng.integers(0, 2**63)))
            base = self._heuristic_action(state, list(legal))
        else:
            base = self._greedy_action(state, list(legal), rng)
        return [base, *(a for a in order if a != base)]

    def _flat_rollout(self, deal: Any, action: int | tuple[int, ...], seed: int) -> list[int]:
        """Rewards of one rollout: ``action`` (or a whole move's actions, while they stay legal) on a copy
        of ``deal``, then the rollout policy, chance and the heuristic's own draws from ``seed`` (the same
        for every candidate of a sample)."""
        sim = self.sim
        state = sim.copy(deal)
        rng = np.random.default_rng(seed)
        if self._heuristic is not None:
            self._heuristic.reset(seed=seed)
        actions = action if isinstance(action, tuple) else (action,)
        played = 0
        for a in actions:
            if played and (sim.is_over(state) or a not in sim.legal_actions(state)):
                break
            sim.apply(state, a, rng)
            played += 1
        return self._rollout(state, played, rng)

    def _deal(self, view: PlayerView, deals: list[Any], iteration: int) -> Any:
        """The determinization of iteration ``iteration``: a fresh re-deal (``redeals=None``), or a copy of
        re-deal ``iteration % redeals`` of the pool ``deals``, drawn when first needed. When the second
        re-deal equals the first, the seat sees everything and the first serves every iteration."""
        sim = self.sim
        if self.redeals is None:
            return sim.determinize(view.state, view.seat, self.rng)
        if iteration < self.redeals and (iteration == len(deals)):
            deal = sim.determinize(view.state, view.seat, self.rng)
            if iteration == 1 and same_state(deal, deals[0]):
                return sim.copy(deals[0])  # nothing hidden: ``deals`` stays one long, no further draws
            deals.append(deal)
            return sim.copy(deal)
        return sim.copy(deals[iteration % len(deals)])

    @staticmethod
    def _final_choice(root: _Node, legal: list[int]) -> int:
        """Most visited; ties to the highest mean (equal visits: the higher reward sum), then the lowest id."""
        children = {a: ch for (_, a), ch in root.children.items()}
        best, best_key = legal[0], (-1, 0)
        for action in legal:
            child = children.get(action)
            key = (child.visits, child.reward) if child is not None else (0, 0)
            if key > best_key:
                best, best_key = action, key
        return best

    # ------------------------------------------------------------------ one iteration
    def _iterate(self, root: _Node, state: Any, root_actions: frozenset[int], order: list[int]) -> None:
        """One iteration on the determinization ``state`` (played on in place).

        Children are keyed by ``(deciding seat, action)``; a move after which the engine drew chance leads
        on to the children of that outcome (:class:`_Node`), so nodes below a roll hold that roll's
        situation only."""
        sim, rng = self.sim, self.rng
        node, children, path = root, root.children, [root]
        steps = 0
        while not sim.is_over(state) and steps < sim.max_decisions:
            legal = sim.legal_actions(state)
            if node is root:
                legal = [a for a in legal if a in root_actions]
                if not legal:
                    return  # cannot happen for a consistent re-deal: nothing to learn from it
            mover = sim.deciding_seat(state)
            untried = [a for a in legal if (mover, a) not in children]
            if untried:
                if node is root and self.width is not None:
                    action = next(a for a in order if a in untried)  # best greedy value first
                else:
                    action = untried[int(rng.integers(len(untried)))]
                child = children[(mover, action)] = _Node(mover)
                sim.apply(state, action, rng)
                path.append(child)
                steps += 1
                break
            action = self._select(children, mover, legal)
            draws = _Draws(rng)
            sim.apply(state, action, draws)
            node = children[(mover, action)]
            children = node.branches.setdefault(tuple(draws.drawn), {})
            path.append(node)
            steps += 1
        rewards = self._rollout(state, steps)
        root.visits += 1
        for n in path[1:]:
            r = rewards[n.mover]
            n.visits += 1
            n.reward += r
            n.squares += r * r

    def _select(self, children: dict[tuple[int, int], _Node], mover: int, legal: list[int]) -> int:
        """The legal child of highest UCB1 (ties: lowest id); every legal child's availability goes up."""
        unit, c2 = self.unit, self._c2
        best, best_score = -1, -1
        for action in legal:  # ascending
            child = children[(mover, action)]
            score = ucb_score(child.reward, child.visits, child.available, unit, c2)
            if score > best_score:
                best, best_score = action, score
        for action in legal:
            children[(mover, action)].available += 1
        return best

    # ------------------------------------------------------------------ rollouts
    def _rollout(self, state: Any, steps: int, rng: Any = None) -> list[int]:
        """Play ``state`` on with the rollout policy, chance drawn from ``rng`` (default: the agent's);
        the rewards per seat (units of ``1/unit``)."""
        sim = self.sim
        rng = self.rng if rng is None else rng
        budget = sim.max_decisions - steps
        if self.depth is not None:
            budget = min(budget, self.depth)
        played = 0
        while played < budget and not sim.is_over(state):
            legal = sim.legal_actions(state)
            if self.rollout == "random":
                sim.apply(state, legal[int(rng.integers(len(legal)))], rng)
            elif self.rollout == "greedy":
                state = self._greedy_step(state, legal, rng)
            else:
                sim.apply(state, self._heuristic_action(state, legal), rng)
            played += 1
        if sim.is_over(state) or self.leaf == "leader":
            rewards = sim.win_rewards(state) if sim.is_over(state) else sim.leader_rewards(state)
            if self.reward == "win":
                return [self.unit if r else 0 for r in rewards]
            return [r * self._scale for r in rewards]
        if self.leaf == "margin":
            return self.margin_rewards(state)
        return self.rank_rewards(state)

    def margin_rewards(self, state: Any) -> list[int]:
        """Graded rewards of an unfinished ``state`` (units of ``1/unit``, floored): each seat's greedy value
        placed linearly between the lowest (0) and the highest (1); all ``1/2`` when every value is equal."""
        sim = self.sim
        values = [Fraction(sim.value(state, p)) for p in range(sim.num_players)]
        low, high = min(values), max(values)
        if low == high:
            return [self.unit // 2] * sim.num_players
        return [int(self.unit * (v - low) / (high - low)) for v in values]

    def rank_rewards(self, state: Any) -> list[int]:
        """Graded rewards of an unfinished ``state`` (units of ``1/unit``): each seat's share of the other
        seats it leads by greedy value, a tie counting half: 1 for the sole leader, 0 for the sole last."""
        sim = self.sim
        values = [sim.value(state, p) for p in range(sim.num_players)]
        return [
            sim.unit * sum(2 if v > w else 1 if v == w else 0 for q, w in enumerate(values) if q != p)
            for p, v in enumerate(values)
        ]

    def _greedy_step(self, state: Any, legal: list[int], rng: Any) -> Any:
        """The state after the action of best greedy value for the deciding seat (one sampled outcome
        each, drawn from one seed shared by the candidates; ties to the lowest id)."""
        return self._greedy_best(state, legal, rng)[1]

    def _greedy_action(self, state: Any, legal: list[int], rng: Any) -> int:
        """The action that :meth:`_greedy_step` takes."""
        return self._greedy_best(state, legal, rng)[0]

    def _greedy_best(self, state: Any, legal: list[int], rng: Any) -> tuple[int, Any]:
        """``(action, state after it)`` of best greedy value for the deciding seat (see :meth:`_greedy_step`)."""
        sim = self.sim
        if len(legal) == 1:
            sim.apply(state, legal[0], rng)
            return legal[0], state
        seat = sim.deciding_seat(state)
        seed = int(rng.integers(0, 2**63))
        best, best_state, best_value = legal[0], None, None
        for action in legal:
            after = sim.copy(state)
            sim.apply(after, action, np.random.default_rng(seed))
            v = sim.value(after, seat)
            if best_value is None or v > best_value:
                best, best_state, best_value = action, after, v
        return best, best_state

    def _heuristic_action(self, state: Any, legal: list[int]) -> int:
        """The game's heuristic agent's action for the deciding seat, with ``state`` as its view."""
        return self.sim.agent_action(self._heuristic, state, legal)
