"""Diceberg meld cards as data: the catalog file format, loading and validation.

A catalog is a JSON object ``{"name": ..., "cards": [card, ...]}``; each card is

.. code-block:: json

    {"id": "R3", "name": "Glacier Run", "deck": "main", "power": "reroll",
     "pattern": {"count": 4, "run": true}}

``deck`` is ``"starter"`` (always revealed) or ``"main"``; a main card needs a
``power`` (``"reroll"``, ``"discard"``, ``"take"`` or ``"clear"``) and the main deck is
split by power: one card of each power deck is revealed for a game. A starter card
may have a power too (the blank cards allow it) and may set ``"min_players"`` (the
5-player-only starter has ``5``). ``pattern`` is the pattern language of
:mod:`ice_envs.tip_of_the_diceberg.patterns`. ``text`` (optional) overrides the
generated description.

The default catalog ships as package data (``data/catalog.json``), found through
:mod:`importlib.resources`; a user's own catalog (the game's blank cards) is loaded
from a path with the env option ``catalog="path/to/file.json"`` or passed as a dict.

Rules: ``docs/rules/tip_of_the_diceberg.md`` R1.7 (which cards are revealed), R7.1
(the card format), R7.3 (custom catalogs and their validation), R7.4 (the default catalog).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cached_property, lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

from ice_envs.core.files import MAX_TEXT_BYTES, load_json, parse_json
from ice_envs.tip_of_the_diceberg.patterns import (
    DECK_MAX_NUMBER,
    NUM_SUITS,
    SUIT_FACES,
    SUITS,
    Pattern,
    WitnessBudgetExceeded,
    describe_pattern,
    find_meld,
    parse_pattern,
)

POWERS: tuple[str, ...] = ("reroll", "discard", "take", "clear")
POWER_NONE = ""
DECKS = ("starter", "main")
#: Largest number of cards a catalog may hold (the observation one-hot of a slot's card).
MAX_CATALOG = 64
#: Most Diceberg slots in a game (starters for the player count + one per power deck).
MAX_SLOTS = 12
_CARD_KEYS = ("id", "name", "deck", "power", "min_players", "pattern", "text")
DEFAULT_CATALOG_FILE = "catalog.json"
EXAMPLE_CATALOG_FILE = "example_custom_catalog.json"


@dataclass(frozen=True)
class MeldCard:
    """One Diceberg meld card."""

    id: str
    name: str
    deck: str
    power: str
    min_players: int
    pattern: Pattern
    text: str

    def __deepcopy__(self, memo: dict) -> MeldCard:
        return self  # immutable

    def label(self) -> str:
        """``"R3 Glacier Run (reroll)"``."""
        return f"{self.id} {self.name}" + (f" ({self.power})" if self.power else "")


@dataclass(frozen=True)
class Catalog:
    """A named, validated tuple of meld cards."""

    name: str
    cards: tuple[MeldCard, ...]

    def __deepcopy__(self, memo: dict) -> Catalog:
        return self  # immutable

    def __hash__(self) -> int:
        return self._hash

    @cached_property
    def _hash(self) -> int:
        return hash((self.name, self.cards))

    def __getstate__(self) -> dict[str, Any]:
        # the cached hash depends on the process's string-hash seed: never pickle it
        return {k: v for k, v in self.__dict__.items() if k != "_hash"}

    def index(self, card_id: str) -> int:
        """Catalog index of the card with id ``card_id``."""
        for i, card in enumerate(self.cards):
            if card.id == card_id:
                return i
        raise ValueError(f"catalog {self.name!r} has no card {card_id!r}; ids: {[c.id for c in self.cards]}")

    def starters(self, num_players: int) -> list[int]:
        """Indices of the starter cards revealed with ``num_players`` (R1.7)."""
        return [i for i, c in enumerate(self.cards) if c.deck == "starter" and c.min_players <= num_players]

    def power_deck(self, power: str) -> list[int]:
        """Indices of the main cards of one power deck (R1.7)."""
        return [i for i, c in enumerate(self.cards) if c.deck == "main" and c.power == power]

    def power_decks(self) -> list[str]:
        """The powers that have a non-empty main deck, in the order of :data:`POWERS`."""
        return [p for p in POWERS if self.power_deck(p)]


def parse_card(data: Any, where: str) -> MeldCard:
    """One card object; errors name the card."""
    if not isinstance(data, dict):
        raise ValueError(f"{where}: a card must be an object, got {data!r}")
    unknown = sorted(set(data) - set(_CARD_KEYS))
    if unknown:
        raise ValueError(f"{where}: unknown key(s) {unknown}; known keys: {list(_CARD_KEYS)}")
    for key in ("id", "deck", "pattern"):
        if key not in data:
            raise ValueError(f"{where}: missing {key!r}")
    cid = data["id"]
    if not isinstance(cid, str) or not cid.strip():
        raise ValueError(f"{where}: 'id' must be a non-empty string")
    where = f"{where} ({cid})"
    deck = data["deck"]
    if deck not in DECKS:
        raise ValueError(f"{where}: 'deck' must be one of {list(DECKS)}, got {deck!r}")
    power = data.get("power") or POWER_NONE
    if power and power not in POWERS:
        raise ValueError(f"{where}: 'power' must be one of {list(POWERS)} or null, got {power!r}")
    if deck == "main" and not power:
        raise ValueError(f"{where}: a main-deck card needs a 'power' (the main deck is split by power)")
    min_players = data.get("min_players", 3)
    if not isinstance(min_players, int) or not 3 <= min_players <= 5:
        raise ValueError(f"{where}: 'min_players' must be 3, 4 or 5, got {min_players!r}")
    if deck == "main" and min_players != 3:
        raise ValueError(f"{where}: only starter cards may set 'min_players'")
    try:
        pattern = parse_pattern(data["pattern"])
    except ValueError as exc:
        raise ValueError(f"{where}: {exc}") from None
    name = str(data.get("name") or cid)
    text = str(data.get("text") or describe_pattern(pattern))
    return MeldCard(cid, name, deck, power, min_players, pattern, text)


def parse_catalog(data: Any, source: str = "catalog") -> Catalog:
    """Validate a catalog object (``{"name", "cards"}`` or a bare list of cards)."""
    if isinstance(data, list):
        data = {"name": source, "cards": data}
    if not isinstance(data, dict) or not isinstance(data.get("cards"), list):
        raise ValueError(f"{source}: a catalog is an object with a 'cards' list")
    unknown = sorted(set(data) - {"name", "cards", "description"})
    if unknown:
        raise ValueError(f"{source}: unknown catalog key(s) {unknown}")
    cards = tuple(parse_card(c, f"{source}: card {i}") for i, c in enumerate(data["cards"]))
    ids = [c.id for c in cards]
    dup = sorted({i for i in ids if ids.count(i) > 1})
    if dup:
        raise ValueError(f"{source}: duplicate card id(s) {dup}")
    if len(cards) > MAX_CATALOG:
        raise ValueError(f"{source}: {len(cards)} cards; a catalog holds at most {MAX_CATALOG}")
    for card in cards:
        _check_fillable(card, source, range(card.min_players, 6))
    catalog = Catalog(str(data.get("name") or source), cards)
    problems = [slot_count_problem(catalog, n) for n in (3, 4, 5)]
    if all(problems):  # the env checks its own player count (check_playable)
        raise ValueError(f"{source}: no player count can use it: " + "; ".join(problems))
    return catalog


def slot_count_problem(catalog: Catalog, num_players: int) -> str:
    """Why a ``num_players`` game of ``catalog`` has no valid set of slots (R1.7, R7.3), or ``""``."""
    slots = len(catalog.starters(num_players)) + len(catalog.power_decks())
    if slots == 0:
        return f"no Diceberg card would be revealed with {num_players} players"
    if slots > MAX_SLOTS:
        return f"{slots} Diceberg slots with {num_players} players; at most {MAX_SLOTS}"
    return ""


def _check_fillable(card: MeldCard, source: str, counts: range) -> None:
    """R7.3.1: a card's pattern must be fillable with some player count of ``counts``."""
    unproved = False
    for n in counts:
        try:
            if find_meld(card.pattern, n) is not None:
                return
        except WitnessBudgetExceeded:
            unproved = True
    why = "cannot be shown to be fillable (the search gave up)" if unproved else "can never be filled"
    players = f"{counts[0]} players" if len(counts) == 1 else f"{counts[0]}-{counts[-1]} players"
    raise ValueError(
        f"{source}: card {card.id}: pattern {card.text!r} {why} with {players} "
        "(not enough items of the deck and dice fit it)"
    )


def item_text(suit: int, number: int, is_die: bool) -> str:
    """``"card d20:17"`` or ``"a d20 die showing 17"``."""
    return f"a {SUITS[suit]} die showing {number}" if is_die else f"card {SUITS[suit]}:{number}"


def _accepts(card: MeldCard, num_players: int, item: tuple[int, int, bool]) -> bool:
    """Whether ``card`` takes ``item`` in a meld whose other items are dice (R7.3.2)."""
    p = card.pattern
    s, v, d = item
    if (
        p.count_min <= 1
        and p.allows_item(s, v)
        and p.sum_min <= v <= p.sum_max
        and p.dice_min <= int(d) <= p.dice_max
        and p.cards_min <= 1 - int(d) <= p.cards_max
    ):
        return True  # the item alone is a meld
    # the item and dice only: no card but the item itself (a die: no card at all)
    with_dice = replace(p, cards_max=min(p.cards_max, 0 if d else 1))
    try:
        return find_meld(with_dice, num_players, must=item) is not None
    except WitnessBudgetExceeded:
        return False  # not shown playable: counts as unplayable (the check stays sound)


@lru_cache(maxsize=64)
def unplayable_items(catalog: Catalog, num_players: int, main_cards: tuple[str, ...] = ()) -> list[str]:
    """The items of a ``num_players`` game that some deal of the meld cards leaves unplayable (R7.3.2).

    An item — a card of the reduced deck (R1.3) or a die in the game (R1.5) showing any of
    its faces — is safe if a starter card revealed with ``num_players`` accepts it, or if
    every card that may be revealed from some power deck (the one named in ``main_cards``,
    else any card of the deck) accepts it: then whatever is revealed, some slot takes it.
    A card accepts an item if it takes it in a meld whose other items are dice
    (:func:`~ice_envs.tip_of_the_diceberg.patterns.find_meld` over the item and the game's
    dice, any faces): cards are dealt and never drawn, so the last card a player holds can
    only go out with dice beside it, and a player left with dice only plays them with dice
    (more can be taken from the pool). A player left holding an item no slot takes so could
    never go out, and the round might never end.
    """
    fixed = {catalog.cards[catalog.index(cid)].power: catalog.index(cid) for cid in main_cards}
    starters = [catalog.cards[i] for i in catalog.starters(num_players)]
    decks = [
        [catalog.cards[fixed[power]]] if power in fixed else [catalog.cards[i] for i in catalog.power_deck(power)]
        for power in catalog.power_decks()
    ]
    limit = DECK_MAX_NUMBER[num_players]
    out = []
    for d in (False, True):
        for s in range(NUM_SUITS):
            for v in range(1, (SUIT_FACES[s] if d else min(SUIT_FACES[s], limit)) + 1):
                item = (s, v, d)
                if any(_accepts(c, num_players, item) for c in starters):
                    continue
                if any(all(_accepts(c, num_players, item) for c in deck) for deck in decks):
                    continue
                out.append(item_text(*item))
    return out


def revealable_cards(catalog: Catalog, num_players: int, main_cards: tuple[str, ...] = ()) -> list[MeldCard]:
    """Every card that may be revealed in a ``num_players`` game (R1.7): its starters and, per power
    deck, the card named in ``main_cards`` or else every card of the deck."""
    fixed = {catalog.cards[catalog.index(cid)].power for cid in main_cards}
    out = [catalog.cards[i] for i in catalog.starters(num_players)]
    out.extend(catalog.cards[catalog.index(cid)] for cid in main_cards)
    out.extend(catalog.cards[i] for p in catalog.power_decks() if p not in fixed for i in catalog.power_deck(p))
    return out


def check_playable(catalog: Catalog, num_players: int, main_cards: tuple[str, ...] = ()) -> None:
    """Raise ``ValueError`` unless ``catalog`` suits a ``num_players`` game (R7.3): its slot count (R1.7),
    every card that may be revealed fillable with that many players (R7.3.1), and no item that
    :func:`unplayable_items` finds (R7.3.2, naming the first)."""
    problem = slot_count_problem(catalog, num_players)
    if problem:
        raise ValueError(f"catalog {catalog.name!r}: {problem}")
    for card in revealable_cards(catalog, num_players, tuple(main_cards)):
        _check_fillable(card, f"catalog {catalog.name!r}", range(num_players, num_players + 1))
    bad = unplayable_items(catalog, num_players, tuple(main_cards))
    if bad:
        more = f" (and {len(bad) - 1} more)" if len(bad) > 1 else ""
        raise ValueError(
            f"catalog {catalog.name!r}: {bad[0]}{more} can never be played with {num_players} players "
            "whatever meld cards are revealed, with only dice beside it (as the last item of a hand: cards "
            "are never drawn); a player holding it could never go out"
        )


def load_catalog(source: str | Path | dict | list | Catalog | None = None) -> Catalog:
    """The default catalog (``None`` / ``"default"``), a catalog file path, or inline data."""
    if source is None or source == "default":
        return default_catalog()
    if isinstance(source, Catalog):
        return source
    if isinstance(source, (dict, list)):
        return parse_catalog(source, "catalog")
    if isinstance(source, (str, Path)):
        path = Path(source)
        if not path.exists():
            raise ValueError(f"catalog file {str(source)!r} does not exist")
        if not path.is_file():  # a directory, /dev/zero, a FIFO: refused by the safe reader, naming it
            load_json(path, what="catalog file")
        info = path.stat()
        return _load_file(str(path.resolve()), info.st_mtime_ns, info.st_size)
    raise ValueError(f"catalog must be None, 'default', a path or catalog data, got {type(source).__name__}")


@lru_cache(maxsize=16)
def _load_file(path: str, mtime_ns: int, size: int) -> Catalog:
    """Parse a catalog file (cached per path, modification time and size).

    Read through :mod:`ice_envs.core.files`: a regular file of at most 1 MiB, UTF-8 with or
    without a byte-order mark, JSON nested at most 32 levels; errors name the file and line.
    """
    data = load_json(path, what="catalog file", max_bytes=MAX_TEXT_BYTES)
    return parse_catalog(data, Path(path).name)


def _package_data(name: str) -> str:
    return resources.files("ice_envs.tip_of_the_diceberg").joinpath("data").joinpath(name).read_text(encoding="utf-8")


@lru_cache(maxsize=1)
def default_catalog() -> Catalog:
    """The shipped catalog: 7 starter cards (one 5-player only) and 25 main cards (R7.4)."""
    data = parse_json(_package_data(DEFAULT_CATALOG_FILE), what="catalog file", source=DEFAULT_CATALOG_FILE)
    return parse_catalog(data, "default")


def example_catalog_path() -> str:
    """Filesystem path of the small example custom catalog shipped with the package."""
    return str(resources.files("ice_envs.tip_of_the_diceberg").joinpath("data").joinpath(EXAMPLE_CATALOG_FILE))
