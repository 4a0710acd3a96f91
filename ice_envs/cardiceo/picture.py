"""The picture of Cardiceo: the three dice, the discards and every hand.

The viewer's hand is face up and the others face down (``viewer=None``: all face up);
the dice show whether they were rolled, kept from the middle or used this turn.
One paint function (:func:`paint`) makes both the ``rgb_array`` pixels (:func:`draw`) and
the SVG (:func:`svg`); in the SVG each face-up card is tagged ``data-target="p<seat>-card-<value>"``
(see :func:`action_target`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ice_envs.cardiceo import rules
from ice_envs.core import table_render as tr
from ice_envs.core.canvas import Canvas, paint_rgb, paint_svg

WIDTH = 940
ROW_H = 84
TOP = 210
DIE_FILL = {"rolled": (245, 245, 255), "middle": (170, 215, 245), "used": (120, 130, 140)}
#: Number colour of each card value (cool for low values, warm for high ones).
_VALUE_COLORS = [(30, 70 + 8 * v, 170 - 6 * v) if v < 8 else (150 + 7 * v, 60, 40) for v in range(1, 16)]


def _state(env_or_state: Any) -> rules.CardiceoState:
    raw = getattr(env_or_state, "unwrapped", env_or_state)
    return raw.game_state if hasattr(raw, "metadata") else raw


def size(num_players: int) -> tuple[int, int]:
    """Width and height of the picture for ``num_players``."""
    return WIDTH, TOP + ROW_H * num_players + 12


def draw(env_or_state: Any, viewer: int | None = None) -> np.ndarray:
    """The table as ``viewer`` sees it, as an ``(H, W, 3)`` uint8 array."""
    s = _state(env_or_state)
    return paint_rgb(size(s.config.num_players), tr.TABLE, lambda canvas: paint(canvas, s, viewer))


def svg(env_or_state: Any, viewer: int | None = None) -> str:
    """The table as ``viewer`` sees it, as a standalone SVG document (the same picture as :func:`draw`)."""
    s = _state(env_or_state)
    return paint_svg(size(s.config.num_players), tr.TABLE, lambda canvas: paint(canvas, s, viewer))


def card_target(seat: int, value: int) -> str:
    """The ``data-target`` key of the face-up cards of ``value`` (1-15) in ``seat``'s hand."""
    return f"p{seat}-card-{value}"


def action_target(env_or_state: Any, action: int) -> str | None:
    """The SVG element a legal ``action`` of the deciding seat belongs to: the card a discard
    plays (several dice subsets may name the same card); ``None`` for ending the turn and for
    keeping or re-rolling the middle dice."""
    s = _state(env_or_state)
    if s.phase != rules.PHASE_DISCARD or not 0 <= action < rules.NUM_SUBSETS:
        return None
    return card_target(s.current, rules.subset_total(s, action))


def paint(d: Canvas, s: rules.CardiceoState, viewer: int | None) -> None:
    """Paint the table as ``viewer`` sees it on ``d``."""
    n = s.config.num_players
    width, _ = size(n)
    over = s.phase == rules.PHASE_OVER
    status = f"player_{s.winner} wins" if over else f"player_{s.current} is {rules.PHASE_NAMES[s.phase]}"
    tr.title_bar(d, width, f"Cardiceo — {n} players, turn {s.turn + 1}", status)
    _draw_dice(d, s)
    _draw_discards(d, s)
    for p in range(n):
        _draw_player(d, s, p, TOP + ROW_H * p, viewer)


def _draw_dice(d: Canvas, s: rules.CardiceoState) -> None:
    tr.panel(d, (12, 60, 330, 200))
    d.text((24, 66), "Dice", fill=tr.TEXT, font=tr.font(14, bold=True))
    for i, (faces, name) in enumerate(zip(rules.DIE_FACES, rules.DIE_NAMES)):
        if s.phase == rules.PHASE_OVER:
            where = "rolled"
        else:
            where = "used" if s.used[i] else ("middle" if s.locked[i] else "rolled")
        cx = 75 + 100 * i
        tr.die_shape(d, cx, 128, 36, faces, str(int(s.dice[i])), fill=DIE_FILL[where], name=name)
        d.text((cx, 186), where, fill=tr.MUTED, font=tr.font(11), anchor="mm")


def _draw_discards(d: Canvas, s: rules.CardiceoState) -> None:
    tr.panel(d, (342, 60, WIDTH - 12, 200))
    total = int(s.discarded.sum())
    d.text((354, 66), f"Discarded so far: {total} cards", fill=tr.TEXT, font=tr.font(14, bold=True))
    for v in range(rules.NUM_VALUES):
        x = 356 + 38 * v
        count = int(s.discarded[v])
        tint = tr.CARD_FACE if count else (70, 110, 140)
        color = _VALUE_COLORS[v] if count else (40, 70, 95)
        tr.card_face(d, x, 96, str(v + 1), w=32, h=46, color=color, tint=tint)
        for k in range(rules.COPIES_PER_VALUE):
            cx, cy = x + 4 + 8 * k, 154
            fill = tr.CURRENT if k < count else (40, 80, 110)
            d.ellipse((cx - 3.5, cy - 3.5, cx + 3.5, cy + 3.5), fill=fill)
    d.text((356, 172), "dots: copies of each value discarded (4 in the deck)", fill=tr.MUTED, font=tr.font(11))


def _draw_player(d: Canvas, s: rules.CardiceoState, p: int, y: int, viewer: int | None) -> None:
    over = s.phase == rules.PHASE_OVER
    highlight = tr.WINNER if over and p == s.winner else (tr.CURRENT if not over and p == s.current else None)
    tr.panel(d, (12, y, WIDTH - 12, y + ROW_H - 8), highlight=highlight)
    color = tr.PLAYER_COLORS[p % len(tr.PLAYER_COLORS)]
    d.ellipse((24, y + 12, 38, y + 26), fill=color)
    name = f"player_{p}" + (" (you)" if viewer == p else "")
    d.text((46, y + 10), name, fill=tr.TEXT, font=tr.font(14, bold=True))
    cards = [v + 1 for v in range(rules.NUM_VALUES) for _ in range(int(s.hands[p, v]))]
    d.text((24, y + 34), f"{len(cards)} cards in hand", fill=tr.MUTED, font=tr.font(12))
    d.text((24, y + 52), f"discarded {int(rules.scores(s)[p])}/{s.config.hand_size}", fill=tr.MUTED, font=tr.font(12))
    bx = 54 + tr.text_width(d, name, tr.font(14, bold=True))
    if over and p == s.winner:
        tr.badge(d, bx, y + 11, "WINS", fill=tr.WINNER)
    elif not over and p == s.current:
        tr.badge(d, bx, y + 11, "to act")
    face_up = viewer is None or viewer == p
    xs = tr.card_row(len(cards), 230, WIDTH - 260, 40)
    for x, v in zip(xs, cards):
        if face_up:
            with d.group(card_target(p, v)):
                tr.card_face(d, x, y + 10, str(v), color=_VALUE_COLORS[v - 1])
        else:
            tr.card_back(d, x, y + 10)
    if not cards:
        d.text((230, y + 30), "no cards left", fill=tr.WINNER, font=tr.font(14, bold=True))
