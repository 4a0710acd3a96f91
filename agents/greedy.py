"""The greedy agent: a one-step look-ahead by the game's own value.

    ice-envs evaluate cardiceo --players 2 --agents greedy,heuristic --games 400 --workers 1

For each legal action the agent computes the expected greedy value of the state after it,
for its own seat, and plays the best one. The value is the game's (its spec's ``greedy``,
``ice_envs/<game>/greedy.py``: the best immediate score change or progress by the game's own
score, documented per game); a game without one is valued by its running score.

**Information.** The agent reads only what its seat sees: it searches
:meth:`~ice_envs.agents.search.Simulator.determinize` re-deals of the view's state drawn with its
own generator (``samples`` of them when the game hides something from the seat, else one), never
the view's state itself. So its decision is the same whichever re-deal the view holds.

**Chance.** On each re-deal the expectation over the action's chance outcomes is exact where the
game or the engine allows it cheaply: the game's ``expected_values`` hook (next to its value
function), or an enumeration of the engine's ``integers`` draws, up to ``OUTCOME_LIMIT`` outcomes per
action and decision over all re-deals together. Otherwise ``samples`` outcomes are sampled (one per
re-deal), each from a seed of the agent's generator shared by every action (common random numbers).

**Bit-exact.** Values are integers or fractions and means are fractions: every comparison is
exact. Ties go to the lowest action id.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from ice_envs.agents.search import Exact, same_state, simulator_for
from ice_envs.core.agent import PlayerView, SeededAgent
from ice_envs.core.registry import get_spec

__all__ = ["DEFAULT_SAMPLES", "OUTCOME_LIMIT", "GreedyAgent", "best_action"]

#: Re-deals of the hidden information (and sampled chance outcomes) per decision, by default.
DEFAULT_SAMPLES = 4
#: Chance outcomes enumerated per action and decision, over all re-deals together: each of ``d`` re-deals
#: enumerates up to ``OUTCOME_LIMIT // d`` outcomes exactly; an action with more is sampled on it.
OUTCOME_LIMIT = 256


def best_action(values: dict[int, Exact]) -> int:
    """The action of highest value; ties to the lowest action id (exact comparisons)."""
    best = None
    for action in sorted(values):
        if best is None or values[action] > values[best]:
            best = action
    if best is None:
        raise ValueError("no actions to choose from")
    return best


class GreedyAgent(SeededAgent):
    """See the module docstring.

    Args:
        game: the game's registry name.
        num_players: seats at the table (``None``: read from each view).
        seed: seed of the agent's own generator (re-deals and sampled outcomes).
        samples: re-deals (games with hidden information) and sampled chance outcomes per decision.
    """

    name = "greedy"
    needs_view = True
    needs_observation = False

    def __init__(
        self, game: str, num_players: int | None = None, seed: int | None = None, *, samples: int = DEFAULT_SAMPLES
    ) -> None:
        super().__init__(seed)
        if isinstance(samples, bool) or not isinstance(samples, int) or samples < 1:
            raise ValueError(f"greedy: samples must be an integer >= 1, got {samples!r}")
        self.game = get_spec(game).name
        self.samples = samples

    def act(self, observation: dict[str, np.ndarray], view: PlayerView | None = None) -> int:
        legal = np.flatnonzero(observation["action_mask"]).tolist()
        if view is None:  # nothing to look ahead on (evaluation always passes a view)
            return self.random_legal(observation["action_mask"])
        if len(legal) == 1:
            return int(legal[0])
        return best_action(self.action_values(view, legal))

    def action_values(self, view: PlayerView, legal: list[int]) -> dict[int, Fraction]:
        """The expected greedy value for ``view.seat`` after each of ``legal`` (exact fractions)."""
        sim, seat, n = simulator_for(view.game, view.num_players), view.seat, self.samples
        first = sim.determinize(view.state, seat, self.rng)
        second = sim.determinize(view.state, seat, self.rng)
        hidden = not same_state(first, second)
        deals = [first, second][:n] if hidden else [first]
        while hidden and len(deals) < n:
            deals.append(sim.determinize(view.state, seat, self.rng))
        seeds = [int(s) for s in self.rng.integers(0, 2**63, size=n)]
        limit = max(1, OUTCOME_LIMIT // len(deals))
        exact_by_deal = [sim.expected_values(deal, seat, legal, limit) for deal in deals]
        values: dict[int, Fraction] = {}
        for action in legal:
            total: Exact = 0
            for k in range(n):
                d = k if hidden else 0
                known = exact_by_deal[d].get(action)
                if known is not None:
                    total += known
                else:  # one sampled outcome, from the k-th seed (the same for every action)
                    after = sim.copy(deals[d])
                    sim.apply(after, action, np.random.default_rng(seeds[k]))
                    total += sim.value(after, seat)
            values[action] = Fraction(total) / n
        return values
