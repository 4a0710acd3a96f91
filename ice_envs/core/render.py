"""Rendering helpers: the default text picture, fonts and dice (Pillow, imported lazily).

Pictures are painted on an :class:`ice_envs.core.canvas.Canvas`, so each one comes out
both as pixels (``rgb_array``) and as SVG from the same drawing code.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import numpy as np

from ice_envs.core.canvas import Canvas, paint_rgb, paint_svg

BACKGROUND = (18, 64, 96)
FOREGROUND = (235, 245, 255)
ACCENT = (150, 210, 240)


def _pil() -> Any:
    try:
        from PIL import Image, ImageDraw, ImageFont
    except ImportError as exc:  # pragma: no cover - pillow is a core dependency
        raise ImportError("render_mode='rgb_array' needs Pillow: pip install pillow") from exc
    return Image, ImageDraw, ImageFont


@lru_cache(maxsize=32)
def font(size: int = 14) -> Any:
    """A monospace font if one is installed, else Pillow's default at ``size`` (one font object per size:
    finding a font file searches the font folders)."""
    _, _, image_font = _pil()
    for name in ("DejaVuSansMono.ttf", "LiberationMono-Regular.ttf"):
        try:
            return image_font.truetype(name, size)
        except OSError:
            continue
    return image_font.load_default(size=size)


#: Width and height in pixels of the default picture (:func:`text_to_rgb`): one size for every frame.
TEXT_PICTURE_SIZE = (720, 480)
#: Font sizes the default picture tries, largest first, until the whole text fits.
TEXT_FONT_SIZES = (14, 13, 12, 11, 10)
MARGIN = 12


def text_to_rgb(text: str, title: str | None = None, size: tuple[int, int] = TEXT_PICTURE_SIZE) -> np.ndarray:
    """``text`` drawn on a table-coloured picture of fixed ``size`` (width, height): the default
    ``rgb_array`` picture of a game that draws none of its own.

    Lines longer than the picture wrap (at a space where there is one); the font shrinks down to
    :data:`TEXT_FONT_SIZES`' last size until every line fits, and text that still runs past the bottom
    ends in a line ``…``. Every picture of a game has the same shape, so a replay's frames make a GIF.
    """
    return paint_rgb(size, BACKGROUND, lambda canvas: paint_text(canvas, text, title))


def text_to_svg(text: str, title: str | None = None, size: tuple[int, int] = TEXT_PICTURE_SIZE) -> str:
    """:func:`text_to_rgb`'s picture as a standalone SVG document."""
    return paint_svg(size, BACKGROUND, lambda canvas: paint_text(canvas, text, title))


def paint_text(canvas: Canvas, text: str, title: str | None = None) -> None:
    """Paint :func:`text_to_rgb`'s picture on ``canvas``."""
    width, height = canvas.width, canvas.height
    lines = ([title, ""] if title else []) + text.splitlines()
    for points in TEXT_FONT_SIZES:
        fnt = font(points)
        line_h = points + 4
        rows = (height - 2 * MARGIN) // line_h
        wrapped = [(i, part) for i, line in enumerate(lines) for part in wrap_line(line, fnt, width - 2 * MARGIN)]
        if len(wrapped) <= rows:
            break
    if len(wrapped) > rows:
        wrapped = [*wrapped[: max(0, rows - 1)], (len(lines), "…")]
    for row, (i, part) in enumerate(wrapped):
        color = ACCENT if (title and i == 0) else FOREGROUND
        canvas.text((MARGIN, MARGIN + row * line_h), part, fill=color, font=fnt)


def wrap_line(line: str, fnt: Any, width: int) -> list[str]:
    """``line`` broken into pieces of at most ``width`` pixels in ``fnt``: at the last space that
    fits, else (one long word) at the last character that fits. An empty line stays one empty line."""
    out: list[str] = []
    rest = line.rstrip()
    while fnt.getlength(rest) > width:
        low, high = 1, len(rest)  # the longest prefix that fits lies in [low, high)
        while high - low > 1:
            mid = (low + high) // 2
            low, high = (mid, high) if fnt.getlength(rest[:mid]) <= width else (low, mid)
        cut = low
        space = rest.rfind(" ", 0, cut + 1)
        if space > 0 and rest[:space].strip():
            cut = space
        out.append(rest[:cut].rstrip())
        rest = rest[cut:].lstrip(" ")
    out.append(rest)
    return out


def draw_die(
    draw: Canvas, x: int, y: int, label: str, *, size: int = 34, fill: tuple[int, int, int] = (245, 245, 255)
) -> None:
    """A die at (x, y) showing ``label``, painted on the canvas ``draw``."""
    draw.rounded_rectangle((x, y, x + size, y + size), radius=7, fill=fill, outline=(20, 20, 20), width=2)
    draw.text((x + 6, y + 8), label, fill=(20, 20, 20), font=font(13))
