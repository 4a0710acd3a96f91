"""League and evaluation reports laid out for the browser.

:func:`league_view` reads a ``league.json`` (or a shipped ``docs/leagues/<game>.json``): the
ratings with their 95% intervals drawn as bars on one axis, the pairwise matrix as a heat map
(the share of shared games the row agent finished ahead of the column agent, with its interval
and p-value on hover), and the tables: agents, games, truncated games, wall time and, where the
table's own file is in ``tables/`` beside the report, each agent's win share at that table.
:func:`evaluation_view` reads an ``evaluation.json``: per agent its win rate, score and rank
with intervals, and the sample games that ``evaluate --record`` kept in ``records/``.

Every number is checked to be a finite number before it is drawn; a report of another shape is
refused with a clear message.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from ice_envs.core.errors import OptionError
from ice_envs.core.files import FileFormatError, load_json

#: Size cap of a league's table file read for its per-table results.
MAX_TABLE_BYTES = 64 << 20


def _num(value: Any) -> float | None:
    return float(value) if type(value) in (int, float) and math.isfinite(value) else None


def heat_colour(share: float | None) -> str:
    """Blue for 0, white for one half, red for 1 (``share`` of games finished ahead)."""
    if share is None:
        return "#eeeeee"
    t = max(0.0, min(1.0, share))
    if t < 0.5:
        k = t / 0.5
        r, g, b = int(59 + (255 - 59) * k), int(125 + (255 - 125) * k), int(216 + (255 - 216) * k)
    else:
        k = (t - 0.5) / 0.5
        r, g, b = int(255 - (255 - 216) * k), int(255 - (255 - 75) * k), int(255 - (255 - 59) * k)
    return f"#{r:02x}{g:02x}{b:02x}"


def league_view(data: dict[str, Any], tables_dir: Path | None = None) -> dict[str, Any]:
    """What the league page shows (see the module docstring)."""
    ratings = data.get("ratings")
    pairwise = data.get("pairwise")
    if not isinstance(ratings, list) or not isinstance(pairwise, dict):
        raise OptionError("not a league report: it lacks 'ratings' or 'pairwise'")
    rows = []
    for r in ratings:
        if not isinstance(r, dict):
            raise OptionError("league report: a rating is not an object")
        ci = r.get("mu_ci95") if isinstance(r.get("mu_ci95"), list) and len(r["mu_ci95"]) == 2 else [None, None]
        rows.append(
            {
                "agent": str(r.get("agent")),
                "spec": str(r.get("spec", "")),
                "games": r.get("games"),
                "win_share": _num(r.get("win_share")),
                "mu": _num(r.get("mu")),
                "sigma": _num(r.get("sigma")),
                "low": _num(ci[0]),
                "high": _num(ci[1]),
                "ordinal": _num(r.get("ordinal")),
            }
        )
    ends = [v for row in rows for v in (row["low"], row["high"]) if v is not None]
    lo, hi = (min(ends), max(ends)) if ends else (0.0, 1.0)
    span = (hi - lo) or 1.0
    for row in rows:
        if row["low"] is not None and row["high"] is not None and row["mu"] is not None:
            row["bar"] = {
                "left": 100 * (row["low"] - lo) / span,
                "width": max(0.5, 100 * (row["high"] - row["low"]) / span),
                "mid": 100 * (row["mu"] - lo) / span,
            }
    names = [str(a) for a in pairwise.get("agents", [])]
    matrix = []
    for i, a in enumerate(names):
        cells = []
        for j, b in enumerate(names):
            share = _cell(pairwise, "ahead_share", i, j)
            cells.append(
                {
                    "row": a,
                    "col": b,
                    "share": share,
                    "low": _cell(pairwise, "ci95_low", i, j),
                    "high": _cell(pairwise, "ci95_high", i, j),
                    "p": _cell(pairwise, "p_value", i, j),
                    "games": _cell(pairwise, "games", i, j),
                    "colour": heat_colour(share),
                }
            )
        matrix.append({"agent": a, "cells": cells})
    tables = []
    for t in data.get("tables") or []:
        if not isinstance(t, dict) or not isinstance(t.get("agents"), list):
            continue
        agents = [str(a) for a in t["agents"]]
        tables.append(
            {
                "agents": agents,
                "games": t.get("games"),
                "truncated": t.get("truncated"),
                "wall_seconds": _num(t.get("wall_seconds")),
                "shares": table_shares(tables_dir, agents) if tables_dir is not None else None,
                "specs": [str((data.get("agents") or {}).get(a, a)) for a in agents],
            }
        )
    return {"ratings": rows, "names": names, "matrix": matrix, "tables": tables}


def _cell(pairwise: dict[str, Any], key: str, i: int, j: int) -> float | None:
    rows = pairwise.get(key)
    try:
        return _num(rows[i][j])
    except (TypeError, IndexError, KeyError):
        return None


def table_shares(tables_dir: Path, agents: list[str]) -> list[float] | None:
    """Each agent's win share at the table stored in ``tables_dir/<a__b__c>.json`` (``None``: no such file)."""
    path = tables_dir / ("__".join(agents) + ".json")
    if not path.is_file() or path.is_symlink():
        return None
    try:
        data = load_json(path, what="league table", max_bytes=MAX_TABLE_BYTES, limit=64)
    except FileFormatError:
        return None
    results = data.get("results") if isinstance(data, dict) else None
    if not isinstance(results, list) or not results:
        return None
    totals = [0.0] * len(agents)
    for r in results:
        shares = r.get("win_share") if isinstance(r, dict) else None
        if not isinstance(shares, list) or len(shares) != len(agents):
            return None
        for k, v in enumerate(shares):
            totals[k] += _num(v) or 0.0
    return [t / len(results) for t in totals]


def evaluation_view(data: dict[str, Any]) -> dict[str, Any]:
    """What the evaluation page shows (see the module docstring)."""
    per_agent = data.get("per_agent")
    if not isinstance(per_agent, list):
        raise OptionError("not an evaluation report: it lacks 'per_agent'")
    rows = []
    for r in per_agent:
        if not isinstance(r, dict):
            continue
        rating = r.get("rating") if isinstance(r.get("rating"), dict) else {}
        rows.append(
            {
                "agent": str(r.get("agent")),
                "games": r.get("games"),
                "win_rate": _num(r.get("win_rate")),
                "win_ci": [_num(x) for x in (r.get("win_rate_ci95") or [None, None])[:2]],
                "mean_score": _num(r.get("mean_score")),
                "score_ci": [_num(x) for x in (r.get("mean_score_ci95") or [None, None])[:2]],
                "mean_rank": _num(r.get("mean_rank")),
                "mu": _num(rating.get("mu")),
                "sigma": _num(rating.get("sigma")),
                "truncated": r.get("truncated", 0),
            }
        )
    seats = [
        {"seat": s.get("seat"), "win_rate": _num(s.get("win_rate"))}
        for s in data.get("win_rate_by_seat") or []
        if isinstance(s, dict)
    ]
    return {"rows": rows, "seats": seats, "baseline": _num(data.get("random_baseline"))}
