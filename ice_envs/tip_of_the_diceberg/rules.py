"""Tip of the Diceberg — the pure game engine (no PettingZoo, no rendering).

Rules (numbered, with every interpretation): ``docs/rules/tip_of_the_diceberg.md``;
rule numbers like R2.5 below refer to that page.

The dice deck has six suits named by die type, numbered 1..faces (d4 1-4 ... d20
1-20, 60 cards), reduced by player count (3 players: numbers 1-8; 4: 1-12; 5: all);
12 cards are dealt to each player. 18 dice (3 of each type; 2 of each with 3
players) are rolled into a pool and drafted two per player in a snake draft. The
revealed Diceberg meld cards are *slots*: each takes one meld of cards and/or dice
per trick, matching the card's pattern, and may give a power. Players play to an
open slot or pass (taking a die from the pool if they wish); when every other player
still in the round has passed in succession the trick clears. Going out (no cards
and no dice) scores 3/2/1; three rounds; most points wins.

Items and actions
-----------------
Cards are numbered 0..59 (by suit d4, d6, d8, d10, d12, d20, then number); dice are
numbered 0..17 by *slot* (slots 0-2 are the d4s, 3-5 the d6s, ... 15-17 the d20s).
A meld is composed item by item, in increasing item order (cards before dice), then
committed to a slot. Action ids (section 3 of the rules page):

==========  =================================================================
id          meaning
==========  =================================================================
0-59        add card ``id`` to the meld being composed (R3.1)
60-77       add own die ``id - 60`` to the meld (R3.1)
78-89       play the composed meld to slot ``id - 78`` (R3.2)
90          pass (R3.3)
91-108      pass and take pool die ``id - 91`` (R3.4)
109-126     draft pool die ``id - 109`` (R3.5)
127-144     take power: take pool die ``id - 127`` (R3.6)
145-204     discard power: discard card ``id - 145`` out of the round (R3.7)
205-222     reroll power: mark own die ``id - 205`` to be re-rolled (R3.8)
223         reroll power: re-roll the marked dice (R3.8)
224         decline the power (take / discard / reroll nothing; R3.9)
==========  =================================================================

Masks admit only items that keep the selection completable to a legal meld for some
open slot, so every composition ends in a play. Identical dice (same type and
number) are interchangeable: the k-th of a group of identical dice may be chosen
only together with the ones of lower slot, and only the lowest-slot die of each
(type, number) in the pool is offered. Every legal meld of distinct cards and dice
values is therefore reachable by exactly one sequence of actions.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol

import numpy as np

from ice_envs.core.state_copy import copy_state
from ice_envs.core.validation import integer as _int
from ice_envs.core.validation import integers as _ints
from ice_envs.tip_of_the_diceberg.catalog import MAX_SLOTS, Catalog, default_catalog, slot_count_problem
from ice_envs.tip_of_the_diceberg.partners import die_faces, melds_with_die
from ice_envs.tip_of_the_diceberg.patterns import (
    CARD_NUMBER,
    CARD_SUIT,
    DECK_MAX_NUMBER,
    DICE_PER_TYPE,
    DICE_PER_TYPE_IN_GAME,
    DIE_TYPE,
    ITEM_DIE0,
    MAX_NUMBER,
    NUM_CARDS,
    NUM_DICE,
    SUIT_FACES,
    SUITS,
    Pattern,
    card_name,
    enumerate_melds,
    matches,
    parse_card,
)

# ---------------------------------------------------------------------------- action layout
ADD_CARD = 0
ADD_DIE = ITEM_DIE0  # 60
COMMIT = ADD_DIE + NUM_DICE  # 78
PASS = COMMIT + MAX_SLOTS  # 90
PASS_TAKE = PASS + 1  # 91
DRAFT = PASS_TAKE + NUM_DICE  # 109
TAKE = DRAFT + NUM_DICE  # 127
DISCARD = TAKE + NUM_DICE  # 145
MARK = DISCARD + NUM_CARDS  # 205
REROLL = MARK + NUM_DICE  # 223
DECLINE = REROLL + 1  # 224
NUM_ACTIONS = DECLINE + 1  # 225

# ---------------------------------------------------------------------------- phases
PHASE_DRAFT = 0
PHASE_PLAY = 1
PHASE_TAKE = 2
PHASE_DISCARD = 3
PHASE_REROLL = 4
PHASE_OVER = 5
PHASE_NAMES = ("drafting", "playing", "taking a die (power)", "discarding (power)", "re-rolling (power)", "over")
POWER_PHASE = {"take": PHASE_TAKE, "discard": PHASE_DISCARD, "reroll": PHASE_REROLL}

# ---------------------------------------------------------------------------- die locations
POOL = -1
PLAYED = -2
UNUSED = -3

HAND_SIZE = 12
#: Highest card number kept in the deck per player count (R1.3: remove 9+ / 13+ / none).
MAX_CARD_NUMBER = DECK_MAX_NUMBER
#: Dice of each type in the game per player count (R1.5).
DICE_PER_TYPE_FOR = DICE_PER_TYPE_IN_GAME
#: Points for the first, second and third player to go out (R4.2).
POINTS = (3, 2, 1)
_CACHE_LIMIT = 4096


class IntegerRng(Protocol):
    """What the engine needs of a random generator (``np.random.Generator`` fits)."""

    def integers(self, low: int, high: int) -> int: ...

    def permutation(self, n: int) -> Any: ...


@dataclass(frozen=True)
class DicebergConfig:
    """Game options.

    Args:
        num_players: 3-5.
        catalog: the meld cards (:class:`Catalog`); default: the shipped catalog.
        num_rounds: rounds in a game (3).
        main_cards: ids of main-deck cards to reveal instead of drawing them (at most
            one per power deck; decks not named are drawn by the rng).
        start_player: seat that starts the first round; ``None`` draws it.
        compulsory_powers: ``True``: the take, discard and reroll powers must be used
            when they can act (no decline; R2.9, I8); ``False`` (default): each may be declined.
    """

    num_players: int = 4
    catalog: Catalog = field(default_factory=default_catalog)
    num_rounds: int = 3
    main_cards: tuple[str, ...] = ()
    start_player: int | None = None
    compulsory_powers: bool = False

    def __post_init__(self) -> None:
        if not isinstance(self.num_players, int) or not 3 <= self.num_players <= 5:
            raise ValueError(f"tip_of_the_diceberg: num_players={self.num_players!r} is out of range 3-5")
        if not isinstance(self.num_rounds, int) or self.num_rounds < 1:
            raise ValueError(f"tip_of_the_diceberg: num_rounds={self.num_rounds!r} must be a positive integer")
        if self.start_player is not None and (
            not isinstance(self.start_player, int) or not 0 <= self.start_player < self.num_players
        ):
            raise ValueError(f"tip_of_the_diceberg: start_player={self.start_player!r} is not a seat")
        if not isinstance(self.compulsory_powers, bool):
            raise ValueError(f"tip_of_the_diceberg: compulsory_powers={self.compulsory_powers!r} must be True or False")
        slots = slot_count_problem(self.catalog, self.num_players)
        if slots:
            raise ValueError(f"tip_of_the_diceberg: catalog {self.catalog.name!r}: {slots}")
        powers = []
        for cid in self.main_cards:
            card = self.catalog.cards[self.catalog.index(cid)]
            if card.deck != "main":
                raise ValueError(f"tip_of_the_diceberg: main_cards: {cid!r} is a starter card, not a main card")
            if card.power in powers:
                raise ValueError(f"tip_of_the_diceberg: main_cards names two {card.power!r} cards")
            powers.append(card.power)

    def __deepcopy__(self, memo: dict) -> DicebergConfig:
        return self  # immutable


@dataclass
class DicebergState:
    """Full game state (plain lists and ints; copy with :meth:`copy`)."""

    config: DicebergConfig
    #: Catalog index of the card at each slot (starters first, then reroll/discard/take/clear).
    slots: list[int]
    #: Sorted card ids of each hand.
    hands: list[list[int]]
    #: Cards of this round's deck that were not dealt (hidden from everyone).
    undealt: list[int]
    #: Cards out of the round: played in a cleared trick or discarded by a power (public).
    removed: list[int]
    die_value: list[int]
    #: Where each die is: a seat, POOL, PLAYED (on a slot this trick) or UNUSED (not in this game).
    die_loc: list[int]
    #: Seat that played to each slot this trick (-1: open).
    slot_player: list[int]
    #: Item ids played to each slot this trick (cards 0..59, dice 60 + slot).
    slot_meld: list[list[int]]
    points: list[int]
    #: Seats in the order they went out this round.
    out_order: list[int] = field(default_factory=list)
    #: ``out_order`` of every finished round.
    history: list[list[int]] = field(default_factory=list)
    phase: int = PHASE_DRAFT
    current: int = 0
    round: int = 0
    start_player: int = 0
    #: Seat that led the current trick.
    leader: int = 0
    #: Seat that played last in the current trick (-1: nobody yet).
    last_player: int = -1
    #: Passes in succession since the last play (or since the lead).
    passes: int = 0
    draft_order: list[int] = field(default_factory=list)
    #: Items of the meld being composed by ``current`` (ascending).
    selection: list[int] = field(default_factory=list)
    #: Own dice marked by ``current`` for the reroll power (ascending).
    marks: list[int] = field(default_factory=list)
    tricks: int = 0
    winners: list[int] = field(default_factory=list)

    #: ``copy()`` is a cheap field-wise copy (search agents use it: ``Simulator.copy``).
    FAST_COPY: ClassVar[bool] = True

    def copy(self) -> DicebergState:
        """An independent copy: every list is copied (hands, slot melds and past rounds two levels
        deep); the frozen config, which no rule changes, is shared."""
        return copy_state(self, nested=("hands", "slot_meld", "history"))


# ---------------------------------------------------------------------------- helpers
def die_name(d: int, value: int) -> str:
    """``"d8=5"`` for a die of slot ``d`` showing ``value``."""
    return f"{SUITS[DIE_TYPE[d]]}={value}"


def item_name(state: DicebergState, item: int) -> str:
    """A card ``d8:7`` or a die ``[d8=5]``."""
    if item < ITEM_DIE0:
        return card_name(item)
    d = item - ITEM_DIE0
    return f"[{die_name(d, state.die_value[d])}]"


def parse_die(spec: Any) -> tuple[int, int]:
    """``"d6:4"`` / ``"d6=4"`` / ``("d6", 4)`` / ``(1, 4)`` → (die type, value)."""
    if isinstance(spec, str):
        suit, _, value = spec.replace("=", ":").partition(":")
        spec = (suit, int(value)) if value.isdigit() else (suit, -1)
    t, v = spec
    t = SUITS.index(t) if isinstance(t, str) and t in SUITS else t
    if not isinstance(t, int) or not 0 <= t < len(SUITS) or not 1 <= int(v) <= SUIT_FACES[t]:
        raise ValueError(f"tip_of_the_diceberg: {spec!r} is not a die like 'd6:4'")
    return t, int(v)


def deck_cards(num_players: int) -> list[int]:
    """The card ids of the dice deck reduced for ``num_players`` (R1.2, R1.3)."""
    limit = MAX_CARD_NUMBER[num_players]
    return [c for c in range(NUM_CARDS) if CARD_NUMBER[c] <= limit]


def dice_in_game(num_players: int) -> list[int]:
    """Die slots used with ``num_players`` (2 of each type with 3 players; R1.5)."""
    k = DICE_PER_TYPE_FOR[num_players]
    return [d for d in range(NUM_DICE) if d % DICE_PER_TYPE < k]


def snake_order(start: int, num_players: int) -> list[int]:
    """Draft order: clockwise from ``start`` one die each, then back counter-clockwise (R1.9, I5)."""
    first = [(start + i) % num_players for i in range(num_players)]
    return first + first[::-1]


def own_dice(state: DicebergState, seat: int) -> list[int]:
    return [d for d in range(NUM_DICE) if state.die_loc[d] == seat]


def pool_dice(state: DicebergState) -> list[int]:
    return [d for d in range(NUM_DICE) if state.die_loc[d] == POOL]


def active_seats(state: DicebergState) -> list[int]:
    return [p for p in range(state.config.num_players) if p not in state.out_order]


def slot_card(state: DicebergState, k: int):
    """The :class:`MeldCard` at slot ``k``."""
    return state.config.catalog.cards[state.slots[k]]


def next_active(state: DicebergState, seat: int) -> int:
    """The next seat clockwise from ``seat`` that is still in the round."""
    n = state.config.num_players
    for i in range(1, n + 1):
        q = (seat + i) % n
        if q not in state.out_order:
            return q
    return seat


def items_of(state: DicebergState, seat: int) -> tuple[tuple[int, int, int, bool], ...]:
    """The items ``seat`` holds as ``(item id, suit, number, is_die)`` sorted by id."""
    dv, dl = state.die_value, state.die_loc
    items = [_CARD_ITEMS[c] for c in state.hands[seat]]
    if seat in dl:
        items += [_DIE_ITEMS[d][dv[d]] for d, loc in enumerate(dl) if loc == seat]
    return tuple(items)


_CARD_ITEMS = tuple((c, CARD_SUIT[c], CARD_NUMBER[c], False) for c in range(NUM_CARDS))
#: ``_DIE_ITEMS[d][v]``: the item of die ``d`` showing ``v`` (shared, never rebuilt).
_DIE_ITEMS = tuple(tuple((ITEM_DIE0 + d, DIE_TYPE[d], v, True) for v in range(MAX_NUMBER + 1)) for d in range(NUM_DICE))


def bits(mask: int) -> list[int]:
    """The set bits of ``mask`` in increasing order (``0b1010`` → ``[1, 3]``)."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


class PatternMelds:
    """The melds of one pattern from one set of items, with their first items and a lazy prefix tree.

    The first items and the tree's nodes are bitmasks of item ids (plain ints; tree keys
    are ``bytes`` of the prefix), so that the many cached instances stay cheap to build
    and hold few objects that the cyclic garbage collector has to scan.
    """

    __slots__ = ("melds", "first_mask", "_trie")

    def __init__(self, melds: list[tuple[int, ...]], first_mask: int | None = None) -> None:
        self.melds = melds
        if first_mask is None:
            first_mask = 0
            for m in melds:
                first_mask |= 1 << m[0]
        #: Bit ``i`` set: some meld starts with item ``i``.
        self.first_mask = first_mask
        self._trie: dict[bytes, int] | None = None

    @property
    def first(self) -> frozenset[int]:
        """The items that start some meld."""
        return frozenset(bits(self.first_mask))

    def tree(self) -> dict[bytes, int]:
        """Prefix tree: ``bytes(prefix)`` → ``(bitmask of the items that may follow) << 1 | is a meld``.

        Only prefixes of melds are keys (so every value is non-zero). Built on first use.
        """
        trie = self._trie
        if trie is None:
            trie = {}
            get = trie.get
            for m in self.melds:
                b = bytes(m)
                for i in range(1, len(b)):
                    key = b[:i]
                    trie[key] = get(key, 0) | 2 << b[i]
                trie[b] = get(b, 0) | 1
            self._trie = trie
        return trie

    def node(self, prefix: tuple[int, ...]) -> tuple[set[int], bool] | None:
        """(items that may follow ``prefix``, whether ``prefix`` is itself a meld), or None."""
        v = self.tree().get(bytes(prefix), 0)
        return (set(bits(v >> 1)), bool(v & 1)) if v else None


_MELDS: dict[tuple[Pattern, tuple], PatternMelds] = {}


def pattern_melds(pattern: Pattern, items: tuple) -> PatternMelds:
    """The melds of ``pattern`` from ``items`` (cached on the pattern's candidate items)."""
    cand = pattern.candidates(items)
    key = (pattern, cand)
    out = _MELDS.get(key)
    if out is None:
        if len(_MELDS) >= _CACHE_LIMIT:
            _MELDS.clear()
        out = _MELDS[key] = PatternMelds(enumerate_melds(pattern, cand))
    return out


def legal_melds(state: DicebergState, seat: int | None = None) -> list[tuple[int, tuple[int, ...]]]:
    """Every (open slot, meld as ascending item ids) that ``seat`` (default: current) may play (R2.2, R2.3)."""
    seat = state.current if seat is None else seat
    per_slot = slot_melds(state, seat)
    return [(k, m) for k, pm in enumerate(per_slot) if state.slot_player[k] < 0 for m in pm.melds]


_SLOT_MELDS: dict[tuple, tuple[PatternMelds, ...]] = {}


def slot_melds(state: DicebergState, seat: int) -> tuple[PatternMelds, ...]:
    """The melds of every slot's pattern (taken or not) from the items of ``seat`` (cached)."""
    items = items_of(state, seat)
    key = (state.config.catalog, tuple(state.slots), items)
    out = _SLOT_MELDS.get(key)
    if out is None:
        if len(_SLOT_MELDS) >= _CACHE_LIMIT:
            _SLOT_MELDS.clear()
        cards = state.config.catalog.cards
        out = _SLOT_MELDS[key] = tuple(pattern_melds(cards[i].pattern, items) for i in state.slots)
    return out


def _seed_cache(state: DicebergState, seat: int, old_items: tuple, taken: tuple | None = None) -> None:
    """Derive the meld cache of ``seat``'s new items from its old items, when that is cheap
    (``taken``: the one item added, when that is all that changed).

    Items removed (a play, a discard, the old faces of re-rolled dice): the melds that avoid
    them, and where identical dice stay, the melds that used the removed ones with the
    remaining ones in their place. Dice added (a take, a draft, the new faces of re-rolled
    dice), one at a time: the old melds plus those with the new die (with all the identical
    dice already held, when it is the last of them). Anything else is left to a fresh
    enumeration. Only a speed-up: the melds are exactly what :func:`enumerate_melds` gives
    (in another order; tested).
    """
    cat = state.config.catalog
    slots = tuple(state.slots)
    old = _SLOT_MELDS.get((cat, slots, old_items))
    if old is None:
        return
    if taken is None:
        new_items = items_of(state, seat)
    else:  # what items_of gives now: ``taken`` in its place by item id
        i = len(old_items)
        while i and old_items[i - 1][0] > taken[0]:
            i -= 1
        new_items = (*old_items[:i], taken, *old_items[i:])
    key = (cat, slots, new_items)
    if key in _SLOT_MELDS:
        return
    derived = _derive(old, *_slot_patterns(cat, slots), old_items, new_items, taken)
    if derived is None:
        return
    if len(_SLOT_MELDS) >= _CACHE_LIMIT:
        _SLOT_MELDS.clear()
    _SLOT_MELDS[key] = derived


_PATTERNS: dict[tuple, tuple[tuple[Pattern, ...], tuple[list, ...]]] = {}


def _slot_patterns(catalog: Catalog, slots: tuple[int, ...]) -> tuple[tuple[Pattern, ...], tuple[list, ...]]:
    """The patterns of the cards at ``slots`` and their :func:`~ice_envs.tip_of_the_diceberg.partners.die_faces`
    (cached)."""
    key = (catalog, slots)
    out = _PATTERNS.get(key)
    if out is None:
        if len(_PATTERNS) >= _CACHE_LIMIT:
            _PATTERNS.clear()
        patterns = tuple(catalog.cards[i].pattern for i in slots)
        out = _PATTERNS[key] = (patterns, tuple(die_faces(p) for p in patterns))
    return out


def _derive(
    old: tuple[PatternMelds, ...],
    patterns: Sequence[Pattern],
    faces: Sequence[list],
    old_items: tuple,
    new_items: tuple,
    taken: tuple | None = None,
) -> tuple[PatternMelds, ...] | None:
    """The per-slot melds of ``new_items`` from those of ``old_items`` (see :func:`_seed_cache`), or None."""
    if taken is not None:  # the one change: ``taken`` was added
        gone: list[tuple] = []
        came = [taken]
    else:
        kept = set(new_items)
        gone = [it for it in old_items if it not in kept]
        before = set(old_items)
        came = [it for it in new_items if it not in before]
    per_slot = old
    items = old_items
    if gone:
        relabel = _relabelling(items, gone)
        if relabel is None:
            return None
        gone_ids = {it[0] for it in gone}
        per_slot = tuple(_without(pm, gone_ids, relabel) for pm in per_slot)
        items = tuple(it for it in items if it[0] not in gone_ids)
    for x in came:
        if not x[3]:
            return None  # a card is never added during a round
        twins = [it[0] for it in items if it[3] and it[1] == x[1] and it[2] == x[2]]
        if twins and twins[-1] > x[0]:
            return None  # x comes before an identical die: the canonical choice of dice shifts
        items = new_items if len(came) == 1 and not gone else tuple(sorted((*items, x)))
        per_slot = _with(per_slot, patterns, faces, items, x, twins[-1] if twins else None)
    return per_slot


def _relabelling(items: tuple, gone: list[tuple]) -> dict[int, int] | None:
    """For removed dice with identical dice left: old die id -> the id that takes its place (the
    k-th die of a group stands in for the k-th left), or None if the removed dice of some group
    are not its first ones (a search from scratch is simpler then)."""
    relabel: dict[int, int] = {}
    gone_ids = {it[0] for it in gone}
    done: set[tuple[int, int]] = set()
    for g in gone:
        if not g[3] or (g[1], g[2]) in done:
            continue
        done.add((g[1], g[2]))
        group = [it[0] for it in items if it[3] and it[1] == g[1] and it[2] == g[2]]
        j = sum(1 for d in group if d in gone_ids)
        if any(d in gone_ids for d in group[j:]):
            return None
        if j < len(group):  # identical dice stay
            for t, d in enumerate(group[: len(group) - j]):
                relabel[d] = group[j + t]
            for d in group[len(group) - j :]:
                relabel.setdefault(d, -1)  # used by no meld that survives (too many copies)
    return relabel


def _without(pm: PatternMelds, removed: set[int], relabel: dict[int, int] | None = None) -> PatternMelds:
    """``pm`` without the melds that use a removed item; with ``relabel`` (:func:`_relabelling`), a meld
    whose removed items are all dice that identical dice replace is kept with them instead."""
    if not relabel:
        kept = [m for m in pm.melds if removed.isdisjoint(m)]
        return pm if len(kept) == len(pm.melds) else PatternMelds(kept)
    out = []
    for m in pm.melds:
        if removed.isdisjoint(m):
            out.append(m)  # uses no die of a relabelled group either (each such meld uses its first die)
        elif all(relabel.get(it, -1) >= 0 if it in removed or it in relabel else True for it in m):
            out.append(tuple(sorted(relabel.get(it, it) for it in m)))
    return PatternMelds(out)


def _with(
    per_slot: tuple[PatternMelds, ...],
    patterns: Sequence[Pattern],
    faces: Sequence[list],
    items: tuple,
    x: tuple,
    last_twin: int | None,
) -> tuple[PatternMelds, ...]:
    """``per_slot`` plus, on each slot, the melds with the new die ``x`` of ``items``
    (:func:`~ice_envs.tip_of_the_diceberg.partners.melds_with_die`; ``faces``: the patterns'
    ``die_faces``); ``last_twin``: the last of the identical dice held before x (then x may only
    join them all), or None."""
    out = list(per_slot)
    for k, extra in enumerate(melds_with_die(patterns, items, x, faces)):
        if not extra:
            continue
        if last_twin is not None:  # the search took x as free: keep the melds that use every twin before it
            extra = [m for m in extra if last_twin in m]
            if not extra:
                continue
        pm = out[k]
        first = pm.first_mask
        for m in extra:
            first |= 1 << m[0]
        out[k] = PatternMelds(pm.melds + extra, first)
    return tuple(out)


def _take_die(state: DicebergState, seat: int, d: int) -> None:
    old = items_of(state, seat)
    state.die_loc[d] = seat
    _seed_cache(state, seat, old, _DIE_ITEMS[d][state.die_value[d]])


def compose_options(state: DicebergState) -> tuple[list[int], list[int]]:
    """(items that keep the current selection completable, slots the selection completes)."""
    per_slot = slot_melds(state, state.current)
    taken = state.slot_player
    nxt = 0
    done: list[int] = []
    if not state.selection:
        for k, pm in enumerate(per_slot):
            if taken[k] < 0:
                nxt |= pm.first_mask
        return bits(nxt), done
    key = bytes(state.selection)
    first = 1 << key[0]
    for k, pm in enumerate(per_slot):
        if taken[k] >= 0 or not pm.first_mask & first:
            continue  # taken, or no meld of this slot starts with the selection's first item
        trie = pm._trie
        v = (pm.tree() if trie is None else trie).get(key, 0)
        if v:
            nxt |= v >> 1
            if v & 1:
                done.append(k)
    return bits(nxt), done


def _distinct_pool(state: DicebergState) -> list[int]:
    """Lowest-slot pool die of each (type, value) present in the pool."""
    seen = 0  # bit ``type * 21 + value`` of each (type, value) taken
    out = []
    dv = state.die_value
    for d, loc in enumerate(state.die_loc):
        if loc == POOL:
            bit = 1 << (_FACE_BASE[d] + dv[d])
            if not seen & bit:
                seen |= bit
                out.append(d)
    return out


#: ``_FACE_BASE[d] + value``: the (type, value) index of die ``d`` showing ``value``.
_FACE_BASE = tuple(DIE_TYPE[d] * (MAX_NUMBER + 1) for d in range(NUM_DICE))


def _markable(state: DicebergState) -> list[int]:
    """Own dice that may be marked next for the reroll power (ascending, identical dice in slot order)."""
    seat = state.current
    last = state.marks[-1] if state.marks else -1
    marked = set(state.marks)
    dv, dl = state.die_value, state.die_loc
    out = []
    for d in range(last + 1, NUM_DICE):
        if dl[d] != seat:
            continue
        key = (DIE_TYPE[d], dv[d])
        if any(dl[e] == seat and (DIE_TYPE[e], dv[e]) == key and e not in marked for e in range(d)):
            continue
        out.append(d)
    return out


# ---------------------------------------------------------------------------- setup
def new_game(
    config: DicebergConfig,
    rng: IntegerRng,
    *,
    start_player: int | None = None,
    hands: Sequence[Sequence[Any]] | None = None,
    dice: Sequence[Sequence[Any]] | None = None,
    pool: Sequence[Any] | None = None,
) -> DicebergState:
    """Set up a game: reveal the meld cards, deal, roll the pool and start the draft (section 1).

    For tests and puzzles a position may be given: ``hands`` (card ids or names like
    ``"d8:7"`` per seat; the rest of the reduced deck is undealt), ``dice`` (per seat,
    dice like ``"d6:4"``; skips the draft) and ``pool`` (the pool dice; any die in the
    game that is neither held nor in ``pool`` is then left out of the game).
    """
    n = config.num_players
    cat = config.catalog
    slots = cat.starters(n)
    fixed = {cat.cards[cat.index(cid)].power: cat.index(cid) for cid in config.main_cards}
    for power in cat.power_decks():
        if power in fixed:
            slots.append(fixed[power])
        else:
            deck = cat.power_deck(power)
            slots.append(deck[int(rng.permutation(len(deck))[0])])
    if start_player is None:
        start_player = config.start_player
    if start_player is None:
        start_player = int(rng.permutation(n)[0])
    if not isinstance(start_player, int) or not 0 <= start_player < n:
        raise ValueError(f"tip_of_the_diceberg: start_player={start_player!r} is not a seat")
    state = DicebergState(
        config=config,
        slots=slots,
        hands=[[] for _ in range(n)],
        undealt=[],
        removed=[],
        die_value=[1] * NUM_DICE,
        die_loc=[UNUSED] * NUM_DICE,
        slot_player=[-1] * len(slots),
        slot_meld=[[] for _ in slots],
        points=[0] * n,
    )
    _setup_round(state, rng, start_player, roll=dice is None and pool is None)
    if hands is not None:
        _set_hands(state, hands)
    if dice is not None or pool is not None:
        _set_dice(state, rng, dice, pool)
    return state


def _setup_round(state: DicebergState, rng: IntegerRng, start: int, roll: bool = True) -> None:
    # R1.4, R1.5, R1.9 (and R5.2 for a later round): deal, roll the pool, start the draft
    n = state.config.num_players
    deck = deck_cards(n)
    perm = rng.permutation(len(deck))
    order = [deck[int(i)] for i in perm]
    state.hands = [sorted(order[p * HAND_SIZE : (p + 1) * HAND_SIZE]) for p in range(n)]
    state.undealt = sorted(order[n * HAND_SIZE :])
    state.removed = []
    in_game = set(dice_in_game(n))
    for d in range(NUM_DICE):
        state.die_loc[d] = POOL if d in in_game else UNUSED
        state.die_value[d] = 1
    if roll:
        _roll(state, rng, [d for d in range(NUM_DICE) if d in in_game])
    state.slot_player = [-1] * len(state.slots)
    state.slot_meld = [[] for _ in state.slots]
    state.out_order = []
    state.start_player = start
    state.leader = start
    state.last_player = -1
    state.passes = 0
    state.selection = []
    state.marks = []
    state.tricks = 0
    state.draft_order = snake_order(start, n)
    state.phase = PHASE_DRAFT
    state.current = state.draft_order[0]


def _set_hands(state: DicebergState, hands: Sequence[Sequence[Any]]) -> None:
    n = state.config.num_players
    if len(hands) != n:
        raise ValueError(f"tip_of_the_diceberg: {len(hands)} hands given for {n} players")
    deck = set(deck_cards(n))
    seen: set[int] = set()
    out = []
    for hand in hands:
        ids = sorted(parse_card(c) if isinstance(c, str) else int(c) for c in hand)
        for c in ids:
            if c not in deck:
                raise ValueError(f"tip_of_the_diceberg: card {card_name(c)} is not in the {n}-player deck")
            if c in seen:
                raise ValueError(f"tip_of_the_diceberg: card {card_name(c)} is dealt twice")
            seen.add(c)
        out.append(ids)
    state.hands = out
    state.undealt = sorted(deck - seen)


def _set_dice(
    state: DicebergState, rng: IntegerRng, dice: Sequence[Sequence[Any]] | None, pool: Sequence[Any] | None
) -> None:
    n = state.config.num_players
    free = {t: [d for d in dice_in_game(n) if DIE_TYPE[d] == t] for t in range(len(SUITS))}
    for d in range(NUM_DICE):
        state.die_loc[d] = UNUSED
    owners: list[tuple[int, Any]] = []
    if dice is not None:
        if len(dice) != n:
            raise ValueError(f"tip_of_the_diceberg: {len(dice)} dice lists given for {n} players")
        owners += [(p, spec) for p in range(n) for spec in dice[p]]
    if pool is not None:
        owners += [(POOL, spec) for spec in pool]
    for owner, spec in owners:
        t, v = parse_die(spec)
        if not free[t]:
            raise ValueError(f"tip_of_the_diceberg: too many {SUITS[t]} dice for {n} players")
        d = free[t].pop(0)
        state.die_loc[d] = owner
        state.die_value[d] = v
    if pool is None:
        rest = [d for t in free for d in free[t]]
        for d in rest:
            state.die_loc[d] = POOL
        _roll(state, rng, rest)
    if dice is not None:
        state.draft_order = []
        _begin_play(state, state.start_player)


#: One more than the faces of each die (the exclusive upper bound of its roll).
_ROLL_HIGH = tuple(SUIT_FACES[DIE_TYPE[d]] + 1 for d in range(NUM_DICE))


def _roll(state: DicebergState, rng: IntegerRng, which: Sequence[int]) -> None:
    """Roll the dice ``which``, in that order, one ``integers(1, faces + 1)`` draw each.

    A ``numpy`` generator draws them in one call with an array of bounds: the same values
    from the same stream as one call per die (tested), in a fraction of the time."""
    if not which:
        return
    if type(rng) is np.random.Generator and len(which) > 1:
        values = rng.integers(1, np.array([_ROLL_HIGH[d] for d in which])).tolist()
        for d, v in zip(which, values):
            state.die_value[d] = v
        return
    for d in which:
        state.die_value[d] = int(rng.integers(1, _ROLL_HIGH[d]))


def _begin_play(state: DicebergState, leader: int) -> None:
    state.phase = PHASE_PLAY
    state.leader = leader
    state.current = leader
    state.last_player = -1
    state.passes = 0


# ---------------------------------------------------------------------------- legal actions
def legal_actions(state: DicebergState) -> list[int]:
    """Every legal action id for the deciding seat (ascending; R3.1-R3.9)."""
    phase = state.phase
    if phase == PHASE_PLAY:
        nxt, slots = compose_options(state)
        if state.selection:
            return nxt + [COMMIT + k for k in slots]
        return nxt + [PASS] + [PASS_TAKE + d for d in _distinct_pool(state)]
    if phase == PHASE_DRAFT:
        return [DRAFT + d for d in _distinct_pool(state)]
    # R3.9: a power may be declined unless the option ``compulsory_powers`` is on (I8)
    decline = [] if state.config.compulsory_powers else [DECLINE]
    if phase == PHASE_TAKE:
        return [TAKE + d for d in _distinct_pool(state)] + decline
    if phase == PHASE_DISCARD:
        return [DISCARD + c for c in state.hands[state.current]] + decline
    if phase == PHASE_REROLL:
        out = [MARK + d for d in _markable(state)]
        return out + [REROLL] if state.marks else out + decline
    return []


def is_legal(state: DicebergState, action: int) -> bool:
    return action in legal_actions(state)


# ---------------------------------------------------------------------------- apply
def apply(state: DicebergState, action: int, rng: IntegerRng) -> DicebergState:
    """Apply ``action`` for the deciding seat (mutates and returns ``state``)."""
    if not is_legal(state, action):
        raise ValueError(f"tip_of_the_diceberg: action {action} is not legal here; legal: {legal_actions(state)}")
    return apply_legal(state, action, rng)


def apply_legal(state: DicebergState, action: int, rng: IntegerRng) -> DicebergState:
    """:func:`apply` without its legality check, for callers that have checked ``action``
    against :func:`legal_actions` of this very state already (the env's action mask).
    An illegal action here corrupts the state instead of raising."""
    phase = state.phase
    seat = state.current
    if phase == PHASE_PLAY:
        if action < COMMIT:
            state.selection.append(action)
        elif action < PASS:
            _play(state, action - COMMIT, rng)
        else:
            if action >= PASS_TAKE:
                _take_die(state, seat, action - PASS_TAKE)
            _pass(state, rng)
    elif phase == PHASE_DRAFT:
        _take_die(state, seat, action - DRAFT)
        state.draft_order.pop(0)
        if state.draft_order:
            state.current = state.draft_order[0]
        else:
            _begin_play(state, state.start_player)
    elif phase == PHASE_TAKE:
        if action != DECLINE:
            _take_die(state, seat, action - TAKE)
        _advance(state, seat)
    elif phase == PHASE_DISCARD:
        if action != DECLINE:
            card = action - DISCARD
            old = items_of(state, seat)
            state.hands[seat].remove(card)
            _seed_cache(state, seat, old)
            _insert_sorted(state.removed, card)
            if _holds_nothing(state, seat) and _went_out(state, seat, rng):
                return state
        _advance(state, seat)
    elif phase == PHASE_REROLL:
        if MARK <= action < REROLL:
            state.marks.append(action - MARK)
            return state
        if action == REROLL:
            old = items_of(state, seat)
            _roll(state, rng, state.marks)
            _seed_cache(state, seat, old)
        state.marks = []
        _advance(state, seat)
    return state


def _insert_sorted(values: list[int], x: int) -> None:
    i = len(values)
    while i > 0 and values[i - 1] > x:
        i -= 1
    values.insert(i, x)


def _holds_nothing(state: DicebergState, seat: int) -> bool:
    return not state.hands[seat] and seat not in state.die_loc


def _play(state: DicebergState, k: int, rng: IntegerRng) -> None:
    # R3.2: the meld goes to slot k; then going out (R4.1) or the slot's power (R2.9)
    seat = state.current
    items = state.selection
    state.selection = []
    hand = state.hands[seat]
    old = items_of(state, seat)
    for it in items:
        if it < ITEM_DIE0:
            hand.remove(it)
        else:
            state.die_loc[it - ITEM_DIE0] = PLAYED
    _seed_cache(state, seat, old)
    state.slot_player[k] = seat
    state.slot_meld[k] = items
    state.last_player = seat
    state.passes = 0
    power = slot_card(state, k).power
    out = _holds_nothing(state, seat)
    if out and _went_out(state, seat, rng):
        return
    if power == "clear":
        _clear_trick(state, rng, next_active(state, seat) if out else seat)
        return
    if not out and power:
        phase = POWER_PHASE[power]
        if (
            (phase == PHASE_REROLL and seat in state.die_loc)
            or (phase == PHASE_DISCARD and hand)
            or (phase == PHASE_TAKE and POOL in state.die_loc)
        ):
            state.phase = phase
            return
    _advance(state, seat)


def _advance(state: DicebergState, seat: int) -> None:
    state.phase = PHASE_PLAY
    state.current = next_active(state, seat)


def _pass(state: DicebergState, rng: IntegerRng) -> None:
    # R2.5-R2.7: the trick clears once every other player still in (all of them, if the
    # last player to play went out or nobody played) has passed in succession
    seat = state.current
    state.passes += 1
    n_active = state.config.num_players - len(state.out_order)
    last = state.last_player
    if last >= 0:
        need = n_active if last in state.out_order else n_active - 1
    else:
        need = n_active
    if state.passes < need:
        state.current = next_active(state, seat)
        return
    if last >= 0:
        leader = next_active(state, last) if last in state.out_order else last
    else:
        # R2.7: nobody played this trick: it clears (the pool is re-rolled) and the lead moves on.
        if deadlocked(state):
            _end_round(state, rng)
            return
        leader = next_active(state, state.leader)
    _clear_trick(state, rng, leader)


def deadlocked(state: DicebergState) -> bool:
    """No die in the pool and no player still in the round has a meld for any slot (R2.8, I18).

    Only possible with a custom catalog (the default one has a one-item starter).
    """
    if POOL in state.die_loc:
        return False
    saved = state.slot_player
    state.slot_player = [-1] * len(state.slots)
    try:
        return not any(legal_melds(state, p) for p in active_seats(state))
    finally:
        state.slot_player = saved


def _clear_trick(state: DicebergState, rng: IntegerRng, leader: int) -> None:
    """Played cards leave the round, played dice return to the pool, the pool is re-rolled (R2.5)."""
    for k, meld in enumerate(state.slot_meld):
        for it in meld:
            if it < ITEM_DIE0:
                _insert_sorted(state.removed, it)
            else:
                state.die_loc[it - ITEM_DIE0] = POOL
        state.slot_meld[k] = []
        state.slot_player[k] = -1
    _roll(state, rng, pool_dice(state))
    state.tricks += 1
    state.selection = []
    state.marks = []
    _begin_play(state, leader)


def _went_out(state: DicebergState, seat: int, rng: IntegerRng) -> bool:
    """Record that ``seat`` went out (R4.1, R4.2); returns True if that ended the round (R5.1)."""
    k = len(state.out_order)
    state.out_order.append(seat)
    if k < len(POINTS):
        state.points[seat] += POINTS[k]
    n = state.config.num_players
    if n - len(state.out_order) <= (2 if n == 5 else 1):
        _end_round(state, rng)
        return True
    return False


def _finish_rank(out_order: Sequence[int], seat: int, num_players: int) -> int:
    """0 for the first player out, ...; ``num_players`` for a player who did not go out."""
    return out_order.index(seat) if seat in out_order else num_players


def next_start_player(state: DicebergState) -> int:
    """R5.3: lowest points starts; ties to the player who did not go out / went out later (I21).

    Several tied players who all did not go out: the first of them clockwise from
    the player who went out last (from the start player if nobody went out).
    """
    n = state.config.num_players
    low = min(state.points)
    tied = [p for p in range(n) if state.points[p] == low]
    latest = max(_finish_rank(state.out_order, p, n) for p in tied)
    cands = [p for p in tied if _finish_rank(state.out_order, p, n) == latest]
    if len(cands) == 1:
        return cands[0]
    ref = state.out_order[-1] if state.out_order else state.start_player
    for i in range(1, n + 1):
        if (ref + i) % n in cands:
            return (ref + i) % n
    return cands[0]


def _end_round(state: DicebergState, rng: IntegerRng) -> None:
    # R5.2-R5.4: the next round, or the end of the game after ``num_rounds`` rounds
    state.history.append(list(state.out_order))
    state.selection = []
    state.marks = []
    if state.round + 1 >= state.config.num_rounds:
        state.phase = PHASE_OVER
        state.winners = game_winners(state)
        return
    start = next_start_player(state)
    state.round += 1
    _setup_round(state, rng, start)


def game_winners(state: DicebergState) -> list[int]:
    """Most points (R5.5); ties to the earliest finisher of the last round (still tied: shared; R6.1)."""
    n = state.config.num_players
    best = max(state.points)
    tied = [p for p in range(n) if state.points[p] == best]
    last = state.history[-1] if state.history else state.out_order
    first = min(_finish_rank(last, p, n) for p in tied)
    return [p for p in tied if _finish_rank(last, p, n) == first]


# ---------------------------------------------------------------------------- results
def is_over(state: DicebergState) -> bool:
    return state.phase == PHASE_OVER


def outcome(state: DicebergState) -> list[float]:
    """+1 for each winner, -1 for everyone else (zeros while the game goes on); R5.6."""
    n = state.config.num_players
    if state.phase != PHASE_OVER:
        return [0.0] * n
    return [1.0 if p in state.winners else -1.0 for p in range(n)]


def scores(state: DicebergState) -> list[float]:
    """Points so far (3/2/1 for going out first/second/third in a round; R4.2, R4.3)."""
    return [float(x) for x in state.points]


def dice_count(state: DicebergState, seat: int) -> int:
    return state.die_loc.count(seat)


def resample_hidden(state: DicebergState, seat: int, rng: IntegerRng) -> DicebergState:
    """Re-deal what ``seat`` cannot see: the other hands and the undealt cards (R1.11, I24).

    The meld another player is composing (and the dice it has marked for a re-roll)
    is not visible either: it is dropped, as if that player had not started yet. The unseen
    cards are dealt from sorted order, so the re-deal depends only on what ``seat`` knows
    (which cards are unseen, how many each hand holds) and on ``rng``.
    """
    new = state.copy()
    if seat != state.current:
        new.selection = []
        new.marks = []
    others = [p for p in range(state.config.num_players) if p != seat]
    unseen = sorted([c for p in others for c in state.hands[p]] + list(state.undealt))
    perm = rng.permutation(len(unseen))
    shuffled = [unseen[int(i)] for i in perm]
    start = 0
    for p in others:
        k = len(state.hands[p])
        new.hands[p] = sorted(shuffled[start : start + k])
        start += k
    new.undealt = sorted(shuffled[start:])
    return new


# ---------------------------------------------------------------------------- validating a loaded state


def _ascending(name: str, values: list[int]) -> None:
    if any(a >= b for a, b in zip(values, values[1:])):
        raise ValueError(f"{name} must be distinct and in increasing order, got {values}")


def check_state(state: DicebergState, config: DicebergConfig) -> None:
    """Raise ``ValueError`` naming the problem unless ``state`` is a possible position of a game of ``config``.

    Checks every field's type and range, the slots against the catalog (R1.7), that the
    cards in hands, undealt, removed and on the slots are exactly the reduced deck (R1.3),
    the dice against the 18 dice and those in the game (R1.5), the melds on the slots against
    their patterns, the phase and the seats it names, and the finished rounds.
    """
    if state.config != config:
        raise ValueError("its config (players, catalog, rounds, main cards, start player) differs from this env's")
    n = config.num_players
    cat = config.catalog
    slots = _ints("slots", state.slots, None, 0, len(cat.cards) - 1)
    starters = cat.starters(n)
    decks = cat.power_decks()
    if len(slots) != len(starters) + len(decks) or slots[: len(starters)] != starters:
        raise ValueError(f"slots {slots} are not the {n}-player starters {starters} and one card per power deck")
    fixed = {cat.cards[cat.index(cid)].power: cat.index(cid) for cid in config.main_cards}
    for power, idx in zip(decks, slots[len(starters) :]):
        if idx not in cat.power_deck(power) or (power in fixed and idx != fixed[power]):
            raise ValueError(f"slot card {cat.cards[idx].id} is not a possible {power!r} card of this game")
    deck = set(deck_cards(n))
    hands = state.hands
    if not isinstance(hands, list) or len(hands) != n:
        raise ValueError(f"hands must be a list of {n} hands")
    seen: list[int] = []
    for p, hand in enumerate(hands):
        _ints(f"hands[{p}]", hand, None, 0, NUM_CARDS - 1)
        _ascending(f"hands[{p}]", hand)
        if len(hand) > HAND_SIZE:
            raise ValueError(f"hands[{p}] holds {len(hand)} cards; a hand holds at most {HAND_SIZE}")
        seen += hand
    for name in ("undealt", "removed"):
        values = _ints(name, getattr(state, name), None, 0, NUM_CARDS - 1)
        _ascending(name, values)
        seen += values
    k_slots = len(slots)
    _ints("slot_player", state.slot_player, k_slots, -1, n - 1)
    melds = state.slot_meld
    if not isinstance(melds, list) or len(melds) != k_slots:
        raise ValueError(f"slot_meld must be a list of {k_slots} melds")
    played_dice: list[int] = []
    for k, meld in enumerate(melds):
        _ints(f"slot_meld[{k}]", meld, None, 0, ITEM_DIE0 + NUM_DICE - 1)
        _ascending(f"slot_meld[{k}]", meld)
        if bool(meld) != (state.slot_player[k] >= 0):
            raise ValueError(f"slot {k}: a meld must lie there exactly when a player took it")
        seen += [it for it in meld if it < ITEM_DIE0]
        played_dice += [it - ITEM_DIE0 for it in meld if it >= ITEM_DIE0]
    if len(seen) != len(set(seen)) or set(seen) != deck:
        twice = sorted({card_name(c) for c in seen if seen.count(c) > 1})
        outside = sorted(card_name(c) for c in set(seen) - deck)
        missing = sorted(card_name(c) for c in deck - set(seen))
        raise ValueError(
            f"the cards are not the {n}-player deck once each (twice: {twice}, not in the deck: {outside}, "
            f"missing: {missing})"
        )
    die_value = _ints("die_value", state.die_value, NUM_DICE, 1, MAX_NUMBER)
    for d, v in enumerate(die_value):
        if v > SUIT_FACES[DIE_TYPE[d]]:
            raise ValueError(f"die {d} ({SUITS[DIE_TYPE[d]]}) shows {v}")
    die_loc = _ints("die_loc", state.die_loc, NUM_DICE, UNUSED, n - 1)
    in_game = set(dice_in_game(n))
    for d, loc in enumerate(die_loc):
        if d not in in_game and loc != UNUSED:
            raise ValueError(f"die {d} is not in a {n}-player game but is not marked unused")
    if sorted(played_dice) != [d for d in range(NUM_DICE) if die_loc[d] == PLAYED]:
        raise ValueError("the dice on the slots are not exactly the dice marked as played")
    for k, meld in enumerate(melds):
        if meld:
            items = [
                (CARD_SUIT[it], CARD_NUMBER[it], False)
                if it < ITEM_DIE0
                else (DIE_TYPE[it - ITEM_DIE0], die_value[it - ITEM_DIE0], True)
                for it in meld
            ]
            if not matches(cat.cards[slots[k]].pattern, items):
                raise ValueError(f"slot {k}: the meld {meld} does not fit the card {cat.cards[slots[k]].id}")
    _ints("points", state.points, n, 0, POINTS[0] * config.num_rounds)
    phase = _int("phase", state.phase, PHASE_DRAFT, PHASE_OVER)
    over = phase == PHASE_OVER
    rnd = _int("round", state.round, 0, config.num_rounds - 1)
    history = state.history
    if not isinstance(history, list) or len(history) != rnd + (1 if over else 0):
        raise ValueError(f"history must list the {rnd + over} finished rounds")
    for i, order in enumerate([*history, state.out_order]):
        name = f"history[{i}]" if i < len(history) else "out_order"
        _ints(name, order, None, 0, n - 1)
        if len(set(order)) != len(order) or len(order) > n - (2 if n == 5 else 1):
            raise ValueError(f"{name} {order} is not a list of distinct seats that went out")
    if over and state.out_order != history[-1]:
        raise ValueError("out_order of a finished game must be its last round's")
    for p in state.out_order:
        if hands[p] or p in die_loc:
            raise ValueError(f"player {p} went out but still holds items")
    for name in ("current", "start_player", "leader"):
        _int(name, getattr(state, name), 0, n - 1)
    _int("last_player", state.last_player, -1, n - 1)
    _int("passes", state.passes, 0, n)
    _int("tricks", state.tricks, 0, 1 << 62)
    draft = _ints("draft_order", state.draft_order, None, 0, n - 1)
    if len(draft) > 2 * n or bool(draft) != (phase == PHASE_DRAFT):
        raise ValueError("draft_order must hold the picks left exactly during the draft (at most 2 per player)")
    if phase == PHASE_DRAFT and (
        state.current != draft[0] or draft != snake_order(state.start_player, n)[-len(draft) :]
    ):
        raise ValueError("the draft order is not the rest of the snake draft from the start player")
    if phase == PHASE_DRAFT and die_loc.count(POOL) < len(draft):
        raise ValueError(f"the draft needs {len(draft)} more picks but the pool holds {die_loc.count(POOL)} dice")
    if not over and state.current in state.out_order:
        raise ValueError(f"player {state.current} is to act but went out")
    selection = _ints("selection", state.selection, None, 0, ITEM_DIE0 + NUM_DICE - 1)
    _ascending("selection", selection)
    if selection and phase != PHASE_PLAY:
        raise ValueError("a meld can only be composed while playing")
    for it in selection:
        held = it in hands[state.current] if it < ITEM_DIE0 else die_loc[it - ITEM_DIE0] == state.current
        if not held:
            raise ValueError(f"the meld being composed uses item {it}, which player {state.current} does not hold")
    marks = _ints("marks", state.marks, None, 0, NUM_DICE - 1)
    _ascending("marks", marks)
    if marks and (phase != PHASE_REROLL or any(die_loc[d] != state.current for d in marks)):
        raise ValueError(f"marks {marks}: only the re-rolling player's own dice can be marked")
    _check_power_can_act(phase, state.current, hands, die_loc)
    winners = _ints("winners", state.winners, None, 0, n - 1)
    if over and winners != game_winners(state):
        raise ValueError(f"winners {winners} are not the winners of the finished game")
    if not over and winners:
        raise ValueError("a game still going has no winners")


def _check_power_can_act(phase: int, seat: int, hands: list[list[int]], die_loc: list[int]) -> None:
    """A power phase is only entered when the power can act (R2.9): a die in the pool to take,
    a card to discard, an own die to re-roll."""
    if phase == PHASE_TAKE and POOL not in die_loc:
        raise ValueError("the take power is to be used but the pool is empty")
    if phase == PHASE_DISCARD and not hands[seat]:
        raise ValueError(f"the discard power is to be used but player {seat} holds no card")
    if phase == PHASE_REROLL and seat not in die_loc:
        raise ValueError(f"the reroll power is to be used but player {seat} holds no die")
