"""Iceberg Rummy meld logic: cards, meld validity, meld values, every legal play, best play-out.

Rules and interpretations: ``docs/rules/iceberg_rummy.md`` (melds R3.4, lay-offs R3.5,
values R4.2-R4.5, end-of-hand penalty R4.6 and I12).

Cards are integer ids ``suit * 13 + rank`` with ranks ``0 = A, 1 = 2, ..., 9 = 10, 10 = J,
11 = Q, 12 = K`` and suits ``0 = C, 1 = D, 2 = H, 3 = S`` (clubs and spades black,
diamonds and hearts red). A hand is a count vector of length 52 (0-2 copies of each card:
two decks are shuffled together for 4-5 players, and duplicates are interchangeable).

A *play* is ``(cards, target, value)``: ``cards`` a sorted tuple of card ids (a multiset),
``target`` ``-1`` for a new meld or the table slot ``k`` it is laid off onto, and ``value``
the points it scores. :func:`enumerate_plays` lists every legal play of a hand against a
table; :func:`best_playout` finds the best set of plays a hand could still make (used for
the end-of-hand penalties), exactly for any hand: a branch-and-bound search, and an integer
program for the hands the search would need too long for.

Meld values: a meld of ``n`` cards is worth :func:`size_value` ``(n)`` — 10 for a pair and
``5 n (n + 1) - 30`` for ``n >= 3`` (30, 70, 120, 180, ...): the value table (R4.2) with a
meld laid at once scored as if built card by card (R4.3, house rule I1): pair 10, third
card 20 (so a three-card set, and a three-card run, is 30), k-th card ``10 k`` for
``k >= 4``. Laying ``m`` cards off onto a meld of ``n`` earns ``size_value(n + m) -
size_value(n)`` (R4.4). Special melds are laid whole for a fixed value (R4.5) and never
extended (I5).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import cache, lru_cache
from itertools import product

import numpy as np

NUM_SUITS = 4
NUM_RANKS = 13
NUM_CARDS = 52
SUIT_NAMES = "CDHS"
SUIT_COLOUR = (0, 1, 1, 0)  # 0 black (clubs, spades), 1 red (diamonds, hearts)
COLOUR_SUITS = ((0, 3), (1, 2))
COLOUR_NAMES = ("black", "red")
RANK_NAMES = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
ACE = 0
ACE_IDS = (0, 13, 26, 39)

#: Meld kinds.
GROUP = 0  # pair (2 cards) or set (3+ cards) of one rank
RUN = 1
ODDS_SUIT = 2
EVENS_SUIT = 3
ODDS_COLOUR = 4
EVENS_COLOUR = 5
NUM_KINDS = 6
KIND_NAMES = ("set", "run", "odds in one suit", "evens in one suit", "odds in one colour", "evens in one colour")
SPECIAL_VALUES = {ODDS_SUIT: 700, EVENS_SUIT: 700, ODDS_COLOUR: 300, EVENS_COLOUR: 200}
ODD_RANKS = (2, 4, 6, 8, 10, 12)  # 3 5 7 9 J K
EVEN_RANKS = (1, 3, 5, 7, 9, 11)  # 2 4 6 8 10 Q

Play = tuple[tuple[int, ...], int, int]

_POW2 = 1 << np.arange(NUM_RANKS, dtype=np.int64)
_ODD_MASK = sum(1 << r for r in ODD_RANKS)
_EVEN_MASK = sum(1 << r for r in EVEN_RANKS)


# ---------------------------------------------------------------------------- cards
def card_id(rank: int, suit: int) -> int:
    """The id of the card of ``rank`` (0 = A .. 12 = K) and ``suit`` (0-3)."""
    return suit * NUM_RANKS + rank


def card_name(card: int) -> str:
    """``"10H"``, ``"QS"``, ``"AC"``..."""
    return RANK_NAMES[card % NUM_RANKS] + SUIT_NAMES[card // NUM_RANKS]


def cards_text(cards: Iterable[int]) -> str:
    """Card names separated by spaces."""
    return " ".join(card_name(int(c)) for c in cards)


def parse_card(text: str | int) -> int:
    """A card id from a name such as ``"10H"``, ``"TH"``, ``"qs"`` (or an id, returned as is)."""
    if isinstance(text, (int, np.integer)):
        if not 0 <= int(text) < NUM_CARDS:
            raise ValueError(f"iceberg_rummy: card id {text!r} is not in 0..51")
        return int(text)
    name = str(text).strip().upper()
    if len(name) < 2 or name[-1] not in SUIT_NAMES:
        raise ValueError(f"iceberg_rummy: {text!r} is not a card (e.g. '7S', '10H', 'QD', 'AC')")
    rank_text = {"T": "10", "1": "A"}.get(name[:-1], name[:-1])
    if rank_text not in RANK_NAMES:
        raise ValueError(f"iceberg_rummy: {text!r} has no rank A, 2-10, J, Q or K")
    return card_id(RANK_NAMES.index(rank_text), SUIT_NAMES.index(name[-1]))


def parse_cards(cards: str | Iterable[str | int]) -> list[int]:
    """Card ids from ``"7S 8S 9S"`` or a list of names or ids."""
    if isinstance(cards, str):
        cards = cards.replace(",", " ").split()
    return [parse_card(c) for c in cards]


def counts_of(cards: Iterable[int]) -> np.ndarray:
    """The 52-long count vector of a list of card ids."""
    out = np.zeros(NUM_CARDS, dtype=np.int8)
    for c in cards:
        out[int(c)] += 1
    return out


def cards_of(counts: np.ndarray) -> list[int]:
    """The sorted card ids of a count vector (duplicates repeated)."""
    return [c for c in range(NUM_CARDS) for _ in range(int(counts[c]))]


# ---------------------------------------------------------------------------- values and validity
def size_value(n: int) -> int:
    """Points of a pair/set/run of ``n`` cards built card by card (R4.2, R4.3: pair 10, 3: 30, 4: 70 ...)."""
    if n < 2:
        return 0
    if n == 2:
        return 10
    return 5 * n * (n + 1) - 30


def group_valid(suit_counts: Sequence[int]) -> bool:
    """Whether cards of one rank with these per-suit counts form a pair or a set (R3.4.1, R3.4.2).

    Pair: two cards of different suits. Set of 3-4: all different suits. Set of 5+: at
    least one card of each suit.
    """
    n = sum(suit_counts)
    if n < 2:
        return False
    if n <= 4:
        return max(suit_counts) <= 1
    return min(suit_counts) >= 1


def _suit_code(counts: Sequence[int]) -> int:
    return counts[0] + 3 * counts[1] + 9 * counts[2] + 27 * counts[3]


_GROUP_OK = np.array([group_valid((i % 3, i // 3 % 3, i // 9 % 3, i // 27)) for i in range(81)], dtype=bool)


def _sub_vectors(counts: tuple[int, int, int, int]) -> list[tuple[int, int, int, int]]:
    return [a for a in product(*(range(c + 1) for c in counts)) if sum(a) > 0]  # type: ignore[misc]


_SUBS: dict[tuple[int, ...], list[tuple[int, int, int, int]]] = {
    hc: _sub_vectors(hc)  # type: ignore[arg-type]
    for hc in product(range(3), repeat=4)
}


def meld_kind(cards: Sequence[int]) -> int | None:
    """The kind of the new meld ``cards`` (a multiset of ids, R3.4), or ``None`` if it is not one."""
    cards = sorted(int(c) for c in cards)
    n = len(cards)
    if n < 2:
        return None
    ranks = [c % NUM_RANKS for c in cards]
    suits = [c // NUM_RANKS for c in cards]
    if ACE in ranks:
        return None
    if len(set(ranks)) == 1:
        sc = [suits.count(s) for s in range(NUM_SUITS)]
        return GROUP if group_valid(sc) else None
    if n == 6 and len(set(ranks)) == 6 and tuple(sorted(ranks)) in (ODD_RANKS, EVEN_RANKS):
        odd = tuple(sorted(ranks)) == ODD_RANKS
        if len(set(suits)) == 1:
            return ODDS_SUIT if odd else EVENS_SUIT
        if len({SUIT_COLOUR[s] for s in suits}) == 1:
            return ODDS_COLOUR if odd else EVENS_COLOUR
        return None
    if n >= 3 and len(set(suits)) == 1:
        rs = sorted(ranks)
        if all(b == a + 1 for a, b in zip(rs, rs[1:])):
            return RUN
    return None


def layoff_value(old_size: int, added: int) -> int:
    """Points for adding ``added`` cards to a pair/set/run of ``old_size`` cards (R4.4)."""
    return size_value(old_size + added) - size_value(old_size)


# ---------------------------------------------------------------------------- enumeration
def enumerate_plays(hand: np.ndarray, melds: Sequence[tuple[int, ...]]) -> list[Play]:
    """Every legal play of ``hand`` (count vector) against the table ``melds`` (card tuples).

    New melds (R3.4) and lay-offs (R3.5), valued by R4.2-R4.5.

    Returns ``(cards, target, value)`` triples: new melds (target ``-1``) and lay-offs onto
    table slot ``target``; ``cards`` is sorted by card id.

    The plays of one rank (pairs and sets) and of one suit (runs) depend only on the hand's
    cards of that rank or suit and the table melds they can join, so they come from small
    caches (:func:`_rank_plays`, :func:`_suit_run_plays`); the table's melds are indexed
    once per table (:func:`_table_index`).
    """
    h = np.asarray(hand)
    if h.dtype == np.int8 and h.size == NUM_CARDS:
        hb = h.tobytes()
        # per suit: bit r set if the hand holds rank r (bits), two copies of it (dups), looked
        # up from the "0"/"1" flags of ranks 2..K; bit 0, the ace, stays clear: aces never meld
        flags, flags2 = hb.translate(_PRESENT), hb.translate(_TWO_OR_MORE)
        bits = [_FLAG_BITS[flags[base + 1 : base + NUM_RANKS]] for base in _SUIT_BASES]
        dups = [_FLAG_BITS[flags2[base + 1 : base + NUM_RANKS]] for base in _SUIT_BASES]
        counts: Sequence[int] = hb  # only read for ranks the hand holds
    else:
        h = h.reshape(NUM_SUITS, NUM_RANKS)
        counts = h.reshape(-1).tolist()
        bits = [b & ~1 for b in ((h > 0) @ _POW2).tolist()]
        dups = [b & ~1 for b in ((h > 1) @ _POW2).tolist()]
    groups_at, runs_in, group_ranks = _table_index(tuple(melds))
    plays: list[Play] = []
    # pairs and sets, new or laid off: only ranks with two cards or more in hand, or with a
    # table group (a single card meets nothing else)
    b0, b1, b2, b3 = bits
    any_rank = b0 | b1 | b2 | b3
    two = b0 & b1 | b0 & b2 | b0 & b3 | b1 & b2 | b1 & b3 | b2 & b3 | dups[0] | dups[1] | dups[2] | dups[3]
    todo = any_rank & (two | group_ranks)
    while todo:
        low = todo & -todo
        todo ^= low
        r = low.bit_length() - 1
        code = counts[r] + 3 * counts[NUM_RANKS + r] + 9 * counts[2 * NUM_RANKS + r] + 27 * counts[3 * NUM_RANKS + r]
        plays.extend(_rank_plays(code, r, groups_at.get(r, ())))
    # runs, new or laid off
    for s in range(NUM_SUITS):
        m = bits[s]
        runs = runs_in.get(s, ())
        if runs or m & (m >> 1) & (m >> 2):
            plays.extend(_suit_run_plays(s, m, runs))
    # the four special melds
    for ranks, mask, suit_kind, colour_kind in (
        (ODD_RANKS, _ODD_MASK, ODDS_SUIT, ODDS_COLOUR),
        (EVEN_RANKS, _EVEN_MASK, EVENS_SUIT, EVENS_COLOUR),
    ):
        if any_rank & mask != mask:  # a rank of the six is missing in every suit
            continue
        for s in range(NUM_SUITS):
            if bits[s] & mask == mask:
                plays.append((tuple(s * NUM_RANKS + r for r in ranks), -1, SPECIAL_VALUES[suit_kind]))
        for a, b in COLOUR_SUITS:
            if (bits[a] | bits[b]) & mask != mask:
                continue
            options = [[s for s in (a, b) if bits[s] >> r & 1] for r in ranks]
            for combo in product(*options):
                if combo.count(combo[0]) == len(combo):
                    continue  # all one suit: the suit meld above
                cards = tuple(sorted(s * NUM_RANKS + r for s, r in zip(combo, ranks)))
                plays.append((cards, -1, SPECIAL_VALUES[colour_kind]))
    return plays


#: ``bytes.translate`` tables: an int8 count byte to b"1" if the count is positive (at
#: least 2), else b"0" (bytes 128-255 are negative counts).
_PRESENT = bytes(48 + (0 < i < 128) for i in range(256))
_TWO_OR_MORE = bytes(48 + (1 < i < 128) for i in range(256))
#: The card id of each suit's ace (the first card of the suit).
_SUIT_BASES = tuple(s * NUM_RANKS for s in range(NUM_SUITS))
#: The twelve "0"/"1" flags of ranks 2..K of a suit to the bit mask of those ranks (bit r: rank r).
_FLAG_BITS = {bytes(48 + (m >> r & 1) for r in range(1, NUM_RANKS)): m for m in range(0, 1 << NUM_RANKS, 2)}


@lru_cache(maxsize=4096)
def _table_index(
    melds: tuple[tuple[int, ...], ...],
) -> tuple[dict[int, tuple[tuple[int, int, int], ...]], dict[int, tuple[tuple[int, int, int, int], ...]], int]:
    """The table melds that cards may be laid off onto (cached per table).

    ``groups_at[rank]``: ``(slot, suit code, size)`` of each pair/set of that rank;
    ``runs_in[suit]``: ``(slot, low rank, high rank, size)`` of each run of that suit;
    both in slot order; and a bit mask of the ranks in ``groups_at``.
    """
    groups_at: dict[int, list[tuple[int, int, int]]] = {}
    runs_in: dict[int, list[tuple[int, int, int, int]]] = {}
    for k, cards in enumerate(melds):
        info = _meld_info(cards)
        if info is None:
            continue
        kind, key, a, b, n = info
        if kind == GROUP:
            groups_at.setdefault(key, []).append((k, a, n))
        else:
            runs_in.setdefault(key, []).append((k, a, b, n))
    return (
        {r: tuple(v) for r, v in groups_at.items()},
        {s: tuple(v) for s, v in runs_in.items()},
        sum(1 << r for r in groups_at),
    )


@lru_cache(maxsize=8192)
def _meld_info(cards: tuple[int, ...]) -> tuple[int, int, int, int, int] | None:
    """What :func:`_table_index` needs of a table meld (cached): ``(GROUP, rank, suit code,
    0, size)``, ``(RUN, suit, low rank, high rank, size)``, or ``None`` (a special meld)."""
    kind = meld_kind_cached(cards)
    if kind == GROUP:
        sc = [0, 0, 0, 0]
        for c in cards:
            sc[c // NUM_RANKS] += 1
        return GROUP, cards[0] % NUM_RANKS, _suit_code(sc), 0, len(cards)
    if kind == RUN:
        return RUN, cards[0] // NUM_RANKS, cards[0] % NUM_RANKS, cards[-1] % NUM_RANKS, len(cards)
    return None


@lru_cache(maxsize=65536)
def _rank_plays(hand_code: int, rank: int, tables: tuple[tuple[int, int, int], ...]) -> tuple[Play, ...]:
    """Pairs and sets of ``rank`` (the hand's cards of that rank coded base 3 per suit):
    new ones, and lay-offs onto the table groups ``tables`` of that rank (cached)."""
    plays: list[Play] = []
    for cards, m, a_code, new_ok in _group_options(hand_code, rank):
        if new_ok:
            plays.append((cards, -1, size_value(m)))
        for k, t_code, n in tables:
            if _GROUP_OK[t_code + a_code]:  # at most two copies of a card: no carries
                plays.append((cards, k, layoff_value(n, m)))
    return tuple(plays)


@lru_cache(maxsize=65536)
def _suit_run_plays(suit: int, m: int, runs: tuple[tuple[int, int, int, int], ...]) -> tuple[Play, ...]:
    """Runs of ``suit`` (``m``: bit r set if the hand holds rank r, aces cleared): new ones,
    and lay-offs onto the table runs ``runs`` of that suit (cached)."""
    plays: list[Play] = []
    base = suit * NUM_RANKS
    if m & (m >> 1) & (m >> 2):  # three consecutive ranks somewhere
        r = 1
        while r < NUM_RANKS:
            if not m >> r & 1:
                r += 1
                continue
            start = r
            while r < NUM_RANKS and m >> r & 1:
                r += 1
            end = r - 1  # maximal segment start..end present in hand
            for lo in range(start, end - 1):
                for hi in range(lo + 2, end + 1):
                    plays.append((tuple(range(base + lo, base + hi + 1)), -1, size_value(hi - lo + 1)))
    for k, lo, hi, n in runs:
        down = 0
        while lo - down - 1 >= 1 and m >> (lo - down - 1) & 1:
            down += 1
        up = 0
        while hi + up + 1 < NUM_RANKS and m >> (hi + up + 1) & 1:
            up += 1
        for d in range(down + 1):
            for u in range(up + 1):
                if d == 0 and u == 0:
                    continue
                cards = tuple(range(base + lo - d, base + lo)) + tuple(range(base + hi + 1, base + hi + u + 1))
                plays.append((cards, k, layoff_value(n, d + u)))
    return tuple(plays)


@cache
def _group_options(hand_code: int, rank: int) -> tuple[tuple[tuple[int, ...], int, int, bool], ...]:
    """Sub-multisets of the hand's cards of ``rank`` (per-suit counts coded base 3).

    Each is ``(cards, size, suit code, valid as a new pair/set)``.
    """
    hc = (hand_code % 3, hand_code // 3 % 3, hand_code // 9 % 3, hand_code // 27)
    out = []
    for a in _SUBS[hc]:
        cards = tuple(s * NUM_RANKS + rank for s in range(NUM_SUITS) for _ in range(a[s]))
        code = _suit_code(a)
        out.append((cards, len(cards), code, len(cards) >= 2 and bool(_GROUP_OK[code])))
    return tuple(out)


@lru_cache(maxsize=4096)
def meld_kind_cached(cards: tuple[int, ...]) -> int | None:
    """:func:`meld_kind` of a sorted card tuple (cached)."""
    return meld_kind(cards)


class Analysis:
    """Every legal play of one hand against one table, indexed lazily for the selection masks.

    :meth:`nexts` ``(prefix)`` are the cards that may be selected after the sorted selection
    ``prefix`` (the selection stays a prefix of some legal play in card-id order);
    :attr:`commits` ``[selection]`` maps each target (``-1`` new meld, ``k`` lay-off slot)
    that ``selection`` may be committed to, to the points it scores.
    """

    __slots__ = ("plays", "_nexts", "_commits")

    def __init__(self, plays: list[Play]) -> None:
        self.plays = plays
        self._nexts: dict[tuple[int, ...], tuple[int, ...]] = {}
        self._commits: dict[tuple[int, ...], dict[int, int]] | None = None

    def nexts(self, prefix: tuple[int, ...]) -> tuple[int, ...]:
        """Sorted cards that extend ``prefix`` towards some legal play."""
        got = self._nexts.get(prefix)
        if got is None:
            k = len(prefix)
            if k:
                found = {cards[k] for cards, _, _ in self.plays if len(cards) > k and cards[:k] == prefix}
            else:
                found = {cards[0] for cards, _, _ in self.plays}
            got = self._nexts[prefix] = tuple(sorted(found))
        return got

    @property
    def commits(self) -> dict[tuple[int, ...], dict[int, int]]:
        """``{cards: {target: points}}`` over every legal play."""
        if self._commits is None:
            commits: dict[tuple[int, ...], dict[int, int]] = {}
            for cards, target, value in self.plays:
                commits.setdefault(cards, {})[target] = value
            self._commits = commits
        return self._commits


@lru_cache(maxsize=8192)
def analyse(hand_bytes: bytes, table: tuple[tuple[int, ...], ...]) -> Analysis:
    """Cached :class:`Analysis` of a hand (``int8`` count vector as bytes) against a table."""
    hand = np.frombuffer(hand_bytes, dtype=np.int8)
    return Analysis(enumerate_plays(hand, table))


# ---------------------------------------------------------------------------- best play-out
#: States the branch-and-bound play-out search (:func:`best_playout`) may expand for one hand before
#: the integer program (:func:`_integer_program_playout`) takes over; both are exact, so this only
#: decides which of them answers. Hands of real play with the usual players need at most about 1,200
#: states; hands of 45-52 cards (two decks, two players who rarely meld) may need 100,000 and more.
PLAYOUT_SEARCH_BUDGET = 4_000

#: A search score is ``points * _CARD_SLOTS + cards played``: comparing scores compares the
#: points, then the cards played (R6.4); 128 exceeds the 96 non-ace cards of two decks.
_CARD_SLOTS = 128
#: lcm(1, ..., 12): every play has 2-12 cards, so a play's score shared equally among its
#: cards is a whole number once multiplied by this.
_SHARE_SCALE = 27720


def _rank_major(card: int) -> int:
    return (card % NUM_RANKS) * NUM_SUITS + card // NUM_RANKS


def best_playout(hand: np.ndarray, melds: Sequence[tuple[int, ...]]) -> tuple[int, int]:
    """The best play-out of ``hand`` against ``melds``: ``(points, cards_played)``, exact for any hand.

    The end-of-hand penalty's play-out (``docs/rules/iceberg_rummy.md`` R4.6.1, R6.4, I12):
    the most points, then the most cards, that plays from ``hand`` onto the table could
    still score. A memoised branch-and-bound search answers most hands in a few
    milliseconds; a hand that needs more than :data:`PLAYOUT_SEARCH_BUDGET` search states is
    solved as an integer program instead (:func:`_integer_program_playout`). Both are exact.

    **Model.** A play-out is a set of plays from :func:`enumerate_plays` (of the whole hand
    against the final table) whose cards together fit in the hand, with at most one
    lay-off per table meld; its score is the sum of the plays' values. This loses nothing
    against playing the real game move by move: a meld's validity depends only on its final
    cards (R3.4, R3.5, I2) and its value only on its final size (R4.2-R4.4, value
    ``size_value(n)`` telescopes over lay-offs), so several lay-offs onto one meld score and
    are legal exactly as one lay-off of all their cards, and a new meld with lay-offs onto
    it exactly as that meld laid whole; special melds take no lay-offs (I5).

    **Search.** Scores are ``points * 128 + cards`` (points first, R6.4). Cards linked by
    no play or table target are independent components, solved separately. Within one,
    the cards are ordered rank-major (all 2s, then all 3s, ...) and a state is the multiset
    ``h`` of cards left with the set of table targets already used. Let ``c`` be the first
    card of ``h``. Every play of a play-out of ``h`` uses only cards of ``h``, so a play
    containing ``c`` has ``c`` as its first card. Hence either no play uses (this copy
    of) ``c`` — the rest is a play-out of ``h`` minus ``c`` — or exactly one play with first
    card ``c`` does, onto a free target, and the rest is a play-out of ``h`` minus its cards
    with its target used. The recurrence over these choices is exact; memoising it is
    exact because a state's value depends only on the state. Two merges keep the states
    few, and lose nothing:

    * *relevant targets*: every later play of the sub-search has its first card at or
      after ``c``; a table meld all of whose plays start before ``c`` can never be used
      again, so whether it was used is dropped from the memo key;
    * *branch and bound*: each card ``x`` gets ``share(x)``, the largest
      ``score / size`` over the plays that contain it (integral after scaling by
      ``lcm(1..12)``). A play-out's score is the sum, over the cards it plays, of their
      play's ``score / size``, which is at most ``share`` of the card; so the sum of
      ``share`` over ``h`` bounds from above the score of any play-out of ``h`` (the plays
      of a sub-state are a subset of the root's, so one table of shares serves all).
      Within a state the choices are tried in order of their bound; a choice whose bound
      (its play's score plus the shares of the cards left) is no better than the best
      choice found so far cannot win and is skipped, and so is every later one. Every
      choice that is explored is solved exactly, so each state's stored value is exact:
      the pruning never affects the memo.

    **Integer program.** The same model as a bounded integer program: one integer variable
    per play (how many times it is made: a new meld up to twice with two decks, a lay-off
    at most once), at most the hand's copies of each card, at most one lay-off per table
    meld, the total score maximised; solved to proven optimality by HiGHS
    (``scipy.optimize.milp``, relative gap 0). The score of an optimum is unique, and the
    solution is checked in integers, so the result is the same on any machine.
    """
    hand = np.asarray(hand)
    plays = enumerate_plays(hand, melds)
    if not plays:
        return 0, 0
    total = _search_playout(hand, melds, plays, PLAYOUT_SEARCH_BUDGET)
    if total is None:
        total = _integer_program_playout(hand, len(melds), plays)
    if total is None:  # pragma: no cover - HiGHS proves these small programs optimal
        total = _search_playout(hand, melds, plays, None)
        assert total is not None
    return total // _CARD_SLOTS, total % _CARD_SLOTS


def _search_playout(
    hand: np.ndarray, melds: Sequence[tuple[int, ...]], plays: list[Play], budget: int | None
) -> int | None:
    """The best play-out's score (``points * _CARD_SLOTS + cards``) by the branch-and-bound search of
    :func:`best_playout`, or ``None`` if it needs more than ``budget`` states (``None``: no limit)."""
    # independent components: cards linked by a common play or a common table target
    parent = list(range(NUM_CARDS + len(melds)))

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for cards, target, _ in plays:
        root = find(cards[0])
        for x in cards[1:]:
            parent[find(x)] = root
        if target >= 0:
            parent[find(NUM_CARDS + target)] = root
    by_min: dict[int, list[Play]] = {}
    for play in plays:
        by_min.setdefault(min(play[0], key=_rank_major), []).append(play)
    usable = {c for cards, _, _ in plays for c in cards}
    components: dict[int, list[int]] = {}
    for c in sorted(cards_of(hand), key=_rank_major):
        if c in usable:
            components.setdefault(find(c), []).append(c)
    left = [budget if budget is not None else 1 << 62]
    try:
        return sum(_search(comp, by_min, left) for comp in components.values())
    except _SearchTooBig:
        return None


def _integer_program_playout(hand: np.ndarray, num_targets: int, plays: list[Play]) -> int | None:
    """The best play-out's score (``points * _CARD_SLOTS + cards``) as an integer program (see
    :func:`best_playout`), or ``None`` if the solver does not prove an optimum."""
    from scipy.optimize import Bounds, LinearConstraint, milp
    from scipy.sparse import csr_matrix

    counts = np.asarray(hand, dtype=np.int64).reshape(-1)
    rows: list[int] = []
    cols: list[int] = []
    vals: list[int] = []
    upper = np.zeros(len(plays))
    score = np.zeros(len(plays), dtype=np.int64)
    for j, (cards, target, value) in enumerate(plays):
        need: dict[int, int] = {}
        for x in cards:
            need[x] = need.get(x, 0) + 1
        for x, k in need.items():
            rows.append(x)
            cols.append(j)
            vals.append(k)
        if target >= 0:
            rows.append(NUM_CARDS + target)
            cols.append(j)
            vals.append(1)
            upper[j] = 1
        else:
            upper[j] = min(int(counts[x]) // k for x, k in need.items())
        score[j] = value * _CARD_SLOTS + len(cards)
    matrix = csr_matrix((vals, (rows, cols)), shape=(NUM_CARDS + num_targets, len(plays)), dtype=np.float64)
    limits = np.concatenate([counts, np.ones(num_targets, dtype=np.int64)])
    result = milp(
        -score.astype(np.float64),
        constraints=LinearConstraint(matrix, -np.inf, limits.astype(np.float64)),
        integrality=np.ones(len(plays)),
        bounds=Bounds(0, upper),
        options={"mip_rel_gap": 0.0, "presolve": True},
    )
    if result.status != 0 or result.x is None:
        return None
    x = np.rint(result.x).astype(np.int64)
    used = matrix.astype(np.int64) @ x
    if (x < 0).any() or (x > upper).any() or (used > limits).any():
        return None
    return int(score @ x)


def _search(cards: list[int], by_min: dict[int, list[Play]], budget: list[int]) -> int:
    """The best score (``points * _CARD_SLOTS + cards``) of one component's play-out.

    ``cards``: the component's cards in rank-major order (duplicates repeated);
    ``by_min[c]``: the plays whose rank-major first card is ``c``; ``budget``: states left
    (shared by the components of one hand). See :func:`best_playout`.
    """
    firsts = sorted(set(cards), key=_rank_major)
    # share[c]: the most a card can bring, its equal share of the best-per-card play it is in
    share: dict[int, int] = {}
    last: dict[int, int] = {}  # table target -> the latest rank-major first card of a play onto it
    for c in firsts:
        for play_cards, target, value in by_min.get(c, ()):
            per_card = (value * _CARD_SLOTS + len(play_cards)) * _SHARE_SCALE // len(play_cards)
            for x in play_cards:
                if share.get(x, 0) < per_card:
                    share[x] = per_card
            if target >= 0:
                last[target] = max(last.get(target, -1), _rank_major(c))
    # the choices for the first card c of a state, most promising first: leave it unplayed
    # (None), or a play whose first card it is; ``loss`` is what the choice gives up of the
    # upper bound (bound of the choice = bound of the state - loss)
    choices: dict[int, list[tuple[int, tuple[int, ...] | None, int, int]]] = {}
    relevant: dict[int, int] = {}
    for c in firsts:
        opts: list[tuple[int, tuple[int, ...] | None, int, int]] = [(share[c], None, 0, 0)]
        for play_cards, target, value in by_min.get(c, ()):
            score = value * _CARD_SLOTS + len(play_cards)
            loss = sum(share[x] for x in play_cards) - score * _SHARE_SCALE
            opts.append((loss, play_cards, 1 << target if target >= 0 else 0, score))
        opts.sort(key=lambda o: o[0])
        choices[c] = opts
        p = _rank_major(c)
        relevant[c] = sum(1 << k for k, at in last.items() if at >= p)
    memo: dict[tuple[tuple[int, ...], int], int] = {}

    def rec(h: tuple[int, ...], used: int, bound: int) -> int:
        if not h:
            return 0
        c = h[0]
        used &= relevant[c]
        key = (h, used)
        got = memo.get(key)
        if got is not None:
            return got
        budget[0] -= 1
        if budget[0] < 0:
            raise _SearchTooBig
        best = -1
        for loss, play_cards, bit, score in choices[c]:
            if bound - loss <= best * _SHARE_SCALE:
                break  # this choice, and every later one, cannot beat the best found
            if play_cards is None:
                got = rec(h[1:], used, bound - loss)
            else:
                if used & bit:
                    continue
                rest = list(h)
                try:
                    for x in play_cards:
                        rest.remove(x)
                except ValueError:
                    continue
                got = score + rec(tuple(rest), used | bit, bound - loss - score * _SHARE_SCALE)
            if got > best:
                best = got
        memo[key] = best
        return best

    h = tuple(cards)
    return rec(h, 0, sum(share[x] for x in h))


class _SearchTooBig(Exception):
    pass
