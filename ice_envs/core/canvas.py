"""One drawing path, two outputs: a canvas that paints a table picture as pixels or as SVG.

Every game's picture is a *paint* function that draws on a :class:`Canvas` with the
primitives below (the same names and arguments as Pillow's ``ImageDraw``). The same
paint function then makes both outputs:

- :func:`paint_rgb`: a Pillow image, returned as an ``(H, W, 3)`` uint8 array (what
  ``render_mode="rgb_array"`` shows);
- :func:`paint_svg`: a standalone ``<svg>`` document of the same width and height, the
  text as ``<text>`` elements (what a browser shows).

Text is always measured with the Pillow font (:meth:`Canvas.textbbox`,
:meth:`Canvas.textlength`), so fitting, wrapping and centring place everything at the
same spot in both outputs. :meth:`Canvas.group` tags what is drawn inside it with a
``data-target`` key in the SVG (a card a move plays, a die a move keeps), so a web page
can make the elements a move belongs to clickable; the pixels ignore it.
"""

from __future__ import annotations

import math
import weakref
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from functools import lru_cache
from typing import Any
from xml.sax.saxutils import escape, quoteattr

import numpy as np

Color = tuple[int, int, int]
Box = Sequence[float]
Points = Sequence[Any]

#: CSS font stacks of the SVG text: DejaVu first (the font Pillow draws with), then look-alikes.
SANS_FAMILY = "'DejaVu Sans', 'Bitstream Vera Sans', Verdana, 'Liberation Sans', Arial, sans-serif"
MONO_FAMILY = "'DejaVu Sans Mono', 'Bitstream Vera Sans Mono', Menlo, Consolas, 'Liberation Mono', monospace"
#: Horizontal and vertical text anchors both backends understand (Pillow's two-letter anchors).
H_ANCHORS = "lmr"
V_ANCHORS = "amsd"


def _pil() -> Any:
    try:
        from PIL import Image, ImageDraw
    except ImportError as exc:  # pragma: no cover - pillow is a core dependency
        raise ImportError("the table pictures need Pillow: pip install pillow") from exc
    return Image, ImageDraw


@lru_cache(maxsize=1)
def _measure() -> Any:
    """A scratch Pillow drawing context that only measures text."""
    image, image_draw = _pil()
    return image_draw.Draw(image.new("RGB", (1, 1)))


#: Lines of text remembered per font (the table is emptied when it is full: labels repeat, scores vary).
TEXT_CACHE_ENTRIES = 4096
#: Per font (held weakly: a font the caller drops is forgotten with its lines): ``("box", text, anchor)`` or
#: ``("length", text)`` -> the measure.
_remembered_text: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _remember(font: Any, key: tuple, compute: Callable[[], Any]) -> Any:
    """``compute()``, remembered for ``font`` under ``key``: a picture measures the same labels again and again.
    Pillow's default font (``font=None``) and fonts that cannot be weakly referenced are measured every time."""
    if font is None:
        return compute()
    try:
        table = _remembered_text.get(font)
        if table is None:
            table = _remembered_text[font] = {}
    except TypeError:
        return compute()
    value = table.get(key)
    if value is None:
        if len(table) >= TEXT_CACHE_ENTRIES:
            table.clear()
        value = table[key] = compute()
    return value


class Canvas:
    """The drawing primitives of the table pictures (see the module docs); subclasses draw them."""

    def __init__(self, width: int, height: int) -> None:
        self.width = int(width)
        self.height = int(height)

    # measuring: the same Pillow font metrics for both outputs
    def textbbox(self, xy: Sequence[float], text: str, font: Any = None, anchor: str | None = None) -> tuple:
        """The box ``(left, top, right, bottom)`` Pillow's ``text`` would cover."""
        if "\n" in text:
            return _measure().textbbox(tuple(xy), text, font=font, anchor=anchor)
        # one line: Pillow's box at xy is its box at the origin plus xy, the same sums as here
        left, top, right, bottom = _remember(
            font, ("box", text, anchor), lambda: _measure().textbbox((0, 0), text, font=font, anchor=anchor)
        )
        return left + xy[0], top + xy[1], right + xy[0], bottom + xy[1]

    def textlength(self, text: str, font: Any) -> float:
        """The advance width of ``text`` in ``font``, in pixels."""
        return _remember(font, ("length", text), lambda: float(font.getlength(text)))

    @contextmanager
    def group(self, target: str | None = None) -> Iterator[None]:
        """Everything drawn inside is one element, tagged ``data-target=target`` in the SVG."""
        yield

    # drawing (Pillow's ImageDraw signatures)
    def rectangle(self, box: Box, fill: Any = None, outline: Any = None, width: int = 1) -> None:
        raise NotImplementedError

    def rounded_rectangle(
        self, box: Box, radius: float = 0, fill: Any = None, outline: Any = None, width: int = 1
    ) -> None:
        raise NotImplementedError

    def ellipse(self, box: Box, fill: Any = None, outline: Any = None, width: int = 1) -> None:
        raise NotImplementedError

    def polygon(self, points: Points, fill: Any = None, outline: Any = None, width: int = 1) -> None:
        raise NotImplementedError

    def line(self, points: Points, fill: Any = None, width: int = 1) -> None:
        raise NotImplementedError

    def arc(self, box: Box, start: float, end: float, fill: Any = None, width: int = 1) -> None:
        raise NotImplementedError

    def text(
        self, xy: Sequence[float], text: str, fill: Any = None, font: Any = None, anchor: str | None = None
    ) -> None:
        raise NotImplementedError


class PillowCanvas(Canvas):
    """Draws on a Pillow RGB image (exactly what ``ImageDraw`` draws)."""

    def __init__(self, width: int, height: int, background: Color) -> None:
        super().__init__(width, height)
        image, image_draw = _pil()
        self.image = image.new("RGB", (self.width, self.height), background)
        self._draw = image_draw.Draw(self.image)

    def textbbox(self, xy: Sequence[float], text: str, font: Any = None, anchor: str | None = None) -> tuple:
        return self._draw.textbbox(tuple(xy), text, font=font, anchor=anchor)

    def rectangle(self, box: Box, fill: Any = None, outline: Any = None, width: int = 1) -> None:
        self._draw.rectangle(tuple(box), fill=fill, outline=outline, width=width)

    def rounded_rectangle(
        self, box: Box, radius: float = 0, fill: Any = None, outline: Any = None, width: int = 1
    ) -> None:
        self._draw.rounded_rectangle(tuple(box), radius=radius, fill=fill, outline=outline, width=width)

    def ellipse(self, box: Box, fill: Any = None, outline: Any = None, width: int = 1) -> None:
        self._draw.ellipse(tuple(box), fill=fill, outline=outline, width=width)

    def polygon(self, points: Points, fill: Any = None, outline: Any = None, width: int = 1) -> None:
        self._draw.polygon(points, fill=fill, outline=outline, width=width)

    def line(self, points: Points, fill: Any = None, width: int = 1) -> None:
        self._draw.line(points, fill=fill, width=width)

    def arc(self, box: Box, start: float, end: float, fill: Any = None, width: int = 1) -> None:
        self._draw.arc(tuple(box), start=start, end=end, fill=fill, width=width)

    def text(
        self, xy: Sequence[float], text: str, fill: Any = None, font: Any = None, anchor: str | None = None
    ) -> None:
        self._draw.text(tuple(xy), text, fill=fill, font=font, anchor=anchor)

    def to_array(self) -> np.ndarray:
        """The picture as an ``(H, W, 3)`` uint8 array."""
        return np.asarray(self.image.convert("RGB"), dtype=np.uint8).copy()


def _num(v: float) -> str:
    """A coordinate as short SVG text (two decimals at most)."""
    text = f"{float(v):.2f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def _color(c: Any) -> str:
    if c is None:
        return "none"
    if isinstance(c, str):
        return c
    r, g, b = (int(x) for x in tuple(c)[:3])
    return f"#{r:02x}{g:02x}{b:02x}"


def _pairs(points: Points) -> list[tuple[float, float]]:
    """Pillow's point lists (``[(x, y), ...]`` or ``[x0, y0, x1, y1, ...]``) as pairs."""
    pts = list(points)
    if pts and not isinstance(pts[0], (tuple, list)):
        return [(float(pts[i]), float(pts[i + 1])) for i in range(0, len(pts), 2)]
    return [(float(x), float(y)) for x, y in pts]


def _paint_attrs(fill: Any, outline: Any, width: float) -> str:
    attrs = f' fill="{_color(fill)}"'
    if outline is not None and width > 0:
        attrs += f' stroke="{_color(outline)}" stroke-width="{_num(width)}"'
    return attrs


class SvgCanvas(Canvas):
    """Writes the primitives as SVG elements (see :meth:`to_svg`)."""

    def __init__(self, width: int, height: int, background: Color) -> None:
        super().__init__(width, height)
        self._parts: list[str] = [f'<rect width="{self.width}" height="{self.height}" fill="{_color(background)}"/>']

    @contextmanager
    def group(self, target: str | None = None) -> Iterator[None]:
        self._parts.append(f"<g data-target={quoteattr(target)}>" if target is not None else "<g>")
        try:
            yield
        finally:
            self._parts.append("</g>")

    def _box(self, box: Box, width: float, stroked: bool) -> tuple[float, float, float, float]:
        """``box`` (Pillow's inclusive pixel corners) as x, y, w, h, inset by half the stroke
        (Pillow draws an outline inside the shape, SVG on its edge)."""
        x0, y0, x1, y1 = (float(v) for v in box)
        inset = width / 2 if stroked else 0.0
        return x0 + inset, y0 + inset, max(0.0, x1 - x0 + 1 - 2 * inset), max(0.0, y1 - y0 + 1 - 2 * inset)

    def rectangle(self, box: Box, fill: Any = None, outline: Any = None, width: int = 1) -> None:
        x, y, w, h = self._box(box, width, outline is not None)
        self._parts.append(
            f'<rect x="{_num(x)}" y="{_num(y)}" width="{_num(w)}" height="{_num(h)}"'
            f"{_paint_attrs(fill, outline, width)}/>"
        )

    def rounded_rectangle(
        self, box: Box, radius: float = 0, fill: Any = None, outline: Any = None, width: int = 1
    ) -> None:
        x, y, w, h = self._box(box, width, outline is not None)
        r = max(0.0, min(float(radius) - (width / 2 if outline is not None else 0), w / 2, h / 2))
        self._parts.append(
            f'<rect x="{_num(x)}" y="{_num(y)}" width="{_num(w)}" height="{_num(h)}" rx="{_num(r)}"'
            f"{_paint_attrs(fill, outline, width)}/>"
        )

    def ellipse(self, box: Box, fill: Any = None, outline: Any = None, width: int = 1) -> None:
        x, y, w, h = self._box(box, width, outline is not None)
        self._parts.append(
            f'<ellipse cx="{_num(x + w / 2)}" cy="{_num(y + h / 2)}" rx="{_num(w / 2)}" ry="{_num(h / 2)}"'
            f"{_paint_attrs(fill, outline, width)}/>"
        )

    def polygon(self, points: Points, fill: Any = None, outline: Any = None, width: int = 1) -> None:
        pts = " ".join(f"{_num(x)},{_num(y)}" for x, y in _pairs(points))
        self._parts.append(f'<polygon points="{pts}"{_paint_attrs(fill, outline, width)} stroke-linejoin="round"/>')

    def line(self, points: Points, fill: Any = None, width: int = 1) -> None:
        pts = " ".join(f"{_num(x)},{_num(y)}" for x, y in _pairs(points))
        self._parts.append(
            f'<polyline points="{pts}" fill="none" stroke="{_color(fill)}" stroke-width="{_num(width)}"'
            ' stroke-linejoin="round"/>'
        )

    def arc(self, box: Box, start: float, end: float, fill: Any = None, width: int = 1) -> None:
        """Part of the ellipse in ``box`` from ``start`` to ``end`` degrees, clockwise from 3 o'clock."""
        x, y, w, h = self._box(box, width, True)
        cx, cy, rx, ry = x + w / 2, y + h / 2, w / 2, h / 2
        sweep = (end - start) % 360 or 360

        def at(deg: float) -> str:
            a = math.radians(deg)
            return f"{_num(cx + rx * math.cos(a))} {_num(cy + ry * math.sin(a))}"

        large = 1 if sweep > 180 else 0
        self._parts.append(
            f'<path d="M {at(start)} A {_num(rx)} {_num(ry)} 0 {large} 1 {at(start + sweep)}" fill="none"'
            f' stroke="{_color(fill)}" stroke-width="{_num(width)}"/>'
        )

    def text(
        self, xy: Sequence[float], text: str, fill: Any = None, font: Any = None, anchor: str | None = None
    ) -> None:
        """``text`` placed where Pillow puts it: the anchor's vertical position is turned into a
        baseline with the font's own ascent and descent, and ``textLength`` pins the width the
        Pillow font measures (a browser with another font still fits the same box)."""
        anchor = anchor or "la"
        if len(anchor) != 2 or anchor[0] not in H_ANCHORS or anchor[1] not in V_ANCHORS:
            raise ValueError(f"text anchor {anchor!r} is not one of {H_ANCHORS} x {V_ANCHORS}")
        font = font if font is not None else _default_font()
        ascent, descent = font.getmetrics()
        x, y = float(xy[0]), float(xy[1])
        lines = text.split("\n")
        spacing = self.textbbox((0, 0), "A", font=font)[3] + 4  # Pillow's multiline line spacing
        shift = {"a": ascent, "m": (ascent - descent) / 2, "s": 0.0, "d": -descent}[anchor[1]]
        if anchor[1] != "a":  # Pillow anchors a block of lines at its last line
            shift -= spacing * (len(lines) - 1)
        family, style = font.getname()
        mono = "mono" in family.lower()
        attrs = f' class="{"ice-mono" if mono else "ice-sans"}" font-size="{_num(font.size)}"'
        if "bold" in (style or "").lower():
            attrs += ' font-weight="bold"'
        attrs += {"l": "", "m": ' text-anchor="middle"', "r": ' text-anchor="end"'}[anchor[0]]
        attrs += f' fill="{_color(fill)}"'
        for i, line in enumerate(lines):
            if not line:
                continue
            length = self.textlength(line, font)
            self._parts.append(
                f'<text x="{_num(x)}" y="{_num(y + shift + i * spacing)}"{attrs} textLength="{_num(length)}"'
                f' lengthAdjust="spacingAndGlyphs" xml:space="preserve">{escape(line)}</text>'
            )

    def to_svg(self) -> str:
        """The picture as a standalone SVG document."""
        head = (
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{self.width}" height="{self.height}"'
            f' viewBox="0 0 {self.width} {self.height}">'
            f"<style>.ice-sans{{font-family:{SANS_FAMILY}}}.ice-mono{{font-family:{MONO_FAMILY}}}</style>"
        )
        return head + "".join(self._parts) + "</svg>"


@lru_cache(maxsize=1)
def _default_font() -> Any:
    from PIL import ImageFont

    return ImageFont.load_default()


def paint_rgb(size: tuple[int, int], background: Color, paint: Callable[[Canvas], None]) -> np.ndarray:
    """``paint`` drawn on a ``size`` (width, height) picture: an ``(H, W, 3)`` uint8 array."""
    canvas = PillowCanvas(size[0], size[1], background)
    paint(canvas)
    return canvas.to_array()


def paint_svg(size: tuple[int, int], background: Color, paint: Callable[[Canvas], None]) -> str:
    """``paint`` drawn as a standalone SVG document of ``size`` (width, height)."""
    canvas = SvgCanvas(size[0], size[1], background)
    paint(canvas)
    return canvas.to_svg()
