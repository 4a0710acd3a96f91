"""Declarative observation layouts: each game's observation vector declared once.

Modelled on OpenSpiel's named observer tensors: an :class:`ObservationLayout` is an
ordered list of named :class:`Piece` s (name, shape, bounds, one-line meaning) laid end to
end in one flat float32 vector. Everything else is derived from it:

* where each piece lies (:meth:`~ObservationLayout.offset`, :meth:`~ObservationLayout.slice`,
  :attr:`~ObservationLayout.size`), which the encoders read once at construction;
* the Gymnasium space (:meth:`~ObservationLayout.box`, per-element low/high);
* a piece of an observation, reshaped (:meth:`~ObservationLayout.view`);
* the Markdown table of the env docstrings (:meth:`~ObservationLayout.table`).

A game builds its layout from its configuration (player counts, map size, ...), e.g. a
module-level ``layout_for(config)`` in ``ice_envs/<game>/env.py``::

    layout = ObservationLayout([
        Piece("hand", 15, 0.0, 1.0, "own cards of value 1..15 (count / 4)"),
        Piece("dice", (3, 12), 0.0, 1.0, "die values, one-hot per die"),
    ])
    layout.slice("dice")  # slice(15, 51)
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

import numpy as np
from gymnasium import spaces

TABLE_HEADER = ("Piece", "Offsets", "Size", "Range", "Meaning")


@dataclass(frozen=True)
class Piece:
    """One named part of an observation vector.

    Attributes:
        name: identifier of the piece, unique within its layout.
        shape: the piece's shape (an ``int`` is a 1-d piece of that length); the piece
            takes ``prod(shape)`` consecutive entries of the flat vector, in C order.
        low: lower bound of every entry (``-math.inf`` for none).
        high: upper bound of every entry (``math.inf`` for none).
        description: one line saying what the entries mean (the docstring table's column).
    """

    name: str
    shape: tuple[int, ...] | int
    low: float
    high: float
    description: str

    def __post_init__(self) -> None:
        shape = (self.shape,) if isinstance(self.shape, int) else tuple(int(d) for d in self.shape)
        if not shape or any(d < 0 for d in shape):
            raise ValueError(f"piece {self.name!r}: bad shape {self.shape!r}")
        if "|" in self.description or "\n" in self.description:
            raise ValueError(f"piece {self.name!r}: the description is one line without '|'")
        if not self.low <= self.high:
            raise ValueError(f"piece {self.name!r}: low {self.low} > high {self.high}")
        object.__setattr__(self, "shape", shape)
        object.__setattr__(self, "low", float(self.low))
        object.__setattr__(self, "high", float(self.high))

    @property
    def size(self) -> int:
        """Number of entries of the piece."""
        return math.prod(self.shape)  # type: ignore[arg-type]


class ObservationLayout:
    """An ordered list of :class:`Piece` s tiling a flat float32 vector with no gap or overlap."""

    def __init__(self, pieces: Iterable[Piece]) -> None:
        self.pieces: tuple[Piece, ...] = tuple(pieces)
        self._slices: dict[str, slice] = {}
        self._by_name: dict[str, Piece] = {}
        at = 0
        for piece in self.pieces:
            if piece.name in self._by_name:
                raise ValueError(f"duplicate observation piece {piece.name!r}")
            self._by_name[piece.name] = piece
            self._slices[piece.name] = slice(at, at + piece.size)
            at += piece.size
        #: Length of the flat observation vector.
        self.size: int = at

    def __iter__(self) -> Iterator[Piece]:
        return iter(self.pieces)

    def __len__(self) -> int:
        return len(self.pieces)

    def __contains__(self, name: object) -> bool:
        return name in self._by_name

    def __repr__(self) -> str:
        return f"ObservationLayout({', '.join(p.name for p in self.pieces)}; size {self.size})"

    @property
    def names(self) -> tuple[str, ...]:
        """The piece names, in order."""
        return tuple(p.name for p in self.pieces)

    def piece(self, name: str) -> Piece:
        """The piece called ``name`` (``KeyError`` naming the known pieces otherwise)."""
        try:
            return self._by_name[name]
        except KeyError:
            raise KeyError(f"no observation piece {name!r}; pieces: {list(self._by_name)}") from None

    def offset(self, name: str) -> int:
        """Index of the first entry of piece ``name`` in the flat vector."""
        self.piece(name)
        return self._slices[name].start

    def offsets(self, *names: str) -> tuple[int, ...]:
        """The :meth:`offset` of each of ``names``, in that order (for encoders that unpack them once)."""
        return tuple(self.offset(name) for name in names)

    def slice(self, name: str) -> slice:
        """The entries of piece ``name`` in the flat vector."""
        self.piece(name)
        return self._slices[name]

    def shape(self, name: str) -> tuple[int, ...]:
        """The shape of piece ``name``."""
        return self.piece(name).shape  # type: ignore[return-value]

    def sizes(self) -> list[tuple[str, int]]:
        """``(name, number of entries)`` of every piece, in order (what a trained checkpoint records)."""
        return [(p.name, self._slices[p.name].stop - self._slices[p.name].start) for p in self.pieces]

    def indices(self, pieces: Iterable[tuple[str, int]]) -> np.ndarray:
        """Where the given ``(name, size)`` pieces lie in the flat vector, concatenated in the given order.

        An observation read through them holds exactly those pieces, however many pieces were added
        since (checkpoints and golden digests read their own pieces this way). ``KeyError`` if a piece
        is missing, ``ValueError`` if its size differs.
        """
        parts = [np.zeros(0, dtype=np.intp)]
        for name, size in pieces:
            where = self.slice(name)
            if where.stop - where.start != size:
                raise ValueError(f"observation piece {name!r} has {where.stop - where.start} entries, not {size}")
            parts.append(np.arange(where.start, where.stop, dtype=np.intp))
        return np.concatenate(parts)

    def low(self) -> np.ndarray:
        """Per-element lower bounds (float32, length :attr:`size`)."""
        return self._bounds("low")

    def high(self) -> np.ndarray:
        """Per-element upper bounds (float32, length :attr:`size`)."""
        return self._bounds("high")

    def _bounds(self, which: str) -> np.ndarray:
        out = np.empty(self.size, dtype=np.float32)
        for piece in self.pieces:
            out[self._slices[piece.name]] = getattr(piece, which)
        return out

    def box(self) -> spaces.Box:
        """The ``gymnasium.spaces.Box`` of the observation vector (float32, per-element bounds)."""
        return spaces.Box(self.low(), self.high(), (self.size,), np.float32)

    def view(self, obs: np.ndarray, name: str) -> np.ndarray:
        """Piece ``name`` of ``obs`` (last axis the flat vector; leading batch axes kept), reshaped."""
        obs = np.asarray(obs)
        if obs.shape[-1:] != (self.size,):
            raise ValueError(f"observation of shape {obs.shape} does not end in the layout size {self.size}")
        return obs[..., self.slice(name)].reshape(obs.shape[:-1] + self.shape(name))

    def out_of_bounds(self, obs: np.ndarray) -> list[str]:
        """Names of the pieces with an entry of ``obs`` outside their bounds (or NaN)."""
        obs = np.asarray(obs)
        bad = []
        for piece in self.pieces:
            part = obs[..., self._slices[piece.name]]
            if not np.all((part >= piece.low) & (part <= piece.high)):
                bad.append(piece.name)
        return bad

    def table(self) -> str:
        """The Markdown table of the layout: piece | offsets | size | range | meaning."""
        rows = [TABLE_HEADER]
        for piece in self.pieces:
            sl = self._slices[piece.name]
            offsets = str(sl.start) if piece.size == 1 else f"{sl.start}-{sl.stop - 1}"
            size = str(piece.size)
            if len(piece.shape) > 1:  # type: ignore[arg-type]
                size += " (" + "x".join(str(d) for d in piece.shape) + ")"  # type: ignore[union-attr]
            rows.append((f"`{piece.name}`", offsets, size, _range_text(piece.low, piece.high), piece.description))
        return format_table(rows)


#: The name of the one piece of :func:`whole_vector_layout`.
WHOLE_VECTOR_PIECE = "observation"


def whole_vector_layout(box: spaces.Box) -> ObservationLayout:
    """The layout of a game that declares none: one piece, ``"observation"``, covering the whole
    vector of ``box``, bounded by the lowest and highest of its bounds."""
    low = float(np.min(box.low)) if box.low.size else 0.0
    high = float(np.max(box.high)) if box.high.size else 0.0
    meaning = "the whole observation vector (the game declares no layout of named pieces)"
    return ObservationLayout([Piece(WHOLE_VECTOR_PIECE, tuple(box.shape), low, high, meaning)])


def _number_text(x: float) -> str:
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return f"{x:g}"


def _range_text(low: float, high: float) -> str:
    left = "(" if math.isinf(low) else "["
    right = ")" if math.isinf(high) else "]"
    return f"{left}{_number_text(low)}, {_number_text(high)}{right}"


def format_table(rows: Sequence[Sequence[str]]) -> str:
    """``rows`` (the first the header) as an aligned Markdown table."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]

    def line(cells: Sequence[str]) -> str:
        return "| " + " | ".join(c.ljust(w) for c, w in zip(cells, widths, strict=True)) + " |"

    rule = "|" + "|".join("-" * (w + 2) for w in widths) + "|"
    return "\n".join([line(rows[0]), rule, *(line(r) for r in rows[1:])])


def parse_table(text: str, header: Sequence[str] = TABLE_HEADER) -> list[list[str]]:
    """The stripped cells of the rows of the Markdown table in ``text`` whose header is ``header``.

    Used to check a handwritten docstring table against :meth:`ObservationLayout.table`;
    raises ``ValueError`` if ``text`` holds no such table.
    """
    lines = [ln.strip() for ln in text.splitlines()]

    def cells(ln: str) -> list[str]:
        return [c.strip() for c in ln.strip("|").split("|")]

    for i, ln in enumerate(lines):
        if ln.startswith("|") and cells(ln) == list(header):
            rows = []
            for row in lines[i + 2 :]:
                if not row.startswith("|"):
                    break
                rows.append(cells(row))
            return rows
    raise ValueError(f"no table with header {' | '.join(header)}")
