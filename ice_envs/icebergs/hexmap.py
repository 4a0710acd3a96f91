"""The Icebergs map: hex geometry and the readable text format of a map file.

Map rules: ``docs/rules/icebergs.md`` R1.2, R1.3 and I28 (the section "Maps" documents
the default map and this format).

Geometry: flat-topped hexes in ``rows`` x ``cols`` offset coordinates ("odd-q"): odd
columns sit half a space lower than even ones. Row 0 is the north edge, column 0 the
west edge (toward Alaska) and column ``cols - 1`` the east edge (toward Newfoundland).
A space is numbered ``row * cols + col``. The six directions are

====  =====  ==========================================
id    name   neighbour of (r, c), c even / c odd
====  =====  ==========================================
0     N      (r-1, c) / (r-1, c)
1     NE     (r-1, c+1) / (r, c+1)
2     SE     (r, c+1) / (r+1, c+1)
3     S      (r+1, c) / (r+1, c)
4     SW     (r, c-1) / (r+1, c-1)
5     NW     (r-1, c-1) / (r, c-1)
====  =====  ==========================================

Map file format (``maps/default.txt`` is an example)::

    # comment lines (before the grid) start with '#'
    name: Newfoundland to Alaska
    spare_floes: 16
    grid:
    .  .  F  #  ...      one line per row, one token per column, separated by spaces

Tokens: ``.`` sea, ``#`` ice island, and on sea spaces the starting pieces as letters:
``B`` one iceberg, ``F`` one ice floe (``BF``, ``FF``... for several). Every row must
have the same number of tokens; the grid runs to the end of the file (no
comments inside it). A bad file raises :class:`MapError` naming the line.

Limits (``docs/rules/icebergs.md``, "The map file format"): at most :data:`MAX_ROWS` rows and
:data:`MAX_COLS` columns (the shipped maps are 7 x 13 and 3 x 5; the cap keeps the action
and observation spaces, which grow with the map, small), at most :data:`MAX_PIECES_PER_SPACE`
starting pieces in a space and :data:`MAX_SPARE_FLOES` spare floes, and a sea route from the
east edge to the west edge (ice ignored: it can be moved). Files are read through
:mod:`ice_envs.core.files` (a regular UTF-8 file of at most 1 MiB).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from importlib import resources
from pathlib import Path

from ice_envs.core.files import read_text

DIRECTIONS: tuple[str, ...] = ("N", "NE", "SE", "S", "SW", "NW")
NUM_DIRECTIONS = 6
#: (drow, dcol) per direction for even and for odd columns.
_OFFSETS_EVEN = ((-1, 0), (-1, 1), (0, 1), (1, 0), (0, -1), (-1, -1))
_OFFSETS_ODD = ((-1, 0), (0, 1), (1, 1), (1, 0), (1, -1), (0, -1))
#: Neighbour code for a direction that leads off the grid.
OFF_GRID = -1

SEA = 0
ISLAND = 1
#: Largest map: rows x columns (comfortably above the shipped 7 x 13; see the module docstring).
MAX_ROWS = 15
MAX_COLS = 40
#: Most starting pieces (icebergs and floes) in one space of a map file, and most spare floes.
MAX_PIECES_PER_SPACE = 9
MAX_SPARE_FLOES = 999


class MapError(ValueError):
    """A map file or map text that cannot be read; the message names the line."""


def neighbour(row: int, col: int, direction: int) -> tuple[int, int]:
    """(row, col) of the neighbour of (row, col) in ``direction`` (may be off the grid)."""
    dr, dc = (_OFFSETS_ODD if col & 1 else _OFFSETS_EVEN)[direction]
    return row + dr, col + dc


@dataclass(frozen=True)
class HexMap:
    """A playing map: terrain, starting pieces and the derived neighbour tables.

    Args:
        rows, cols: size of the grid.
        terrain: ``SEA`` or ``ISLAND`` per space (``row * cols + col``).
        iceberg_starts: the space of each iceberg at the start (one entry per iceberg).
        floe_starts: the space of each starting ice floe (one entry per floe).
        spare_floes: ice floes set aside at the start (used when a player rolls a one).
        name: a readable name.
    """

    rows: int
    cols: int
    terrain: tuple[int, ...]
    iceberg_starts: tuple[int, ...]
    floe_starts: tuple[int, ...]
    spare_floes: int = 16
    name: str = "map"
    #: ``neighbours[s][d]``: the space next to ``s`` in direction ``d``, or ``OFF_GRID``.
    neighbours: tuple[tuple[int, ...], ...] = field(init=False, repr=False, compare=False)
    #: Spaces on the grid's border (a direction leads off the grid).
    border: tuple[bool, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.rows < 1 or self.cols < 2:
            raise MapError(f"map {self.name!r}: needs at least 1 row and 2 columns, got {self.rows}x{self.cols}")
        if self.rows > MAX_ROWS or self.cols > MAX_COLS:
            raise MapError(
                f"map {self.name!r}: {self.rows}x{self.cols} is larger than the limit of {MAX_ROWS} rows x {MAX_COLS} columns"
            )
        if len(self.terrain) != self.rows * self.cols:
            raise MapError(
                f"map {self.name!r}: terrain has {len(self.terrain)} spaces, expected {self.rows * self.cols}"
            )
        if any(t not in (SEA, ISLAND) for t in self.terrain):
            raise MapError(f"map {self.name!r}: terrain values must be SEA (0) or ISLAND (1)")
        for what, starts in (("iceberg", self.iceberg_starts), ("ice floe", self.floe_starts)):
            for sp in starts:
                if not (type(sp) is int and 0 <= sp < len(self.terrain) and self.terrain[sp] == SEA):
                    raise MapError(f"map {self.name!r}: an {what} starts at {sp!r}, which is not a sea space")
        if type(self.spare_floes) is not int or not 0 <= self.spare_floes <= MAX_SPARE_FLOES:
            raise MapError(f"map {self.name!r}: spare_floes must be a whole number in 0..{MAX_SPARE_FLOES}")
        nbrs = []
        for s in range(self.rows * self.cols):
            r, c = divmod(s, self.cols)
            row = []
            for d in range(NUM_DIRECTIONS):
                nr, nc = neighbour(r, c, d)
                row.append(nr * self.cols + nc if 0 <= nr < self.rows and 0 <= nc < self.cols else OFF_GRID)
            nbrs.append(tuple(row))
        object.__setattr__(self, "neighbours", tuple(nbrs))
        object.__setattr__(self, "border", tuple(OFF_GRID in n for n in nbrs))
        _check_playable(self, f"map {self.name!r}")

    @property
    def num_spaces(self) -> int:
        return self.rows * self.cols

    def space(self, row: int, col: int) -> int:
        """Space index of (row, col)."""
        if not (0 <= row < self.rows and 0 <= col < self.cols):
            raise ValueError(f"({row}, {col}) is not on the {self.rows}x{self.cols} map")
        return row * self.cols + col

    def coords(self, space: int) -> tuple[int, int]:
        """(row, col) of a space index."""
        return divmod(space, self.cols)

    def label(self, space: int) -> str:
        """A short readable name of a space: ``r<row>c<col>``."""
        if 0 <= space < len(self._labels):
            return self._labels[space]
        r, c = divmod(space, self.cols)
        return f"r{r}c{c}"

    @cached_property
    def _labels(self) -> tuple[str, ...]:
        """:meth:`label` of every space, built once (not a dataclass field)."""
        return tuple(f"r{r}c{c}" for r in range(self.rows) for c in range(self.cols))

    def west_edge(self) -> list[int]:
        """Sea spaces of column 0 (the edge toward Alaska), north to south."""
        return [r * self.cols for r in range(self.rows) if self.terrain[r * self.cols] == SEA]

    def east_edge(self) -> list[int]:
        """Sea spaces of the last column (the edge toward Newfoundland), north to south."""
        last = self.cols - 1
        return [r * self.cols + last for r in range(self.rows) if self.terrain[r * self.cols + last] == SEA]

    def to_text(self) -> str:
        """The map in the file format (round-trips through :func:`parse_map`)."""
        tokens = []
        for s in range(self.num_spaces):
            if self.terrain[s] == ISLAND:
                tokens.append("#")
            else:
                tok = "B" * self.iceberg_starts.count(s) + "F" * self.floe_starts.count(s)
                tokens.append(tok or ".")
        width = max(len(t) for t in tokens) + 1
        lines = [f"name: {self.name}", f"spare_floes: {self.spare_floes}", "grid:"]
        for r in range(self.rows):
            lines.append(" ".join(t.ljust(width - 1) for t in tokens[r * self.cols : (r + 1) * self.cols]).rstrip())
        return "\n".join(lines) + "\n"


def parse_map(text: str, source: str = "<map text>") -> HexMap:
    """Read a map in the text format; :class:`MapError` names ``source`` and the line."""
    name = Path(source).stem if source != "<map text>" else "custom"
    spare = 16
    grid: list[tuple[int, list[str]]] = []
    in_grid = False
    for lineno, raw in enumerate(text.splitlines(), start=1):
        stripped = raw.strip()
        if in_grid:
            # the grid runs to the end of the file; blank lines are skipped ('#' is an island here)
            if stripped:
                if len(grid) >= MAX_ROWS:
                    raise MapError(f"{source}, line {lineno}: the grid has more than {MAX_ROWS} rows (the limit)")
                tokens = stripped.split()
                if len(tokens) > MAX_COLS:
                    raise MapError(
                        f"{source}, line {lineno}: {len(tokens)} spaces in a row; the limit is {MAX_COLS} columns"
                    )
                grid.append((lineno, tokens))
            continue
        if stripped.startswith("#"):
            continue
        if not stripped:
            continue
        key, sep, value = stripped.partition(":")
        key, value = key.strip().lower(), value.strip()
        if not sep:
            raise MapError(f"{source}, line {lineno}: expected 'key: value' or 'grid:', got {raw.strip()!r}")
        if key == "grid":
            in_grid = True
        elif key == "name":
            name = value or name
        elif key == "spare_floes":
            try:
                spare = int(value)
            except ValueError:
                raise MapError(f"{source}, line {lineno}: spare_floes must be a whole number, got {value!r}") from None
            if spare < 0:
                raise MapError(f"{source}, line {lineno}: spare_floes must not be negative, got {spare}")
            if spare > MAX_SPARE_FLOES:
                raise MapError(f"{source}, line {lineno}: spare_floes is at most {MAX_SPARE_FLOES}, got {spare}")
        else:
            raise MapError(f"{source}, line {lineno}: unknown key {key!r} (known: name, spare_floes, grid)")
    if not grid:
        raise MapError(f"{source}: no 'grid:' section with rows of spaces")
    cols = len(grid[0][1])
    terrain: list[int] = []
    bergs: list[int] = []
    floes: list[int] = []
    for r, (lineno, tokens) in enumerate(grid):
        if len(tokens) != cols:
            raise MapError(
                f"{source}, line {lineno}: row {r} has {len(tokens)} spaces, the first row has {cols}; "
                "every row needs the same number of tokens"
            )
        for c, tok in enumerate(tokens):
            s = r * cols + c
            if tok == "#":
                terrain.append(ISLAND)
                continue
            if tok == ".":
                terrain.append(SEA)
                continue
            if set(tok) - {"B", "F"}:
                raise MapError(
                    f"{source}, line {lineno}: token {tok!r} in column {c} is not '.', '#' or pieces 'B'/'F' "
                    "(iceberg / ice floe)"
                )
            if len(tok) > MAX_PIECES_PER_SPACE:
                raise MapError(
                    f"{source}, line {lineno}: token {tok[:12]!r} in column {c} holds {len(tok)} pieces; "
                    f"at most {MAX_PIECES_PER_SPACE} in a space"
                )
            terrain.append(SEA)
            bergs.extend([s] * tok.count("B"))
            floes.extend([s] * tok.count("F"))
    if cols < 2:
        raise MapError(f"{source}, line {grid[0][0]}: the grid needs at least 2 columns")
    try:
        return HexMap(
            rows=len(grid),
            cols=cols,
            terrain=tuple(terrain),
            iceberg_starts=tuple(bergs),
            floe_starts=tuple(floes),
            spare_floes=spare,
            name=name,
        )
    except MapError as exc:
        raise MapError(f"{source}, line {grid[0][0]}: {str(exc).partition(': ')[2] or exc}") from None


def _check_playable(hexmap: HexMap, where: str) -> None:
    """Both edges have sea, and a sea route joins them (terrain only: ice can be moved)."""
    west, east = hexmap.west_edge(), hexmap.east_edge()
    if not west:
        raise MapError(f"{where}: the west edge (column 0) has no sea space")
    if not east:
        raise MapError(f"{where}: the east edge (last column) has no sea space")
    seen = set(east)
    todo = list(east)
    while todo:
        s = todo.pop()
        for t in hexmap.neighbours[s]:
            if t != OFF_GRID and t not in seen and hexmap.terrain[t] == SEA:
                seen.add(t)
                todo.append(t)
    if not seen.intersection(west):
        raise MapError(
            f"{where}: no sea route joins the east edge (Newfoundland) to the west edge (Alaska); "
            "every ship would be stuck"
        )


def load_map(path: str | Path | None = None) -> HexMap:
    """The map at ``path``, or the default map shipped in the package (``None``)."""
    if path is None:
        return default_map()
    p = Path(path)
    text = read_text(p, what="map file")  # FileFormatError (an OptionError) naming the file and line
    return parse_map(text, source=str(p))


_DEFAULT: HexMap | None = None


def default_map() -> HexMap:
    """The default map (``ice_envs/icebergs/maps/default.txt``), read once."""
    global _DEFAULT
    if _DEFAULT is None:
        _DEFAULT = packaged_map("default")
    return _DEFAULT


def packaged_map(name: str) -> HexMap:
    """A map shipped in ``ice_envs/icebergs/maps/<name>.txt``."""
    res = resources.files("ice_envs.icebergs").joinpath("maps").joinpath(f"{name}.txt")
    if not res.is_file():
        raise MapError(f"no packaged Icebergs map named {name!r}")
    return parse_map(res.read_text(encoding="utf-8"), source=f"maps/{name}.txt")
