"""The melds a newly held die adds on every slot at once, from per-die tables of meld partners.

When a seat takes, drafts or re-rolls a die ``x``, its meld cache (``rules._derive``) keeps
every old meld and adds, slot by slot, the melds that contain ``x``:
``enumerate_melds(pattern, items, must=x)`` (only those with every identical die held
before ``x`` when ``x`` is the last of them). Most slots get nothing or a pair, so this
module answers all slots in one pass over the seat's items, from what each pattern says
about each die face (:class:`DieFace`, built once per pattern and face and shared by every
game):

* a slot whose pattern does not allow ``x`` gets nothing; one where ``x`` can have no
  company (melds of one item, or no second die allowed) gets ``(x,)`` alone if that is a meld;
* a slot of pairs (at most two items) gets ``(x,)`` alone if that is a meld, then ``x`` with
  each partner ``y`` (``{x, y}`` is a meld: :func:`pair_fits`), in item order, skipping a die
  identical to an earlier one (the canonical choice of dice);
* a larger slot is searched only when the seat holds enough items that may share a meld
  with ``x`` (:meth:`Pattern.companions`) to complete its smallest meld (otherwise it gets
  ``(x,)`` alone if that is a meld): a slot of at most three items by a direct loop over
  those companions (:func:`_triples`), a larger one with ``enumerate_melds``.

Each answer is the list ``enumerate_melds(pattern, items, must=x)`` returns, in the same
order (tested against it on random positions).
"""

from __future__ import annotations

from collections.abc import Sequence

from ice_envs.tip_of_the_diceberg.patterns import MAX_NUMBER, NUM_SUITS, Item, Pattern, enumerate_melds

#: Kinds of items: ``is_die * KINDS + suit * (MAX_NUMBER + 1) + number`` (cards, then dice).
KINDS = NUM_SUITS * (MAX_NUMBER + 1)
_ROW = MAX_NUMBER + 1
#: ``_BIT[kind]``: the bit of an item kind in the kind bitmasks.
_BIT = tuple(1 << i for i in range(2 * KINDS))
#: What :class:`DieFace` says a slot does with a new die.
NOT_ALLOWED, NO_COMPANY, PAIRS, SEARCH = 0, 1, 2, 3


def pair_fits(p: Pattern, suit: int, number: int, t: int, v: int, is_die: bool) -> bool:
    """Whether a die ``(suit, number)`` and an item ``(t, v)`` (a die if ``is_die``) are a meld
    of ``p``, a pattern of at most two items that allows the die (what ``matches`` says of the two)."""
    return p.companions(suit, number)[t * _ROW + v] and _pair_rest(p, number, v, is_die)


def _pair_rest(p: Pattern, number: int, v: int, is_die: bool) -> bool:
    """:func:`pair_fits` for two companions: the counts of items, dice and cards, the sum minimum, a run."""
    cmin, _, smin, _, _, _, _, _, run, _, dmin, kmin, dmax, kmax = p.search_bounds
    d = 1 + is_die
    return (
        cmin <= 2
        and dmin <= d <= dmax
        and kmin <= 2 - d <= kmax
        and number + v >= smin
        and (not run or abs(v - number) == 1)
    )


class DieFace:
    """What one pattern says about a new die showing one face: ``mode`` (:data:`NOT_ALLOWED`,
    :data:`NO_COMPANY`: melds of one item or of no second die, :data:`PAIRS`: at most two
    items, :data:`SEARCH`), ``alone`` (the die is a meld on its own), ``need`` (the fewest other
    items of a meld with it, for :data:`SEARCH`) and ``kinds``: a bitmask of the item kinds that
    are partners (:data:`PAIRS`: the two are a meld) or companions (:data:`SEARCH`:
    :meth:`Pattern.companions`) of the die."""

    __slots__ = ("mode", "alone", "need", "kinds", "sums")

    def __init__(self, p: Pattern, suit: int, number: int) -> None:
        self.alone = self.need = self.kinds = 0
        #: :data:`SEARCH` of a pattern of at most four items bound by an exact sum alone (:func:`_sum_quads`)
        self.sums = False
        if not p.allowed[suit * _ROW + number]:
            self.mode = NOT_ALLOWED
            return
        self.alone = p.fits_alone(number, 1)
        if p.count_max == 1 or p.search_bounds[12] < 1:  # enumerate_melds: the die cannot have company
            self.mode = NO_COMPANY
            return
        kinds = 0
        pairs = p.count_max == 2
        self.mode = PAIRS if pairs else SEARCH
        self.need = max(p.count_min - 1, 1)
        for i, ok in enumerate(p.companions(suit, number)):
            if not ok:
                continue
            if not pairs:
                kinds |= 1 << i | 1 << (KINDS + i)
                continue
            v = i % _ROW
            for d in (0, 1):
                if _pair_rest(p, number, v, bool(d)):
                    kinds |= 1 << (d * KINDS + i)
        self.kinds = kinds
        self.sums = not pairs and _exact_sum_only(p)


#: Per pattern, its :class:`DieFace` by ``suit * (MAX_NUMBER + 1) + number`` (built on first use).
_FACES: dict[Pattern, list[DieFace | None]] = {}


_FACES_LIMIT = 1024


def die_faces(p: Pattern) -> list[DieFace | None]:
    """The (shared, lazily filled) list of ``p``'s :class:`DieFace` by face index."""
    faces = _FACES.get(p)
    if faces is None:
        if len(_FACES) >= _FACES_LIMIT:
            _FACES.clear()
        faces = _FACES[p] = [None] * KINDS
    return faces


def melds_with_die(
    patterns: Sequence[Pattern],
    items: tuple[Item, ...],
    x: Item,
    faces: Sequence[list[DieFace | None]] | None = None,
) -> list[list[tuple[int, ...]]]:
    """Per pattern: ``enumerate_melds(pattern, items, must=x)`` for the die ``x`` of ``items``
    (see the module docstring); ``faces``: the :func:`die_faces` of each pattern, if the caller
    keeps them."""
    if faces is None:
        faces = [die_faces(p) for p in patterns]
    xid, xs, xv = x[0], x[1], x[2]
    face = xs * _ROW + xv
    held = twice = thrice = 0  # kinds of the other items held (at least once, twice, three times)
    others: list[tuple[Item, int]] = []
    for y in items:
        if y[0] == xid:
            continue
        b = _BIT[y[3] * KINDS + y[1] * _ROW + y[2]]
        if held & b:
            if twice & b:
                thrice |= b
            twice |= b
        held |= b
        others.append((y, b))
    out: list[list[tuple[int, ...]]] = []
    for p, of_p in zip(patterns, faces):
        f = of_p[face]
        if f is None:
            f = of_p[face] = DieFace(p, xs, xv)
        mode = f.mode
        if mode == NOT_ALLOWED:
            out.append([])
            continue
        found = [(xid,)] if f.alone else []
        kinds = f.kinds & held
        if mode == NO_COMPANY or not kinds:
            out.append(found)
        elif mode == SEARCH:
            count = kinds.bit_count()
            if twice:
                count += (f.kinds & twice).bit_count() + (f.kinds & thrice).bit_count()
            if count < f.need:
                out.append(found)
            elif p.count_max == 3:
                out.append(found + _triples(p, [y for y, b in others if kinds & b], x))
            elif f.sums:
                out.append(found + _sum_quads(p, [y for y, b in others if kinds & b], x))
            else:
                out.append(enumerate_melds(p, items, must=x))
        else:
            seen = 0
            for y, b in others:
                if kinds & b:
                    if y[3]:
                        if seen & b:
                            continue  # an identical die comes earlier: the meld with it stands for this one
                        seen |= b
                    found.append((y[0], xid) if y[0] < xid else (xid, y[0]))
            out.append(found)
    return out


def _earlier_twins(cand: list[Item]) -> list[int]:
    """``[i]``: the index in ``cand`` of the last die before ``cand[i]`` identical to it (same suit and
    number), or -1 (a card, or the first of its dice): a die may join a meld only with that one."""
    prev = [-1] * len(cand)
    last: dict[tuple[int, int], int] = {}
    for i, y in enumerate(cand):
        if y[3]:
            key = (y[1], y[2])
            prev[i] = last.get(key, -1)
            last[key] = i
    return prev


def _triples(p: Pattern, cand: list[Item], x: Item) -> list[tuple[int, ...]]:
    """The melds of two or three items with the die ``x`` for a pattern of at most three items,
    from ``x``'s companions ``cand`` (in item order): what ``enumerate_melds(p, items, must=x)``
    finds besides ``(x,)``, in its order (each partner ``y`` in turn: ``{x, y}``, then ``{x, y, z}``
    for each later ``z``). A die identical to an earlier one of ``cand`` may be used only with it."""
    cmin, _, smin, smax, _, _, dist_n, dist_s, run, same_par, dmin, kmin, dmax, kmax = p.search_bounds
    xid, xs, xv = x[0], x[1], x[2]
    prev = _earlier_twins(cand)
    # an exact sum fixes the number of the third item: where each number lies
    by_number: dict[int, list[int]] | None = None
    if smin == smax:
        by_number = {}
        for j, z in enumerate(cand):
            by_number.setdefault(z[2], []).append(j)
    n = len(cand)
    out: list[tuple[int, ...]] = []
    for i, y in enumerate(cand):
        if prev[i] >= 0:
            continue  # an identical die comes earlier and is not chosen
        yid, ys, yv = y[0], y[1], y[2]
        nd2 = 1 + y[3]
        if nd2 > dmax or 2 - nd2 > kmax:
            continue
        t2 = xv + yv
        lo, hi = (xv, yv) if xv < yv else (yv, xv)
        if cmin <= 2 and t2 >= smin and nd2 >= dmin and 2 - nd2 >= kmin and (not run or hi - lo == 1):
            out.append((yid, xid) if yid < xid else (xid, yid))
        later = range(i + 1, n) if by_number is None else [j for j in by_number.get(smin - t2, ()) if j > i]
        for j in later:
            pj = prev[j]
            if pj >= 0 and pj != i:
                continue
            z = cand[j]
            zv = z[2]
            t3 = t2 + zv
            if t3 > smax or t3 < smin:
                continue
            if same_par and (zv ^ xv) & 1:
                continue
            if dist_s and (z[1] == xs or z[1] == ys):
                continue
            if dist_n and (zv == xv or zv == yv):
                continue
            if run and (zv - lo if zv > hi else hi - zv if zv < lo else hi - lo) != 2:
                continue
            nd3 = nd2 + z[3]
            if nd3 > dmax or 3 - nd3 > kmax or nd3 < dmin or 3 - nd3 < kmin or cmin > 3:
                continue
            out.append(tuple(sorted((xid, yid, z[0]))))
    return out


def _exact_sum_only(p: Pattern) -> bool:
    """Whether ``p`` holds at most four items and constrains a meld by an exact sum alone (besides the
    items it allows): no same / distinct / run / parity rule and no dice or card count that four items
    could break (the shipped "2-4 items summing to 20 / 30" cards)."""
    cmin, cmax, smin, smax, same_n, same_s, dist_n, dist_s, run, same_par, dmin, kmin, dmax, kmax = p.search_bounds
    return (
        cmax == 4
        and smin == smax
        and not (same_n or same_s or dist_n or dist_s or run or same_par)
        and p.value_min >= 1
        and dmin == kmin == 0
        and dmax >= cmax
        and kmax >= cmax
    )


def _sum_quads(p: Pattern, cand: list[Item], x: Item) -> list[tuple[int, ...]]:
    """The melds of two to four items with the die ``x`` for a pattern of :func:`_exact_sum_only`, from
    ``x``'s companions ``cand`` (in item order): what ``enumerate_melds(p, items, must=x)`` finds besides
    ``(x,)``, in its order (each ``y`` in turn: ``{x, y}``, then for each later ``z``: ``{x, y, z}``, then
    ``{x, y, z, w}`` for each later ``w`` with the number that completes the sum). A die identical to an
    earlier one of ``cand`` may be used only with it."""
    cmin = p.count_min
    xid = x[0]
    rest = p.sum_min - x[2]  # what the other items of a meld add up to
    n = len(cand)
    prev = _earlier_twins(cand)
    by_number: dict[int, list[int]] = {}
    for i, y in enumerate(cand):
        by_number.setdefault(y[2], []).append(i)
    out: list[tuple[int, ...]] = []
    for i, y in enumerate(cand):
        if prev[i] >= 0:
            continue  # an identical die comes earlier and is not chosen
        t2 = y[2]
        if t2 > rest:
            continue
        yid = y[0]
        if t2 == rest:
            if cmin <= 2:
                out.append((yid, xid) if yid < xid else (xid, yid))
            continue  # numbers are at least 1: no third item fits
        for j in range(i + 1, n):
            pj = prev[j]
            if pj >= 0 and pj != i:
                continue
            z = cand[j]
            t3 = t2 + z[2]
            if t3 > rest:
                continue
            if t3 == rest:
                if cmin <= 3:
                    out.append(tuple(sorted((xid, yid, z[0]))))
                continue  # numbers are at least 1: no fourth item fits
            for k in by_number.get(rest - t3, ()):
                if k <= j:
                    continue
                pk = prev[k]
                if pk >= 0 and pk != i and pk != j:
                    continue
                out.append(tuple(sorted((xid, yid, z[0], cand[k][0]))))
    return out
