"""Drawing helpers for the table pictures of the card and dice games.

Builds on :mod:`ice_envs.core.render`: fonts are cached, and there are cards (face up
with a rank and a suit mark, or face down), dice of several shapes, track bars,
panels and a title bar, in one icy palette shared by every game's ``picture.py``.
Every helper paints on an :class:`ice_envs.core.canvas.Canvas` (its ``draw`` argument),
so the same calls make the ``rgb_array`` pixels and the SVG picture.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from ice_envs.core.canvas import Canvas
from ice_envs.core.render import _pil

Color = tuple[int, int, int]

TABLE = (16, 52, 82)
PANEL = (26, 74, 108)
PANEL_EDGE = (60, 120, 160)
CURRENT = (250, 200, 60)
WINNER = (120, 220, 120)
TEXT = (235, 245, 255)
MUTED = (150, 190, 215)
INK = (25, 25, 30)
CARD_FACE = (250, 250, 245)
CARD_BACK = (44, 96, 176)
CARD_BACK_LINE = (86, 140, 214)
RED = (200, 40, 40)
PLAYER_COLORS: tuple[Color, ...] = (
    (230, 70, 60),
    (250, 190, 40),
    (80, 200, 90),
    (200, 90, 220),
    (250, 130, 40),
    (60, 200, 220),
)


@lru_cache(maxsize=64)
def font(size: int = 14, bold: bool = False, mono: bool = False) -> Any:
    """A DejaVu font (sans, bold or mono) if installed, else Pillow's default at ``size``."""
    _, _, image_font = _pil()
    names = ["DejaVuSansMono-Bold.ttf" if bold else "DejaVuSansMono.ttf"] if mono else []
    names += ["DejaVuSans-Bold.ttf" if bold else "DejaVuSans.ttf", "DejaVuSansMono.ttf"]
    for name in names:
        try:
            return image_font.truetype(name, size)
        except OSError:
            continue
    return image_font.load_default(size=size)


def text_width(draw: Canvas, text: str, fnt: Any) -> int:
    """Width in pixels of ``text`` in ``fnt``."""
    left, _, right, _ = draw.textbbox((0, 0), text, font=fnt)
    return int(right - left)


def fit_text(draw: Canvas, text: str, fnt: Any, width: int) -> str:
    """``text`` cut with an ellipsis to fit ``width`` pixels."""
    if text_width(draw, text, fnt) <= width:
        return text
    while text and text_width(draw, text + "…", fnt) > width:
        text = text[:-1]
    return text + "…"


def wrap_text(draw: Canvas, text: str, fnt: Any, width: int, max_lines: int = 3) -> list[str]:
    """``text`` broken into at most ``max_lines`` lines of ``width`` pixels."""
    lines: list[str] = []
    current = ""
    for word in text.split():
        trial = f"{current} {word}".strip()
        if text_width(draw, trial, fnt) <= width or not current:
            current = trial
        else:
            lines.append(current)
            current = word
    if current:
        lines.append(current)
    if len(lines) > max_lines:
        lines = lines[:max_lines]
        lines[-1] = fit_text(draw, lines[-1] + " …", fnt, width)
    return [fit_text(draw, line, fnt, width) for line in lines]


def title_bar(draw: Canvas, width: int, title: str, status: str, height: int = 48) -> None:
    """The game's name on the left and what is happening now under it."""
    draw.rectangle((0, 0, width, height), fill=(10, 36, 60))
    draw.text((14, 5), title, fill=TEXT, font=font(18, bold=True))
    draw.text((14, 28), fit_text(draw, status, font(13), width - 28), fill=CURRENT, font=font(13))


def panel(draw: Canvas, box: Sequence[float], *, highlight: Color | None = None, fill: Color = PANEL) -> None:
    """A rounded panel; ``highlight`` draws a thick coloured border (the player to act, a winner)."""
    outline = highlight or PANEL_EDGE
    draw.rounded_rectangle(tuple(box), radius=10, fill=fill, outline=outline, width=3 if highlight else 1)


def player_header(
    draw: Canvas,
    p: int,
    y: float,
    width: int,
    row_h: int,
    *,
    viewer: int | None,
    over: bool,
    winner: bool,
    acting: bool,
) -> str:
    """The framed row of player ``p`` with its colour dot and name (winner or acting player highlighted).

    Returns the name as drawn (``"player_1 (you)"`` for the viewer).
    """
    highlight = (WINNER if winner else None) if over else (CURRENT if acting else None)
    panel(draw, (12, y, width - 12, y + row_h - 8), highlight=highlight)
    draw.ellipse((24, y + 12, 38, y + 26), fill=PLAYER_COLORS[p % len(PLAYER_COLORS)])
    name = f"player_{p}" + (" (you)" if viewer == p else "")
    draw.text((46, y + 10), name, fill=TEXT, font=font(14, bold=True))
    return name


def card_face(
    draw: Canvas,
    x: float,
    y: float,
    rank: str,
    suit: str = "",
    *,
    w: int = 40,
    h: int = 56,
    color: Color = INK,
    tint: Color = CARD_FACE,
    raised: bool = False,
    compact: bool = False,
) -> None:
    """A face-up card: ``rank`` large in the middle, ``rank suit`` small in the corner.

    ``compact``: only the rank and suit, stacked in the top-left corner (for cards
    fanned with a large overlap, as in a meld on the table).
    """
    dy = -8 if raised else 0
    outline = CURRENT if raised else (30, 30, 30)
    draw.rounded_rectangle(
        (x, y + dy, x + w, y + h + dy), radius=5, fill=tint, outline=outline, width=2 if raised else 1
    )
    if compact:
        draw.text((x + 3, y + dy + 2), rank, fill=color, font=font(12 if len(rank) < 2 else 10, bold=True))
        draw.text((x + 3, y + dy + 16), suit, fill=color, font=font(13))
        return
    corner = f"{rank}{suit}" if len(rank) + len(suit) <= 4 else rank
    draw.text((x + 4, y + dy + 2), corner, fill=color, font=font(10, bold=True))
    big = font(20 if len(rank) <= 2 else 15, bold=True)
    draw.text((x + w / 2, y + dy + h / 2 + 3), rank, fill=color, font=big, anchor="mm")
    if suit and len(suit) == 1:
        draw.text((x + w / 2, y + dy + h - 10), suit, fill=color, font=font(13), anchor="mm")


def card_back(draw: Canvas, x: float, y: float, *, w: int = 40, h: int = 56) -> None:
    """A face-down card (blue with an ice crystal)."""
    draw.rounded_rectangle((x, y, x + w, y + h), radius=5, fill=CARD_BACK, outline=(20, 30, 60), width=1)
    draw.rounded_rectangle((x + 4, y + 4, x + w - 4, y + h - 4), radius=3, outline=CARD_BACK_LINE, width=1)
    cx, cy, r = x + w / 2, y + h / 2, min(w, h) / 4
    for k in range(3):
        a = math.pi * k / 3
        draw.line(
            (cx - r * math.cos(a), cy - r * math.sin(a), cx + r * math.cos(a), cy + r * math.sin(a)),
            fill=CARD_BACK_LINE,
            width=2,
        )


def card_row(count: int, start: float, avail: float, w: int, gap: int = 4) -> list[float]:
    """x positions of ``count`` cards of width ``w`` in ``avail`` pixels (overlapping if needed)."""
    if count <= 0:
        return []
    step = w + gap
    if count > 1 and (count - 1) * step + w > avail:
        step = max(6.0, (avail - w) / (count - 1))
    return [start + i * step for i in range(count)]


#: Polygon corners of the die shapes, as (sides, rotation) by number of faces.
_SHAPES: dict[int, tuple[int, float]] = {4: (3, -90.0), 6: (4, 45.0), 8: (4, 0.0), 12: (5, -90.0)}


def die_shape(
    draw: Canvas,
    cx: float,
    cy: float,
    r: float,
    faces: int,
    label: str,
    *,
    fill: Color = (245, 245, 255),
    outline: Color = INK,
    text_color: Color = INK,
    name: str | None = None,
) -> None:
    """A die with ``faces`` faces drawn as its usual silhouette (d4 triangle ... d20 hexagon)."""
    sides, rot = _SHAPES.get(faces, (6, 0.0))
    if faces == 10:  # a kite: the top point high, the side corners low
        pts = [(cx, cy - r), (cx + 0.92 * r, cy + 0.12 * r), (cx, cy + 0.9 * r), (cx - 0.92 * r, cy + 0.12 * r)]
        draw.polygon(pts, fill=fill, outline=outline, width=2)
    elif faces == 6:
        draw.rounded_rectangle((cx - r * 0.78, cy - r * 0.78, cx + r * 0.78, cy + r * 0.78), radius=r * 0.2, fill=fill)
        draw.rounded_rectangle(
            (cx - r * 0.78, cy - r * 0.78, cx + r * 0.78, cy + r * 0.78), radius=r * 0.2, outline=outline, width=2
        )
    else:
        pts = [
            (
                cx + r * math.cos(math.radians(rot + 360 * i / sides)),
                cy + r * math.sin(math.radians(rot + 360 * i / sides)),
            )
            for i in range(sides)
        ]
        if faces == 4:
            pts = [(px, py + r * 0.2) for px, py in pts]
        draw.polygon(pts, fill=fill, outline=outline, width=2)
    size = max(9, int(r * (0.75 if len(label) <= 1 else 0.6)))
    draw.text(
        (cx, cy + (r * 0.12 if faces in (4, 10) else 0)),
        label,
        fill=text_color,
        font=font(size, bold=True),
        anchor="mm",
    )
    if name:
        draw.text((cx, cy + r + 9), name, fill=MUTED, font=font(11), anchor="mm")


def track_bar(
    draw: Canvas,
    x: float,
    y: float,
    w: float,
    h: float,
    value: int,
    maximum: int,
    color: Color,
    label: str,
) -> None:
    """A horizontal track: ``label`` on the left, ``value`` of ``maximum`` filled, the number on the right."""
    lab = font(12)
    draw.text((x, y + h / 2), label, fill=TEXT, font=lab, anchor="lm")
    bx = x + 80
    bw = w - 80 - 34
    draw.rounded_rectangle((bx, y, bx + bw, y + h), radius=h / 2, fill=(12, 40, 64), outline=PANEL_EDGE)
    frac = max(0.0, min(1.0, value / maximum)) if maximum else 0.0
    if frac > 0:
        draw.rounded_rectangle((bx, y, bx + max(h, bw * frac), y + h), radius=h / 2, fill=color)
    for k in range(1, maximum):
        if k % 5 == 0:
            tx = bx + bw * k / maximum
            draw.line((tx, y + 2, tx, y + h - 2), fill=(230, 240, 250), width=1)
    draw.text((bx + bw + 6, y + h / 2), str(value), fill=TEXT, font=font(13, bold=True), anchor="lm")


def heart(draw: Canvas, cx: float, cy: float, r: float, fill: Color) -> None:
    """A heart shape centred at (cx, cy)."""
    draw.ellipse((cx - r, cy - r * 0.8, cx, cy + r * 0.2), fill=fill)
    draw.ellipse((cx, cy - r * 0.8, cx + r, cy + r * 0.2), fill=fill)
    draw.polygon([(cx - r * 0.97, cy - 0.15 * r), (cx + r * 0.97, cy - 0.15 * r), (cx, cy + r)], fill=fill)


def star(draw: Canvas, cx: float, cy: float, r: float, fill: Color) -> None:
    """A five-pointed star centred at (cx, cy)."""
    pts = []
    for i in range(10):
        rr = r if i % 2 == 0 else r * 0.45
        a = math.radians(-90 + 36 * i)
        pts.append((cx + rr * math.cos(a), cy + rr * math.sin(a)))
    draw.polygon(pts, fill=fill)


def face(draw: Canvas, cx: float, cy: float, r: float, fill: Color, *, drooping: bool = False) -> None:
    """A sad face (or a drooping, melting one) centred at (cx, cy)."""
    if drooping:
        draw.ellipse((cx - r, cy - r * 0.9, cx + r, cy + r * 0.7), fill=fill)
        for dx in (-0.55, 0.1):
            draw.rounded_rectangle(
                (cx + r * dx, cy + r * 0.3, cx + r * (dx + 0.35), cy + r * 1.15), radius=r * 0.17, fill=fill
            )
    else:
        draw.ellipse((cx - r, cy - r, cx + r, cy + r), fill=fill)
    eye = r * 0.14
    for dx in (-0.38, 0.38):
        ex, ey = cx + r * dx, cy - r * 0.25
        draw.ellipse((ex - eye, ey - eye, ex + eye, ey + eye), fill=INK)
    draw.arc((cx - r * 0.5, cy + r * 0.15, cx + r * 0.5, cy + r * 0.85), start=200, end=340, fill=INK, width=2)


def badge(draw: Canvas, x: float, y: float, text: str, *, fill: Color = CURRENT, color: Color = INK) -> float:
    """A small rounded label at (x, y); returns its right edge."""
    fnt = font(11, bold=True)
    w = text_width(draw, text, fnt) + 10
    draw.rounded_rectangle((x, y, x + w, y + 17), radius=8, fill=fill)
    draw.text((x + 5, y + 2), text, fill=color, font=fnt)
    return x + w


def suit_card(
    draw: Canvas,
    x: float,
    y: float,
    number: str,
    suit: str,
    color: Color,
    *,
    w: int = 36,
    h: int = 50,
    raised: bool = False,
) -> None:
    """A face-up card of a coloured suit: the suit's name on a band at the top, the number below."""
    dy = -10 if raised else 0
    y = y + dy
    draw.rounded_rectangle((x, y, x + w, y + h), radius=5, fill=CARD_FACE, outline=CURRENT if raised else (30, 30, 30))
    draw.rounded_rectangle((x + 2, y + 2, x + w - 2, y + 15), radius=4, fill=color)
    draw.text((x + w / 2, y + 9), suit, fill=(255, 255, 255), font=font(10, bold=True), anchor="mm")
    big = font(18 if len(number) <= 1 else 16, bold=True)
    draw.text((x + w / 2, y + (h + 15) / 2 + 1), number, fill=color, font=big, anchor="mm")
