"""Does a CubeMelt heuristic re-roll decision hinge on how its expectations ``trans @ values`` are rounded?

Plays heuristic self-play as the heuristic played it with float products (the installed heuristic, its re-roll
decisions replaced by ``numpy``'s below, so the games are the same whatever is installed) and, at every re-roll
decision that
looks ahead (at least one expectation over a re-roll), recomputes the decision with the expectations

* ``numpy``: ``quantised(trans @ values)``, the heuristic as it was (numpy's ``@``, i.e. BLAS, on its float
  transition, :func:`float_transition` here);
* ``forward`` / ``reverse``: the float products ``trans[k, c] * values[c]`` summed one by one from the first
  face count or from the last (``np.cumsum``, sequential);
* ``fsum``: ``math.fsum`` of the float products (the correctly rounded sum);
* ``exact``: the rational ``sum(w * V) / F**r`` in integers (``w`` the re-roll's outcome counts, ``V`` the
  values in quanta, ``F**r`` the outcomes of the ``r`` re-rolled dice), rounded to the nearest quantum, a tie
  to the even one (computed here, independently of the heuristic);
* ``exact_up``: the same with a tie rounded up (does any decision read a tie's rounding at all?),

and counts the decisions that differ from ``numpy``'s (``installed``: the installed heuristic's own decision), the product rows that are exact ties (and those the
decision reads), and the smallest distance of a non-tie row from a rounding boundary.

    python benchmarks/prototypes/cubemelt_exact_expectations.py --games 95 --suite-games 300 [--only expansion:4]
"""

from __future__ import annotations

import argparse
import math
import time
from collections import Counter
from collections.abc import Callable
from math import factorial

import numpy as np

from ice_envs.agents.spec import load_agent
from ice_envs.core.agent import make_view
from ice_envs.core.registry import make as make_env
from ice_envs.cubemelt import heuristic as h
from ice_envs.cubemelt import rules
from ice_envs.cubemelt.spec import SPEC

Q = h.VALUE_QUANTUM


def float_transition(faces: tuple[int, ...]) -> np.ndarray:
    """The heuristic's float transition as it was: ``float(r!) * prod(p ** x / x!)`` summed per final count."""
    from itertools import product

    p = [faces.count(kind) / len(faces) for kind in range(rules.NUM_KINDS)]
    out = np.zeros((len(h.KEEPS), len(h.COUNTS)))
    index = {c: i for i, c in enumerate(h.COUNTS)}
    for ki, keep in enumerate(h.KEEPS):
        r = rules.NUM_DICE - sum(keep)
        for roll in product(range(r + 1), repeat=rules.NUM_KINDS):
            if sum(roll) != r:
                continue
            prob = float(factorial(r))
            for kind in range(rules.NUM_KINDS):
                prob *= p[kind] ** roll[kind] / factorial(roll[kind])
            if prob:
                out[ki, index[tuple(keep[j] + roll[j] for j in range(rules.NUM_KINDS))]] += prob
    return out


def weights(faces: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
    """``(W, D)``: ``W[k, c] / D[k]`` is ``transition(faces)[k, c]`` exactly (integers)."""
    nf = len(faces)
    kinds = [faces.count(k) for k in range(rules.NUM_KINDS)]
    w = np.zeros((len(h.KEEPS), len(h.COUNTS)), dtype=np.int64)
    d = np.zeros(len(h.KEEPS), dtype=np.int64)
    index = {c: i for i, c in enumerate(h.COUNTS)}
    from itertools import product

    for ki, keep in enumerate(h.KEEPS):
        r = rules.NUM_DICE - sum(keep)
        d[ki] = nf**r
        for roll in product(range(r + 1), repeat=rules.NUM_KINDS):
            if sum(roll) != r:
                continue
            n = factorial(r)
            for k in range(rules.NUM_KINDS):
                n = n // factorial(roll[k]) * kinds[k] ** roll[k]
            if n:
                w[ki, index[tuple(a + b for a, b in zip(keep, roll, strict=True))]] += n
    return w, d


class Stats:
    def __init__(self) -> None:
        self.rows = 0
        self.ties = 0
        self.read_ties = 0
        self.products = 0
        self.min_gap = math.inf  # smallest |2 * num - (2m+1) * d| / (2 d) over non-ties, in quanta


def exact_rows(w: np.ndarray, d: np.ndarray, values: np.ndarray, up: bool, stats: Stats | None) -> np.ndarray:
    v = np.rint(values / Q).astype(np.int64)
    assert np.array_equal(v * Q, values)
    num = w @ v
    q, rem = np.divmod(num, d)
    twice = 2 * rem
    tie = twice == d
    if up:
        q = q + (twice >= d)
    else:
        q = q + ((twice > d) | (tie & (q % 2 == 1)))
    if stats is not None:
        stats.rows += len(d)
        stats.ties += int(tie.sum())
        stats.products += 1
        gap = np.abs(twice - d)[~tie] / (2 * d[~tie])
        stats.min_gap = min(stats.min_gap, float(gap.min()))
    return q * Q


def ordered(trans: np.ndarray, values: np.ndarray, how: str) -> np.ndarray:
    terms = trans * values[None, :]
    if how == "forward":
        return h.quantised(np.cumsum(terms, axis=1)[:, -1])
    if how == "reverse":
        return h.quantised(np.cumsum(terms[:, ::-1], axis=1)[:, -1])
    if how == "fsum":
        return h.quantised(np.array([math.fsum(row) for row in terms.tolist()]))
    raise ValueError(how)


def decide(agent: h.CubeMeltHeuristic, s: rules.CubeMeltState, me: int, expect: Callable, read: list) -> int:
    """``CubeMeltHeuristic.reroll_action`` with ``quantised(trans @ values)`` replaced by ``expect(values)``."""
    counts = tuple(rules.face_counts(s.dice))
    c = h._COUNT_INDEX[counts]
    levels = agent._levels(s, me)
    terminal = [np.asarray(agent.terminal_values(s, me, paid), dtype=np.float64) for paid, _ in levels]
    values = terminal[-1]
    for j in range(len(levels) - 2, 0, -1):
        if levels[j][1]:  # the heuristic's _best_over_keeps, in floats
            values = np.maximum(terminal[j], np.where(h._KEEP_OK, expect(values)[None, :], -np.inf).max(axis=1))
        else:
            values = terminal[j]
    stop = terminal[0][c]
    if not levels[0][1] or len(levels) < 2:
        return rules.STOP
    ev = expect(values)
    read.append(values)
    options = np.where(h._KEEP_OK[c], ev, -np.inf)
    k = int(options.argmax())
    if options[k] <= stop:
        return rules.STOP
    return agent._reroll_mask(s.dice, h.KEEPS[k])


def keep_of(s: rules.CubeMeltState, action: int) -> tuple[int, ...] | None:
    if action == rules.STOP:
        return None
    kept = [0] * rules.NUM_KINDS
    for i, face in enumerate(s.dice):
        if not action >> i & 1:
            kept[face] += 1
    return tuple(kept)


def explain(agent, s, me, trans, w, d, base: int, other: int) -> None:
    """Print a decision that the exact expectations change: the options' values, float and exact, in quanta."""
    c = h._COUNT_INDEX[tuple(rules.face_counts(s.dice))]
    read_f: list = []
    read_x: list = []
    decide(agent, s, me, lambda v: h.quantised(trans @ v), read_f)
    decide(agent, s, me, lambda v: exact_rows(w, d, v, False, None), read_x)
    ev_f = h.quantised(trans @ read_f[0]) / Q
    num = w @ np.rint(read_x[0] / Q).astype(np.int64)
    ev_x = exact_rows(w, d, read_x[0], False, None) / Q
    stop = float(agent.terminal_values(s, me, 0)[c]) / Q
    print(
        f"  exact differs: players {s.config.num_players} seat {me} rerolls {s.rerolls} counts {h.COUNTS[c]} "
        f"stop value {stop:.0f} q; float picks {keep_of(s, base)}, exact picks {keep_of(s, other)}",
        flush=True,
    )
    inner_same = np.array_equal(read_f[0], read_x[0])
    print(f"  values of the last look-ahead level equal (float, exact): {inner_same}", flush=True)
    for action in (base, other):
        keep = keep_of(s, action)
        if keep is None:
            continue
        k = h._KEEP_INDEX[keep]
        print(
            f"  keep {keep}: float {ev_f[k]:.0f} q, exact {ev_x[k]:.0f} q "
            f"(fraction {num[k]}/{d[k]} = {num[k] / d[k]:.4f} q)",
            flush=True,
        )


METHODS = ("forward", "reverse", "fsum", "exact", "exact_up")


def measure(players: int, options: dict, games: int, seeds: list[int], out: Counter, stats: Stats) -> None:
    view_rng = np.random.default_rng(0)
    for g in range(games):
        env = make_env("cubemelt", raw=True, num_players=players, **options)
        env.reset(seed=seeds[g])
        agents = [load_agent("heuristic", "cubemelt", seed=p, num_players=players) for p in range(players)]
        faces = tuple(env.game_state.config.faces)
        trans = float_transition(faces)
        w, d = weights(faces)
        assert np.array_equal(w / d[:, None], trans) or np.allclose(w / d[:, None], trans, rtol=1e-14, atol=0)
        while not all(env.terminations.values()) and not all(env.truncations.values()):
            seat = env.current_seat
            observation = env.observe(env.agent_selection)
            view = make_view(env, seat, view_rng)
            action = int(agents[seat].act(observation, view))
            out["decisions"] += 1
            s = view.state
            if s.phase == rules.PHASE_REROLL:
                out["reroll"] += 1
                agent = agents[seat]
                read: list = []
                base = decide(agent, s, seat, lambda v, t=trans: h.quantised(t @ v), read)
                if base != action and observation["action_mask"][base]:
                    out["differs:installed"] += 1
                    action = base  # the games are the heuristic's as it was, whatever is installed
                if read:
                    out["looked_ahead"] += 1
                    cnt = h._COUNT_INDEX[tuple(rules.face_counts(s.dice))]
                    for method in METHODS:
                        if method.startswith("exact"):
                            st = stats if method == "exact" else None
                            f = lambda v, up=method == "exact_up", st=st, w=w, d=d: exact_rows(w, d, v, up, st)  # noqa: E731
                        else:
                            f = lambda v, m=method, t=trans: ordered(t, v, m)  # noqa: E731
                        other = decide(agent, s, seat, f, [])
                        if other != base:
                            out[f"differs:{method}"] += 1
                            if method == "exact":
                                explain(agent, s, seat, trans, w, d, base, other)
                    # ties among the rows the last expectation offers from the current count
                    v = np.rint(read[0] / Q).astype(np.int64)
                    num = (w @ v)[h._KEEP_OK[cnt]]
                    dd = d[h._KEEP_OK[cnt]]
                    if (2 * np.mod(num, dd) == dd).any():
                        out["decisions_reading_a_tie"] += 1
            env.step(action)
        out["games"] += 1


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20, help="games per variant and player count")
    parser.add_argument("--only", default="", help="one table, e.g. expansion:4 (variant:players)")
    parser.add_argument("--suite-games", type=int, default=100, help="games on suite v1's 3-player deals")
    args = parser.parse_args()
    total: Counter = Counter()
    stats = Stats()
    start = time.process_time()
    for variant in sorted(SPEC.variants):
        for n in SPEC.variants[variant].players or SPEC.players:
            if args.only and args.only != f"{variant}:{n}":
                continue
            out: Counter = Counter()
            seeds = [7_000 + 100 * n + g for g in range(args.games)]
            measure(n, dict(SPEC.variants[variant].options), args.games, seeds, out, stats)
            print(variant, n, dict(out), flush=True)
            total.update(out)
    if args.suite_games:
        from ice_envs.evaluation.suite import SUITE_V1

        table = next(t for t in SUITE_V1.tables_of("cubemelt") if set(t.opponents) == {"heuristic"})
        first = SUITE_V1.seed_of(table)
        out = Counter()
        seeds = [first + g for g in range(args.suite_games)]
        measure(table.players, dict(table.options), args.suite_games, seeds, out, stats)
        print("suite_v1", table.players, dict(out), flush=True)
        total.update(out)
    print("total", dict(total))
    print(
        f"product rows {stats.rows}, exact ties {stats.ties} ({stats.ties / max(1, stats.rows):.2%}), products "
        f"{stats.products}; smallest distance of a non-tie from a rounding boundary {stats.min_gap:.3g} quanta"
    )
    print(f"cpu {time.process_time() - start:.0f} s")


if __name__ == "__main__":
    main()
