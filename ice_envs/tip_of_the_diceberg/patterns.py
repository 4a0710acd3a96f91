"""The meld pattern language of Tip of the Diceberg: items, patterns, matching, enumeration.

An *item* is a card or a die: it has a suit (its die type, d4 ... d20) and a number.
A *pattern* says which sets of items form a meld on a Diceberg card. Patterns are
data (a JSON object in the catalog file); this module parses, describes, checks and
enumerates them. Keys of a pattern object (all optional except ``count``):

=============  =================================================================
key            meaning
=============  =================================================================
``count``      number of items: ``3`` or ``[2, 4]`` (1..8)
``same``       ``"number"`` and/or ``"suit"``: every item shares it
``distinct``   ``"number"`` and/or ``"suit"``: no two items share it
``run``        ``true``: the numbers are consecutive (``4 5 6``), all different
``sum``        total of the numbers: ``15`` or ``[20, 40]`` (``null`` = no bound)
``values``     ``[lo, hi]``: every item's number is in ``lo..hi``
``parity``     ``"even"`` / ``"odd"`` (every item) or ``"same"`` (all alike)
``suits``      list of allowed suits, e.g. ``["d12", "d20"]``
``dice``       number of dice in the meld: ``1`` or ``[1, 3]``
``cards``      number of cards in the meld: ``2`` or ``[0, 2]``
=============  =================================================================

A string or a list is accepted for ``same`` / ``distinct`` (``["number", "suit"]``).

Rules: ``docs/rules/tip_of_the_diceberg.md`` R1.6 (items), R2.2 (melds) and R7.2 (this
pattern language).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cached_property
from itertools import combinations
from typing import Any

SUITS: tuple[str, ...] = ("d4", "d6", "d8", "d10", "d12", "d20")
SUIT_FACES: tuple[int, ...] = (4, 6, 8, 10, 12, 20)
SUIT_OFFSETS: tuple[int, ...] = (0, 4, 10, 18, 28, 40)
NUM_SUITS = len(SUITS)
NUM_CARDS = 60
DICE_PER_TYPE = 3
NUM_DICE = NUM_SUITS * DICE_PER_TYPE  # 18
MAX_NUMBER = 20
#: Items are numbered: cards 0..59 (by suit, then number), dice 60..77 (``60 + die slot``).
ITEM_DIE0 = NUM_CARDS
NUM_ITEMS = NUM_CARDS + NUM_DICE
#: The largest meld a pattern may ask for (keeps enumeration cheap).
MAX_MELD = 8
ALL_SUITS_MASK = (1 << NUM_SUITS) - 1
NO_SUM_MAX = MAX_MELD * MAX_NUMBER

CARD_SUIT: tuple[int, ...] = tuple(s for s in range(NUM_SUITS) for _ in range(SUIT_FACES[s]))
CARD_NUMBER: tuple[int, ...] = tuple(v for s in range(NUM_SUITS) for v in range(1, SUIT_FACES[s] + 1))
DIE_TYPE: tuple[int, ...] = tuple(d // DICE_PER_TYPE for d in range(NUM_DICE))

PARITY_ANY, PARITY_EVEN, PARITY_ODD, PARITY_SAME = 0, 1, 2, 3
PARITY_NAMES = {"even": PARITY_EVEN, "odd": PARITY_ODD, "same": PARITY_SAME}

_KEYS = ("count", "same", "distinct", "run", "sum", "values", "parity", "suits", "dice", "cards")

#: An item as the enumerator sees it: (item id, suit, number, is a die).
Item = tuple[int, int, int, bool]


def card_id(suit: int | str, number: int) -> int:
    """The id (0..59) of the card ``number`` of ``suit`` (index or name like ``"d8"``)."""
    s = SUITS.index(suit) if isinstance(suit, str) else int(suit)
    if not 1 <= number <= SUIT_FACES[s]:
        raise ValueError(f"tip_of_the_diceberg: there is no card {number} of suit {SUITS[s]}")
    return SUIT_OFFSETS[s] + number - 1


def card_name(card: int) -> str:
    """A card's short name, e.g. ``"d8:7"``."""
    return f"{SUITS[CARD_SUIT[card]]}:{CARD_NUMBER[card]}"


def parse_card(text: str) -> int:
    """Inverse of :func:`card_name` (``"d8:7"`` → card id)."""
    suit, _, number = str(text).partition(":")
    if suit not in SUITS or not number.isdigit():
        raise ValueError(f"tip_of_the_diceberg: {text!r} is not a card name like 'd8:7'")
    return card_id(suit, int(number))


@dataclass(frozen=True)
class Pattern:
    """A parsed meld pattern (see the module docstring for the JSON keys)."""

    count_min: int
    count_max: int
    same_number: bool = False
    same_suit: bool = False
    distinct_numbers: bool = False
    distinct_suits: bool = False
    run: bool = False
    sum_min: int = 0
    sum_max: int = NO_SUM_MAX
    value_min: int = 1
    value_max: int = MAX_NUMBER
    parity: int = PARITY_ANY
    suits: int = ALL_SUITS_MASK
    dice_min: int = 0
    dice_max: int = MAX_MELD
    cards_min: int = 0
    cards_max: int = MAX_MELD

    def __deepcopy__(self, memo: dict) -> Pattern:
        return self  # immutable

    def __getstate__(self) -> dict[str, Any]:
        # the fields only: the cached tables (``allowed``, ``search_bounds``, the companion tables, the
        # hash) follow from them and are rebuilt on first use (a pickle or a training checkpoint stays small)
        return {f: self.__dict__[f] for f in self.__dataclass_fields__}

    def __hash__(self) -> int:
        return self._hash

    @cached_property
    def _hash(self) -> int:
        return hash(tuple(getattr(self, f) for f in self.__dataclass_fields__))

    @cached_property
    def allowed(self) -> tuple[bool, ...]:
        """``allowed[suit * 21 + number]``: whether that item may appear in a meld (cached)."""
        return tuple(self.allows_item(s, v) for s in range(NUM_SUITS) for v in range(MAX_NUMBER + 1))

    def candidates(self, items: Sequence[Item]) -> tuple[Item, ...]:
        """The items that may appear in a meld of this pattern."""
        ok = self.allowed
        return tuple([it for it in items if ok[it[1] * 21 + it[2]]])

    @cached_property
    def search_bounds(self) -> tuple[int, ...]:
        """What :func:`enumerate_melds` checks, read once: count min / max, sum min / max,
        same number, same suit, distinct numbers (or run), distinct suits, run, parity
        alike, dice min, cards min, and the dice / cards maxima a meld can actually reach."""
        return (
            self.count_min,
            self.count_max,
            self.sum_min,
            self.sum_max,
            self.same_number,
            self.same_suit,
            self.distinct_numbers or self.run,
            self.distinct_suits,
            self.run,
            self.parity == PARITY_SAME,
            self.dice_min,
            self.cards_min,
            min(self.dice_max, self.count_max - self.cards_min),
            min(self.cards_max, self.count_max - self.dice_min),
        )

    @cached_property
    def _companion_tables(self) -> dict[tuple[int, int], tuple[bool, ...]]:
        return {}

    def companions(self, suit: int, number: int) -> tuple[bool, ...]:
        """``companions(s, v)[suit * 21 + number]``: whether such an item may share a meld
        with an item of suit ``s`` and number ``v`` as far as the pair alone can tell (the
        item allowed; same / distinct / run span / parity alike / sum maximum). Cached."""
        table = self._companion_tables.get((suit, number))
        if table is None:
            ok = self.allowed
            dist_n = self.distinct_numbers or self.run
            vmax = self.sum_max - number
            table = tuple(
                ok[t * 21 + v]
                and v <= vmax
                and (not self.same_number or v == number)
                and (not self.same_suit or t == suit)
                and (not dist_n or v != number)
                and (not self.distinct_suits or t != suit)
                and (not self.run or -self.count_max < v - number < self.count_max)
                and (self.parity != PARITY_SAME or not (v ^ number) & 1)
                for t in range(NUM_SUITS)
                for v in range(MAX_NUMBER + 1)
            )
            self._companion_tables[suit, number] = table
        return table

    def fits_alone(self, number: int, is_die: int) -> bool:
        """Whether one allowed item showing ``number`` (a die if ``is_die``) is a meld on its own."""
        d = 1 if is_die else 0
        return (
            self.count_min <= 1
            and self.sum_min <= number <= self.sum_max
            and self.dice_min <= d <= self.dice_max
            and self.cards_min <= 1 - d <= self.cards_max
        )

    def allows_item(self, suit: int, number: int) -> bool:
        """Whether a single item may appear in a meld of this pattern at all."""
        if not self.value_min <= number <= self.value_max or not self.suits >> suit & 1:
            return False
        if self.parity == PARITY_EVEN:
            return number % 2 == 0
        if self.parity == PARITY_ODD:
            return number % 2 == 1
        return True


def _bounds(name: str, value: Any, lo: int, hi: int, *, allow_null: bool = False) -> tuple[int, int]:
    """``n`` or ``[a, b]`` (``null`` ends allowed when ``allow_null``) as an inclusive range."""
    if isinstance(value, bool):
        raise ValueError(f"pattern key {name!r}: expected a number or [min, max], got {value!r}")
    if isinstance(value, int):
        a = b = value
    elif isinstance(value, (list, tuple)) and len(value) == 2:
        a, b = value
        if allow_null:
            a = lo if a is None else a
            b = hi if b is None else b
        if not all(isinstance(x, int) and not isinstance(x, bool) for x in (a, b)):
            raise ValueError(f"pattern key {name!r}: expected integers, got {value!r}")
    else:
        raise ValueError(f"pattern key {name!r}: expected a number or [min, max], got {value!r}")
    if not lo <= a <= b <= hi:
        raise ValueError(f"pattern key {name!r}: {value!r} must satisfy {lo} <= min <= max <= {hi}")
    return a, b


def _names(name: str, value: Any, allowed: Sequence[str]) -> set[str]:
    items = [value] if isinstance(value, str) else value
    if not isinstance(items, (list, tuple)) or not items or any(v not in allowed for v in items):
        raise ValueError(f"pattern key {name!r}: expected one or more of {list(allowed)}, got {value!r}")
    return set(items)


def parse_pattern(data: dict[str, Any]) -> Pattern:
    """Parse a pattern object from a catalog; raises ``ValueError`` naming the bad key."""
    if not isinstance(data, dict):
        raise ValueError(f"a pattern must be an object, got {data!r}")
    unknown = sorted(set(data) - set(_KEYS))
    if unknown:
        raise ValueError(f"unknown pattern key(s) {unknown}; known keys: {list(_KEYS)}")
    if "count" not in data:
        raise ValueError("a pattern needs a 'count' (number of items, e.g. 3 or [2, 4])")
    kw: dict[str, Any] = {}
    kw["count_min"], kw["count_max"] = _bounds("count", data["count"], 1, MAX_MELD)
    same = _names("same", data["same"], ("number", "suit")) if "same" in data else set()
    distinct = _names("distinct", data["distinct"], ("number", "suit")) if "distinct" in data else set()
    kw["same_number"] = "number" in same
    kw["same_suit"] = "suit" in same
    kw["distinct_numbers"] = "number" in distinct
    kw["distinct_suits"] = "suit" in distinct
    if "run" in data:
        if not isinstance(data["run"], bool):
            raise ValueError(f"pattern key 'run': expected true or false, got {data['run']!r}")
        kw["run"] = data["run"]
    if "sum" in data:
        kw["sum_min"], kw["sum_max"] = _bounds("sum", data["sum"], 0, NO_SUM_MAX, allow_null=True)
    if "values" in data:
        kw["value_min"], kw["value_max"] = _bounds("values", data["values"], 1, MAX_NUMBER, allow_null=True)
    if "parity" in data:
        if data["parity"] not in PARITY_NAMES:
            raise ValueError(f"pattern key 'parity': expected one of {list(PARITY_NAMES)}, got {data['parity']!r}")
        kw["parity"] = PARITY_NAMES[data["parity"]]
    if "suits" in data:
        kw["suits"] = sum(1 << SUITS.index(s) for s in _names("suits", data["suits"], SUITS))
    if "dice" in data:
        kw["dice_min"], kw["dice_max"] = _bounds("dice", data["dice"], 0, MAX_MELD)
    if "cards" in data:
        kw["cards_min"], kw["cards_max"] = _bounds("cards", data["cards"], 0, MAX_MELD)
    pattern = Pattern(**kw)
    if pattern.same_number and (pattern.distinct_numbers or pattern.run) and pattern.count_min > 1:
        raise ValueError("pattern: 'same number' contradicts 'distinct numbers' / 'run' for melds of 2+ items")
    if pattern.same_suit and pattern.distinct_suits and pattern.count_min > 1:
        raise ValueError("pattern: 'same suit' contradicts 'distinct suit' for melds of 2+ items")
    if pattern.dice_min + pattern.cards_min > pattern.count_max:
        raise ValueError("pattern: the 'dice' and 'cards' minimums exceed the largest 'count'")
    if pattern.dice_max + pattern.cards_max < pattern.count_min:
        raise ValueError("pattern: the 'dice' and 'cards' maximums are below the smallest 'count'")
    return pattern


def pattern_to_data(p: Pattern) -> dict[str, Any]:
    """The JSON object of a pattern (inverse of :func:`parse_pattern`, canonical form)."""
    out: dict[str, Any] = {"count": p.count_min if p.count_min == p.count_max else [p.count_min, p.count_max]}
    same = [k for k, on in (("number", p.same_number), ("suit", p.same_suit)) if on]
    distinct = [k for k, on in (("number", p.distinct_numbers), ("suit", p.distinct_suits)) if on]
    if same:
        out["same"] = same[0] if len(same) == 1 else same
    if distinct:
        out["distinct"] = distinct[0] if len(distinct) == 1 else distinct
    if p.run:
        out["run"] = True
    if (p.sum_min, p.sum_max) != (0, NO_SUM_MAX):
        out["sum"] = p.sum_min if p.sum_min == p.sum_max else [p.sum_min, p.sum_max]
    if (p.value_min, p.value_max) != (1, MAX_NUMBER):
        out["values"] = [p.value_min, p.value_max]
    if p.parity:
        out["parity"] = {v: k for k, v in PARITY_NAMES.items()}[p.parity]
    if p.suits != ALL_SUITS_MASK:
        out["suits"] = [s for i, s in enumerate(SUITS) if p.suits >> i & 1]
    if (p.dice_min, p.dice_max) != (0, MAX_MELD):
        out["dice"] = p.dice_min if p.dice_min == p.dice_max else [p.dice_min, p.dice_max]
    if (p.cards_min, p.cards_max) != (0, MAX_MELD):
        out["cards"] = p.cards_min if p.cards_min == p.cards_max else [p.cards_min, p.cards_max]
    return out


def _range_text(lo: int, hi: int, unit: str, top: int) -> str:
    if lo == hi:
        return f"{lo} {unit}" if unit else str(lo)
    if hi >= top:
        return f"{lo} or more {unit}".strip()
    if lo == 0:
        return f"at most {hi} {unit}".strip()
    return f"{lo}-{hi} {unit}".strip()


def describe_pattern(p: Pattern) -> str:
    """A short English description, e.g. ``"3 items, same number, all odd"``."""
    n = "1 item" if p.count_min == p.count_max == 1 else f"{_range_text(p.count_min, p.count_max, '', MAX_MELD)} items"
    parts = [n]
    if p.same_number:
        parts.append("same number")
    if p.same_suit:
        parts.append("same suit")
    if p.run:
        parts.append("consecutive numbers")
    elif p.distinct_numbers:
        parts.append("all different numbers")
    if p.distinct_suits:
        parts.append("all different suits")
    if (p.sum_min, p.sum_max) != (0, NO_SUM_MAX):
        parts.append(f"sum {_range_text(p.sum_min, p.sum_max, '', NO_SUM_MAX)}")
    if (p.value_min, p.value_max) != (1, MAX_NUMBER):
        word = "number" if p.count_max == 1 else "numbers"
        if p.value_min == p.value_max:
            parts.append(f"all {p.value_min}s" if p.count_max > 1 else f"number {p.value_min}")
        elif p.value_max == MAX_NUMBER:
            parts.append(f"{word} {p.value_min} or more")
        elif p.value_min == 1:
            parts.append(f"{word} {p.value_max} or less")
        else:
            parts.append(f"{word} {p.value_min}-{p.value_max}")
    if p.parity == PARITY_EVEN:
        parts.append("all even")
    elif p.parity == PARITY_ODD:
        parts.append("all odd")
    elif p.parity == PARITY_SAME:
        parts.append("all even or all odd")
    if p.suits != ALL_SUITS_MASK:
        allowed = [s for i, s in enumerate(SUITS) if p.suits >> i & 1]
        parts.append(("suit " if len(allowed) == 1 else "suits ") + "/".join(allowed))
    if (p.dice_min, p.dice_max) != (0, MAX_MELD):
        parts.append(_range_text(p.dice_min, p.dice_max, "dice" if p.dice_max != 1 else "die", MAX_MELD))
    if (p.cards_min, p.cards_max) != (0, MAX_MELD):
        parts.append(_range_text(p.cards_min, p.cards_max, "cards" if p.cards_max != 1 else "card", MAX_MELD))
    return ", ".join(parts)


def matches(p: Pattern, items: Sequence[tuple[int, int, bool]]) -> bool:
    """Whether ``items`` — ``(suit, number, is_die)`` triples — form a meld of ``p`` (R7.2).

    A direct, unoptimised check used by the tests as the independent reference.
    """
    k = len(items)
    if not p.count_min <= k <= p.count_max:
        return False
    suits = [s for s, _, _ in items]
    numbers = [v for _, v, _ in items]
    dice = sum(1 for _, _, d in items if d)
    if not p.dice_min <= dice <= p.dice_max or not p.cards_min <= k - dice <= p.cards_max:
        return False
    if not all(p.allows_item(s, v) for s, v, _ in items):
        return False
    if p.same_number and len(set(numbers)) > 1:
        return False
    if p.same_suit and len(set(suits)) > 1:
        return False
    if p.distinct_numbers and len(set(numbers)) < k:
        return False
    if p.distinct_suits and len(set(suits)) < k:
        return False
    if p.run and (len(set(numbers)) < k or max(numbers) - min(numbers) != k - 1):
        return False
    if p.parity == PARITY_SAME and len({v % 2 for v in numbers}) > 1:
        return False
    return p.sum_min <= sum(numbers) <= p.sum_max


def _hopeless(p: Pattern, cand: Sequence[Item], must: Item | None) -> bool:
    """True when the items cannot hold a meld of ``p`` (of two items or more, with ``must``), by
    necessary conditions on the items as a multiset: counts of items, suits, numbers, dice and
    cards, the longest run, the smallest and largest sums. Only a shortcut for
    :func:`enumerate_melds` (whose search would find nothing): False proves nothing."""
    cmin, cmax, smin, smax, same_n, same_s, dist_n, dist_s, run, same_par, dmin, kmin, _, _ = p.search_bounds
    k = cmin if must is None else max(cmin, 2)  # items of the smallest meld still possible
    pool = list(cand) if must is None else [*cand, must]
    size = len(pool)
    if size < k:
        return True
    if k < 2 and not (smin or smax < NO_SUM_MAX or dmin or kmin):
        return False  # a single item fits
    if dist_s and len({it[1] for it in pool}) < k:
        return True
    if must is None and (same_s or same_n or same_par):
        groups: dict[int, int] = {}
        for it in pool:
            key = (it[1] if same_s else 0) * 64 + (it[2] if same_n else 0) + (32 + (it[2] & 1) if same_par else 0)
            groups[key] = groups.get(key, 0) + 1
        if max(groups.values()) < k:
            return True
    if dmin or kmin:
        dice = sum(1 for it in pool if it[3])
        if dice < dmin or size - dice < kmin:
            return True
    if dist_n:  # distinct numbers, or a run
        numbers = {it[2] for it in pool}
        if len(numbers) < k:
            return True
        if run and _longest_run(numbers, None if must is None else must[2]) < k:
            return True
    if smin or smax < NO_SUM_MAX:
        if must is None:
            values = sorted(it[2] for it in pool)
            low, high = sum(values[:k]), sum(values[-cmax:])
        else:
            values = sorted(it[2] for it in cand)
            low = must[2] + sum(values[: k - 1])
            high = must[2] + sum(values[-(cmax - 1) :])
        if low > smax or high < smin:
            return True
    return False


def _longest_run(numbers: set[int], through: int | None) -> int:
    """Length of the longest run of consecutive ``numbers`` (the one through ``through``, if given)."""
    if through is not None:
        lo = hi = through
        while lo - 1 in numbers:
            lo -= 1
        while hi + 1 in numbers:
            hi += 1
        return hi - lo + 1
    best = 0
    for v in numbers:
        if v - 1 not in numbers:
            w = v
            while w + 1 in numbers:
                w += 1
            best = max(best, w - v + 1)
    return best


class _Done(Exception):
    """Stops the enumeration once ``limit`` melds are found."""


def enumerate_melds(
    p: Pattern, items: Sequence[Item], limit: int = 0, must: Item | None = None
) -> list[tuple[int, ...]]:
    """Every meld of ``p`` from ``items`` as an ascending tuple of item ids.

    ``items`` are ``(id, suit, number, is_die)`` sorted by id. Identical dice (same
    suit and number) are interchangeable, so a meld may use the k-th of a group of
    identical dice only together with the 1st ... (k-1)-th: each meld appears once
    up to swapping identical dice. ``limit`` > 0 stops after that many melds.
    ``must`` (an item of ``items`` with no identical die among them) restricts the
    output to the melds that contain it.

    A depth-first search in item order, pruned by every constraint that a partial
    meld can already break (same / distinct / run span / sum maximum / dice and card
    counts) and by bounds on what the remaining items can still add (count, sum
    minimum and maximum, dice minimum). Items that cannot be in any meld are not
    searched (a pattern of dice only skips the cards), item sets that cannot hold a
    meld at all are not searched (:func:`_hopeless`), and with an exact sum the last
    item is looked up by its number.
    """
    cmin, cmax, smin, smax, same_n, same_s, dist_n, dist_s, run, same_par, dmin, kmin, dmax, kmax = p.search_bounds
    if must is None:
        cand = p.candidates(items)
        if kmax <= 0 or dmax <= 0:  # a pattern of dice only (or cards only)
            cand = tuple([it for it in cand if (it[3] and dmax > 0) or (not it[3] and kmax > 0)])
    else:
        xid, xs, xv, xd = must
        if not p.allowed[xs * 21 + xv] or must not in items:
            return []
        xd = 1 if xd else 0
        single = [(xid,)] if p.fits_alone(xv, xd) else []
        if cmax == 1 or xd > dmax or 1 - xd > kmax:
            return single  # ``must`` cannot have company
        # Only the items that can join ``must`` in a meld at all: the search below would
        # skip every other one at every depth, so the output is the same.
        ok = p.companions(xs, xv)
        cand = tuple([it for it in items if ok[it[1] * 21 + it[2]] and it[0] != xid])
        dice_left, cards_left = dmax - xd, kmax - (1 - xd)
        if dice_left <= 0 or cards_left <= 0:  # room for cards only (or dice only) beside ``must``
            cand = tuple([it for it in cand if (it[3] and dice_left > 0) or (not it[3] and cards_left > 0)])
        if not cand:
            return single
    n = len(cand)
    if n + (must is not None) < cmin or _hopeless(p, cand, must):
        return [] if must is None else single
    if n == 0:
        ids_ = suit_ = num_ = die_ = ()
    else:
        ids_, suit_, num_, flags = zip(*cand)
        die_ = tuple([1 if f else 0 for f in flags])
    # previous identical die (a die may be used only if its previous identical die is)
    prev = [-1] * n
    if any(die_):
        last_seen: dict[tuple[int, int], int] = {}
        for i in range(n):
            if die_[i]:
                key = (suit_[i], num_[i])
                prev[i] = last_seen.get(key, -1)
                last_seen[key] = i
    # suffix maxima / minima of numbers and suffix counts of dice, for the bound prunes
    suf_max = [0] * (n + 1)
    suf_min = [0] * (n + 1)
    suf_dice = [0] * (n + 1)
    capped = smax < NO_SUM_MAX
    if smin or dmin or capped:
        suf_min[n] = NO_SUM_MAX + 1
        for i in range(n - 1, -1, -1):
            suf_max[i] = max(suf_max[i + 1], num_[i])
            suf_min[i] = min(suf_min[i + 1], num_[i])
            suf_dice[i] = suf_dice[i + 1] + die_[i]
    # an exact sum fixes the number of the last item: where each number lies (plain item order only)
    by_number: dict[int, list[int]] | None = None
    if smin == smax and cmax > 1 and not (same_n or same_s):
        by_number = {}
        for i in range(n):
            by_number.setdefault(num_[i], []).append(i)
    # followers: the items that may come after item i (same number / same suit shortcut)
    if cmax == 1:
        follow: list[Sequence[int]] = []
    elif same_n or same_s:
        follow = [()] * n
        after: dict[tuple[int, int], list[int]] = {}
        for i in range(n - 1, -1, -1):
            group = (num_[i] if same_n else 0, suit_[i] if same_s else 0)
            later = after.get(group, [])
            follow[i] = later
            after[group] = [i, *later]
    else:
        follow = [range(i + 1, n) for i in range(n)]
    chosen = [False] * n
    out: list[tuple[int, ...]] = []
    twins = max(prev, default=-1) >= 0  # some die has an identical die before it
    counted = bool(dmin or kmin)

    def extend(
        ids: tuple,
        order: Sequence[int],
        cnt: int,
        total: int,
        v0: int,
        smask: int,
        nmask: int,
        lo: int,
        hi: int,
        nd: int,
    ) -> None:
        c2 = cnt + 1
        more = c2 < cmax
        whole = c2 >= cmin  # a meld may end here (as far as its size goes)
        room = cmax - c2
        last_start = n + c2 - cmin  # a later item from here on leaves too few items for cmin
        for i in order:
            if twins:
                pi = prev[i]
                if pi >= 0 and not chosen[pi]:
                    continue
            v = num_[i]
            t2 = total + v
            if t2 > smax:
                continue
            if same_par and cnt and (v ^ v0) & 1:
                continue
            s = suit_[i]
            if dist_s and smask >> s & 1:
                continue
            if dist_n and nmask >> v & 1:
                continue
            if run:
                nlo = v if v < lo else lo
                nhi = v if v > hi else hi
                if nhi - nlo >= cmax:
                    continue
            else:
                nlo = nhi = 0
            d = die_[i]
            nd2 = nd + d
            if d:
                if nd2 > dmax:
                    continue
            elif c2 - nd2 > kmax:
                continue
            ids2 = ids + (ids_[i],)
            if (
                whole
                and t2 >= smin
                and (not counted or (nd2 >= dmin and c2 - nd2 >= kmin))
                and (not run or nhi - nlo == cnt)
            ):
                out.append(ids2)
                if limit and len(out) >= limit:
                    raise _Done
            if not more:
                continue
            j = i + 1
            if (
                j > last_start
                or (smin and t2 + room * suf_max[j] < smin)
                or (dmin and nd2 + min(room, suf_dice[j]) < dmin)
                or (capped and t2 + suf_min[j] > smax)  # every later item overshoots the sum
            ):
                continue
            nxt = follow[i]
            if by_number is not None and room == 1:  # the last item: only the number that makes the sum
                nxt = [k for k in by_number.get(smin - t2, ()) if k > i]
                if not nxt:
                    continue
            chosen[i] = True
            extend(ids2, nxt, c2, t2, v, smask | 1 << s, nmask | 1 << v, nlo, nhi, nd2)
            chosen[i] = False

    try:
        if must is None:
            extend((), range(n), 0, 0, -1, 0, 0, MAX_NUMBER + 1, 0, 0)
        else:
            out += single
            first: Sequence[int] = range(n)
            if by_number is not None and cmax == 2:  # the one item beside ``must`` makes the sum
                first = by_number.get(smin - xv, ())
            extend((must[0],), first, 1, xv, xv, 1 << xs, 1 << xv, xv, xv, xd)
    except _Done:
        pass
    # ``extend`` refers to itself through its closure: drop it, so that the search's objects are
    # freed at once instead of waiting as a reference cycle for the garbage collector.
    extend = None  # type: ignore[assignment]
    if must is not None:
        out = [tuple(sorted(m)) for m in out]
    return out


def brute_force_melds(p: Pattern, items: Sequence[Item]) -> set[tuple[tuple[int, ...], tuple[tuple[int, int], ...]]]:
    """Every meld of ``p`` from ``items`` by trying all subsets, as canonical keys.

    A key is ``(card ids, sorted (suit, number) of the dice)`` so that melds which
    differ only by swapping identical dice are one key. The reference for the tests.
    """
    out = set()
    for k in range(p.count_min, min(p.count_max, len(items)) + 1):
        for combo in combinations(items, k):
            if matches(p, [(s, v, d) for _, s, v, d in combo]):
                out.add(canonical_key(combo))
    return out


def canonical_key(combo: Iterable[Item]) -> tuple[tuple[int, ...], tuple[tuple[int, int], ...]]:
    """``(sorted card ids, sorted (suit, number) of dice)`` of a set of items."""
    combo = list(combo)
    cards = tuple(sorted(i for i, _, _, d in combo if not d))
    dice = tuple(sorted((s, v) for _, s, v, d in combo if d))
    return cards, dice


# ---------------------------------------------------------------------------- can a pattern ever be filled?
#: Highest card number in the deck per player count (R1.3; ``rules.MAX_CARD_NUMBER`` is this table).
DECK_MAX_NUMBER: dict[int, int] = {3: 8, 4: 12, 5: 20}
#: Dice of each type in the game per player count (R1.5; ``rules.DICE_PER_TYPE_FOR`` is this table).
DICE_PER_TYPE_IN_GAME: dict[int, int] = {3: 2, 4: 3, 5: 3}
#: Search states :func:`find_meld` may visit before it gives up (and the catalog is refused as unprovable).
WITNESS_BUDGET = 200_000


class WitnessBudgetExceeded(ValueError):
    """:func:`find_meld` could neither find a meld nor rule one out within its search budget."""


def find_meld(
    p: Pattern, num_players: int, must: tuple[int, int, bool] | None = None, budget: int = WITNESS_BUDGET
) -> list[tuple[int, int, bool]] | None:
    """A meld of ``p`` that the ``num_players`` game's items can form (containing ``must``), or ``None``.

    The items are every card of the reduced deck (R1.3: numbers up to ``DECK_MAX_NUMBER``,
    each card once) and the dice in the game (``DICE_PER_TYPE_IN_GAME`` of each type, each
    showing any of its faces). Any set of at most 8 of them can be held by one player (a hand
    is 12 cards, dice can all be drafted or taken), so a pattern with no such meld can never be
    filled and an item in no such meld can never be played to it. Items are ``(suit, number,
    is_die)``. An exact depth-first search over the item kinds in number order, with failed
    states remembered; it raises :class:`WitnessBudgetExceeded` if it needs more than
    ``budget`` states (then nothing is proved either way).
    """
    card_limit = DECK_MAX_NUMBER[num_players]
    per_type = DICE_PER_TYPE_IN_GAME[num_players]
    kinds = sorted(
        (v, s, d)
        for s in range(NUM_SUITS)
        for v in range(1, SUIT_FACES[s] + 1)
        for d in (False, True)
        if (d or v <= card_limit) and p.allows_item(s, v)
    )
    xi, xv = -1, 0
    if must is not None:
        xs, xv = must[0], must[1]
        key = (xv, xs, bool(must[2]))
        if key not in kinds:
            return None
        # only the kinds that can share a meld with ``must`` at all (the pair alone tells)
        kinds = [
            k
            for k in kinds
            if k == key
            or (
                k[0] + xv <= p.sum_max
                and (not p.same_number or k[0] == xv)
                and (not p.same_suit or k[1] == xs)
                and (not (p.distinct_numbers or p.run) or k[0] != xv)
                and (not p.distinct_suits or k[1] != xs)
                and (not p.run or abs(k[0] - xv) < p.count_max)
                and (p.parity != PARITY_SAME or not (k[0] - xv) & 1)
            )
        ]
        xi = kinds.index(key)
    K = len(kinds)
    cmin, cmax = p.count_min, p.count_max
    smin, smax = p.sum_min, p.sum_max
    dmin, kmin = p.dice_min, p.cards_min
    dmax, kmax = min(p.dice_max, cmax - kmin), min(p.cards_max, cmax - dmin)
    same_n, same_s, dist_s, run = p.same_number, p.same_suit, p.distinct_suits, p.run
    dist_n = p.distinct_numbers or run
    same_par = p.parity == PARITY_SAME
    # suffix capacities: how many more items kinds[i:] can give at most
    cap = [0] * (K + 1)
    for i in range(K - 1, -1, -1):
        cap[i] = cap[i + 1] + (per_type if kinds[i][2] else 1)
    top = kinds[-1][0] if kinds else 0
    failed: set[tuple] = set()
    chosen: list[tuple[int, int, bool]] = []
    visits = 0

    def done(cnt: int, total: int, nd: int, has: bool) -> bool:
        return has and cmin <= cnt <= cmax and smin <= total <= smax and dmin <= nd <= dmax and kmin <= cnt - nd <= kmax

    def rec(i: int, cnt: int, total: int, nd: int, dsuit: tuple, smask: int, first: int, last: int, has: bool) -> bool:
        nonlocal visits
        if done(cnt, total, nd, has):
            return True
        if cnt >= cmax or i >= K or (xi >= 0 and not has and i > xi):
            return False
        room = cmax - cnt
        more = min(room, cap[i])
        if dist_s:
            more = min(more, NUM_SUITS - bin(smask).count("1"))
        if (
            cnt + more < cmin
            or total + more * (first if same_n and cnt else top) < smin
            or nd + more < dmin
            or cnt - nd + more < kmin
        ):
            return False
        key = (
            i,
            cnt,
            total,
            nd,
            dsuit,
            smask if dist_s or same_s else 0,
            first if same_n else (first & 1 if same_par else 0),
            last if dist_n else 0,
            has,
        )
        if key in failed:
            return False
        visits += 1
        if visits > budget:
            raise WitnessBudgetExceeded(f"no answer within {budget} search states")
        v, s, d = kinds[i]
        if total + v > smax or (cnt and same_n and v > first) or (cnt and run and v > last + 1):
            failed.add(key)  # every later kind has a number >= v: nothing more can be added
            return False
        can_take = not (
            (cnt and same_n and v != first)
            or (cnt and same_s and s != (smask.bit_length() - 1))
            or (cnt and dist_n and v == last)
            or (cnt and run and v != last + 1)
            or (dist_s and smask >> s & 1)
            or (cnt and same_par and (v - first) & 1)
            or (d and (dsuit[s] >= per_type or nd + 1 > dmax))
            or (not d and cnt - nd + 1 > kmax)
            or (xi >= 0 and not has and i != xi and (cnt + 2 > cmax or total + v + xv > smax))
        )
        if can_take:
            chosen.append((s, v, d))
            ds = dsuit[:s] + (dsuit[s] + 1,) + dsuit[s + 1 :] if d else dsuit
            nxt = i if d and not dist_n and not dist_s else i + 1  # a die kind may be taken again
            if rec(nxt, cnt + 1, total + v, nd + d, ds, smask | 1 << s, first if cnt else v, v, has or i == xi):
                return True
            chosen.pop()
        if (i != xi or has) and rec(i + 1, cnt, total, nd, dsuit, smask, first, last, has):
            return True
        failed.add(key)
        return False

    found = rec(0, 0, 0, 0, (0,) * NUM_SUITS, 0, 0, -1, must is None)
    return list(chosen) if found else None
