"""Rendering helpers: text tables and pictures (Pillow, imported lazily)."""

from __future__ import annotations

from typing import Any

import numpy as np

BACKGROUND = (18, 64, 96)
FOREGROUND = (235, 245, 255)
ACCENT = (150, 210, 240)


def _pil() -> Any:
    try:
        from PIL import Image, ImageDraw, ImageFont
    except ImportError as exc:  # pragma: no cover - pillow is a core dependency
        raise ImportError("render_mode='rgb_array' needs Pillow: pip install pillow") from exc
    return Image, ImageDraw, ImageFont


def font(size: int = 14) -> Any:
    """A monospace font if one is installed, else Pillow's default at ``size``."""
    _, _, image_font = _pil()
    for name in ("DejaVuSansMono.ttf", "LiberationMono-Regular.ttf"):
        try:
            return image_font.truetype(name, size)
        except OSError:
            continue
    return image_font.load_default(size=size)


def new_canvas(width: int, height: int, color: tuple[int, int, int] = BACKGROUND) -> tuple[Any, Any]:
    """A new RGB image and its drawing context."""
    image, image_draw, _ = _pil()
    img = image.new("RGB", (width, height), color)
    return img, image_draw.Draw(img)


def to_array(img: Any) -> np.ndarray:
    """An ``(H, W, 3)`` uint8 array of a Pillow image."""
    return np.asarray(img.convert("RGB"), dtype=np.uint8).copy()


def text_to_rgb(text: str, title: str | None = None, width: int = 720) -> np.ndarray:
    """Draw ``text`` (monospace, one line per line) on a table-coloured picture."""
    lines = ([title, ""] if title else []) + text.splitlines()
    fnt = font(14)
    line_h = 18
    height = max(120, 20 + line_h * len(lines))
    img, draw = new_canvas(width, height)
    for i, line in enumerate(lines):
        color = ACCENT if (title and i == 0) else FOREGROUND
        draw.text((12, 10 + i * line_h), line, fill=color, font=fnt)
    return to_array(img)


def draw_die(
    draw: Any, x: int, y: int, label: str, *, size: int = 34, fill: tuple[int, int, int] = (245, 245, 255)
) -> None:
    """A die at (x, y) showing ``label``."""
    draw.rounded_rectangle((x, y, x + size, y + size), radius=7, fill=fill, outline=(20, 20, 20), width=2)
    draw.text((x + 6, y + 8), label, fill=(20, 20, 20), font=font(13))
