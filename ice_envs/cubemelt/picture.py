"""The picture of CubeMelt: the six dice, and each player's three tracks and ability.

One paint function (:func:`paint`) makes the ``rgb_array`` pixels (:func:`draw`) and the SVG (:func:`svg`).
In the SVG the six dice (``die-<i>``) and each player's Love and Adventure tracks (``p<seat>-love``,
``p<seat>-adventure``) are tagged ``data-target`` (see :func:`action_target`).

Everything in CubeMelt is public, so ``viewer`` only marks whose picture it is.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ice_envs.core import table_render as tr
from ice_envs.core.canvas import Canvas, paint_rgb, paint_svg
from ice_envs.cubemelt import rules

WIDTH = 1000
TOP = 236
ROW_H = 74
LOVE_COLOR = (240, 110, 160)
ADVENTURE_COLOR = (250, 200, 60)
MELT_COLOR = (120, 200, 245)
FACE_COLORS = {
    rules.HEART: (225, 50, 90),
    rules.STAR: (235, 170, 20),
    rules.SAD: (70, 120, 210),
    rules.DROOPING: (130, 90, 200),
}
SOURCE_NAMES = {rules.SOURCE_DICE: "dice", rules.SOURCE_PAID: "paid re-roll"}


def _state(env_or_state: Any) -> rules.CubeMeltState:
    raw = getattr(env_or_state, "unwrapped", env_or_state)
    return raw.game_state if hasattr(raw, "metadata") else raw


def size(num_players: int) -> tuple[int, int]:
    """Width and height of the picture for ``num_players``."""
    return WIDTH, TOP + ROW_H * num_players + 12


def face_die(d: Canvas, x: float, y: float, size: float, face: int, *, dim: bool = False) -> None:
    """One CubeMelt die at (x, y) showing ``face`` (Heart, Star, Sad or Drooping)."""
    fill = (200, 210, 220) if dim else (248, 248, 255)
    d.rounded_rectangle((x, y, x + size, y + size), radius=size * 0.18, fill=fill, outline=tr.INK, width=2)
    cx, cy, r = x + size / 2, y + size / 2, size * 0.32
    color = FACE_COLORS[face]
    if face == rules.HEART:
        tr.heart(d, cx, cy, r, color)
    elif face == rules.STAR:
        tr.star(d, cx, cy, r * 1.1, color)
    else:
        tr.face(d, cx, cy - (r * 0.1 if face == rules.DROOPING else 0), r, color, drooping=face == rules.DROOPING)


def _status(s: rules.CubeMeltState) -> str:
    if s.phase == rules.PHASE_OVER:
        if not s.winners:
            return "game over — everybody melted; nobody wins"
        names = " and ".join(f"player_{p}" for p in s.winners)
        goal = any(max(s.love[p], s.adventure[p]) >= rules.GOAL for p in s.winners)
        why = "with 20 Love or Adventure" if goal else "with the best min(Love, Adventure) after a melt"
        return f"game over — {names} {'win' if len(s.winners) > 1 else 'wins'} {why}"
    if s.phase == rules.PHASE_REROLL:
        cost = "may re-roll for free" if s.rerolls == 0 else "may re-roll for 1 Melt"
        return f"player_{s.active} {cost}, or stop and resolve"
    if s.phase == rules.PHASE_NINJA:
        return f"player_{s.active} (Ninja) may take the most frequent face"
    return f"player_{s.decider} ({rules.ABILITY_NAMES[s.pending].capitalize()}) chooses Love or Adventure"


def _event_text(event: Sequence[int]) -> str:
    seat, source, love, adventure, melt = event
    if source == rules.NINJA:
        return f"player_{seat} (Ninja) takes the most frequent face"
    parts = [f"{v:+d} {name}" for v, name in zip((love, adventure, melt), rules.TRACK_NAMES) if v]
    who = SOURCE_NAMES.get(source) or rules.ABILITY_NAMES[source].capitalize()
    return f"player_{seat}: {', '.join(parts) or 'no change'} ({who})"


def draw(env_or_state: Any, viewer: int | None = None) -> np.ndarray:
    """The table (dice, tracks, abilities) as an ``(H, W, 3)`` uint8 array."""
    s = _state(env_or_state)
    return paint_rgb(size(s.config.num_players), tr.TABLE, lambda canvas: paint(canvas, s, viewer))


def svg(env_or_state: Any, viewer: int | None = None) -> str:
    """The same picture as :func:`draw`, as a standalone SVG document."""
    s = _state(env_or_state)
    return paint_svg(size(s.config.num_players), tr.TABLE, lambda canvas: paint(canvas, s, viewer))


def die_target(i: int) -> str:
    """The ``data-target`` key of die ``i`` (0-5) of the roll."""
    return f"die-{i}"


def track_target(seat: int, track: str) -> str:
    """The ``data-target`` key of ``seat``'s ``"love"`` or ``"adventure"`` track."""
    return f"p{seat}-{track}"


def action_target(env_or_state: Any, action: int) -> str | None:
    """The SVG element a legal ``action`` of the deciding seat belongs to: the die a one-die re-roll
    rolls, the track the choice of Love or Adventure feeds; ``None`` for stopping, re-rolling several
    dice at once and the Ninja's choice."""
    s = _state(env_or_state)
    if 0 < action < rules.NUM_SUBSETS and action & (action - 1) == 0:
        return die_target(action.bit_length() - 1)
    if action == rules.CHOOSE_LOVE:
        return track_target(s.decider, "love")
    if action == rules.CHOOSE_ADVENTURE:
        return track_target(s.decider, "adventure")
    return None


def paint(d: Canvas, s: rules.CubeMeltState, viewer: int | None) -> None:
    """Paint the table as ``viewer`` sees it on ``d``."""
    cfg = s.config
    n = cfg.num_players
    width, _ = size(n)
    mode = "expansion" if cfg.expansion else "base game"
    tr.title_bar(d, width, f"CubeMelt: Getting Dicey — {n} players ({mode}), turn {s.turn + 1}", _status(s))
    _draw_dice(d, s)
    _draw_events(d, s)
    for p in range(n):
        _draw_player(d, s, p, TOP + ROW_H * p, viewer)


def _draw_dice(d: Canvas, s: rules.CubeMeltState) -> None:
    tr.panel(d, (12, 60, 520, 224))
    d.text((24, 66), f"Dice of player_{s.active}", fill=tr.TEXT, font=tr.font(14, bold=True))
    resolved = s.phase != rules.PHASE_REROLL
    for i, face in enumerate(s.dice):
        x = 26 + 80 * i
        with d.group(die_target(i)):
            face_die(d, x, 94, 66, face)
        d.text((x + 33, 172), rules.FACE_LABELS[face], fill=tr.MUTED, font=tr.font(11), anchor="mm")
    counts = rules.face_counts(s.dice)
    top = rules.most_frequent(s.dice)
    if top is None:
        note = "faces tie for most frequent: every die goes to the roller"
    else:
        note = f"most frequent: {rules.FACE_LABELS[top]} x{counts[top]} goes to the neighbours"
    if s.phase == rules.PHASE_REROLL:
        left = "free re-roll" if s.rerolls == 0 else "paid re-roll (1 Melt)"
        note = f"{left} available — {note}"
    elif resolved and s.phase != rules.PHASE_OVER:
        note = "resolving — " + note
    d.text((24, 194), tr.fit_text(d, note, tr.font(12), 490), fill=tr.CURRENT, font=tr.font(12))


def _draw_events(d: Canvas, s: rules.CubeMeltState) -> None:
    tr.panel(d, (532, 60, WIDTH - 12, 224))
    x0 = 544
    d.text((x0, 66), "What happened", fill=tr.TEXT, font=tr.font(14, bold=True))
    y = 90
    small = tr.font(12)
    if s.last_active >= 0:
        d.text((x0, y), f"last roll by player_{s.last_active}:", fill=tr.MUTED, font=small)
        for i, face in enumerate(s.last_dice):
            face_die(d, x0 + 170 + 24 * i, y - 2, 20, face, dim=True)
        y += 24
        for e in s.last_events[:3]:
            d.text((x0 + 10, y), tr.fit_text(d, _event_text(e), small, 420), fill=tr.TEXT, font=small)
            y += 17
    if s.events:
        d.text((x0, y), f"this turn (player_{s.active}):", fill=tr.MUTED, font=small)
        y += 18
        for e in s.events[: max(1, (220 - y) // 17)]:
            d.text((x0 + 10, y), tr.fit_text(d, _event_text(e), small, 420), fill=tr.TEXT, font=small)
            y += 17
    if s.last_active < 0 and not s.events:
        d.text((x0, y), "first roll of the game", fill=tr.MUTED, font=small)


def _draw_player(d: Canvas, s: rules.CubeMeltState, p: int, y: int, viewer: int | None) -> None:
    over = s.phase == rules.PHASE_OVER
    name = tr.player_header(
        d, p, y, WIDTH, ROW_H, viewer=viewer, over=over, winner=p in s.winners, acting=p == s.decider
    )
    if s.config.expansion and s.abilities[p] >= 0:
        d.text((46, y + 32), rules.ABILITY_NAMES[s.abilities[p]].capitalize(), fill=tr.MUTED, font=tr.font(13))
    bx = 54 + tr.text_width(d, name, tr.font(14, bold=True))
    if over and p in s.winners:
        tr.badge(d, bx, y + 11, "WINS", fill=tr.WINNER)
    elif over and p in s.melted:
        tr.badge(d, bx, y + 11, "MELTED", fill=MELT_COLOR)
    elif not over and p == s.decider:
        tr.badge(d, bx, y + 11, "to act" if p == s.active else "to choose")
    x = 230
    w = (WIDTH - 30 - x) / 3
    with d.group(track_target(p, "love")):
        tr.track_bar(d, x, y + 22, w - 10, 20, s.love[p], rules.GOAL, LOVE_COLOR, "Love")
    with d.group(track_target(p, "adventure")):
        tr.track_bar(d, x + w, y + 22, w - 10, 20, s.adventure[p], rules.GOAL, ADVENTURE_COLOR, "Adventure")
    tr.track_bar(d, x + 2 * w, y + 22, w - 10, 20, s.melt[p], rules.START_MELT, MELT_COLOR, "Melt")
