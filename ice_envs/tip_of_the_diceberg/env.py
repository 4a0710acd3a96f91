"""
# Tip of the Diceberg

| Import             | `from ice_envs import tip_of_the_diceberg_v1`       |
|--------------------|-----------------------------------------------------|
| Actions            | Discrete                                            |
| Parallel API       | No                                                  |
| Manual Control     | `ice-envs play tip_of_the_diceberg`               |
| Agents             | `agents= ['player_0', ..., 'player_{n-1}']`         |
| Agents             | 3-5                                                 |
| Action Shape       | Discrete(225)                                       |
| Action Values      | Discrete(225)                                       |
| Observation Shape  | (3023,)                                             |
| Observation Values | [0, 1]                                              |

Shed your cards and dice by playing melds to the revealed Diceberg cards. The dice
deck has six suits named by die type (d4 1-4 ... d20 1-20); dice drafted from a
communal pool count as cards of their type showing their number. Each Diceberg card
is a slot that takes one meld per trick; its pattern (pairs, runs, flushes, sums ...)
is data from a catalog, and main cards give a power (reroll, discard, take, clear).
Going out scores 3/2/1; three rounds; most points wins. Rules and every
interpretation: `docs/rules/tip_of_the_diceberg.md`.

## Arguments

``` python
tip_of_the_diceberg_v1.env(num_players=4, catalog=None, num_rounds=3, main_cards=None,
                           start_player=None, compulsory_powers=False, render_mode=None,
                           illegal_action="raise", reward_mode="outcome", max_cycles=None)
```

`num_players`: 3-5. `catalog`: `None` (the default catalog of 7 starter and 25 main
cards), a path to a catalog JSON file (your own "blank cards"), or the catalog as a
dict. `num_rounds`: rounds in a game (3). `main_cards`: ids of main cards to reveal
instead of drawing one per power deck (e.g. `["R3", "D1", "T2", "C4"]`; decks not named
are drawn). `start_player`: seat that starts the first round (`None`: drawn).
`compulsory_powers`: `False` (default): the take, discard and reroll powers may be
declined; `True`: each must be used when it can act (no decline action; rules page R2.9).
`render_mode`: `"ansi"`, `"rgb_array"`, `"human"`. `illegal_action`: `"raise"` or
`"penalize"`. `reward_mode`: `"outcome"` or `"score"`. `max_cycles`: truncate after
`max_cycles * num_players` decisions.

`reset(seed, options)` accepts `options={"start_player": k, "hands": [[card, ...], ...],
"dice": [[die, ...], ...], "pool": [die, ...]}` to start from a given position: cards
are ids or names like `"d8:7"`, dice are names like `"d6:4"`; giving `dice` skips the
draft; giving `pool` leaves every other die out of the game.

## Observation Space

A dict with `"observation"` (float32, shape (3023,), in [0, 1]) and `"action_mask"`
(int8, shape (225,)). The observation is from the observing player's seat; seats are
in relative order (self, the next player clockwise, ...). Cards are indexed 0-59 (d4
1-4, d6 1-6, d8 1-8, d10 1-10, d12 1-12, d20 1-20); dice by slot 0-17 (three of each
type in the same suit order). The pieces, in order (`layout_for(config)` declares them;
a test keeps this table equal to it):

| Piece             | Offsets   | Size          | Range  | Meaning                                                                                                               |
|-------------------|-----------|---------------|--------|-----------------------------------------------------------------------------------------------------------------------|
| `hand`            | 0-59      | 60            | [0, 1] | own hand                                                                                                              |
| `table`           | 60-119    | 60            | [0, 1] | cards on the Diceberg slots this trick                                                                                |
| `removed`         | 120-179   | 60            | [0, 1] | cards out of the round (cleared tricks, discards)                                                                     |
| `die_values`      | 180-539   | 360 (18x20)   | [0, 1] | per die: its value v one-hot (column v - 1)                                                                           |
| `die_locations`   | 540-683   | 144 (18x8)    | [0, 1] | per die: own, pool, on a slot, seat +1, +2, +3, +4, not in game                                                       |
| `slots`           | 684-1883  | 1200 (12x100) | [0, 1] | the Diceberg slots (row below)                                                                                        |
| `seats`           | 1884-1938 | 55 (5x11)     | [0, 1] | per relative seat (row below)                                                                                         |
| `round`           | 1939      | 1             | [0, 1] | round / rounds                                                                                                        |
| `last_round`      | 1940      | 1             | [0, 1] | last round                                                                                                            |
| `phase`           | 1941-1947 | 7             | [0, 1] | phase: draft, lead (nothing played this trick), play, composing a meld (own), take power, discard power, reroll power |
| `selection`       | 1948-2025 | 78            | [0, 1] | own meld being composed: cards 0-59, dice 60-77                                                                       |
| `marks`           | 2026-2043 | 18            | [0, 1] | own dice marked for the reroll power                                                                                  |
| `passes`          | 2044      | 1             | [0, 1] | passes in succession / players                                                                                        |
| `pool`            | 2045      | 1             | [0, 1] | pool dice / 18                                                                                                        |
| `draft_left`      | 2046      | 1             | [0, 1] | draft picks left / 10                                                                                                 |
| `slot_melds`      | 2047-2982 | 936 (12x78)   | [0, 1] | per slot: the meld on it this trick, cards 0-59, dice 60-77                                                           |
| `past_out_orders` | 2983-3022 | 40 (2x5x4)    | [0, 1] | per finished round (latest first), per relative seat: went out 1st, 2nd, 3rd, stayed in                               |

A row of `slots` (100 values): 0 present, 1 taken this trick, 2-6 taken by relative
seat, 7-11 power (none, reroll, discard, take, clear), 12-35 pattern features, 36-99
catalog card one-hot. A row of `seats` (11 values): 0 present, 1 cards / 12, 2 dice /
18, 3 points / (3 x rounds), 4 out this round, 5-7 went out 1st / 2nd / 3rd, 8 to act,
9 played last this trick, 10 passed since the last play.

Pattern features per slot: count min / 8, count max / 8, same number, same suit,
distinct numbers, distinct suits, run, sum min / 160, sum max / 160, value min / 20,
value max / 20, all even, all odd, parity alike, allowed suits (6), dice min / 8,
dice max / 8, cards min / 8, cards max / 8.

`slot_melds` shows which meld lies on which slot (the `table` piece merges the cards of
all slots; a die on a slot shows its value in `die_values`). `past_out_orders` gives the
order in which players went out in the latest two finished rounds (row 0 the previous
round; rows of rounds not played yet are zero; older rounds only count through the
points): the start player of a round and the game's tie-break read the previous round.

Other players' hands and the undealt cards are hidden; so is the meld another player
is composing (it appears when played). All dice are public.

## Action Space

| Action  | Meaning                                                                |
|---------|------------------------------------------------------------------------|
| 0-59    | add card `a` to the meld being composed                                |
| 60-77   | add own die `a - 60` to the meld                                       |
| 78-89   | play the composed meld to slot `a - 78`                                |
| 90      | pass                                                                   |
| 91-108  | pass and take pool die `a - 91`                                        |
| 109-126 | draft pool die `a - 109`                                               |
| 127-144 | take power: take pool die `a - 127`                                    |
| 145-204 | discard power: discard card `a - 145` out of the round                 |
| 205-222 | reroll power: mark own die `a - 205`                                   |
| 223     | reroll power: re-roll the marked dice                                  |
| 224     | decline the power                                                      |

A meld is composed in increasing item order (cards, then dice by slot) and the mask
admits only items that keep it completable to a legal meld for some open slot, so
every composition ends in a play; every legal meld to every open slot is reachable
exactly once (identical dice are taken in slot order; of identical pool dice only
the lowest slot is offered).

## Rewards

`reward_mode="outcome"`: at the end of the game the winner (most points; ties to the
earliest finisher of the last round) gets +1 and everyone else -1; players still tied
after that all get +1. `reward_mode="score"`: the points as they are earned (3, 2, 1
for going out first, second, third in a round).

## Version History

* v1: the option `compulsory_powers` (default `False`, the v0 rules); the observation
  pieces `slot_melds` (which meld lies on which slot) and `past_out_orders` (the latest
  finished rounds' out-orders) appended after the v0 pieces, which are unchanged. Fix: a
  die taken could be offered alone on a card of a custom catalog that allows no dice
  (`"dice": 0` with `"count"` 1); the shipped catalogs have no such card.
  Every env takes the base option `skip_forced` (apply single-action steps at once); default
  `False`, chosen on the learning curves of docs/training.md ("Forced steps").
* v0: Initial release (ice-envs 0.1.0).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium import spaces

from ice_envs.core.aec import IceAECEnv
from ice_envs.core.errors import OptionError
from ice_envs.core.layout import ObservationLayout, Piece
from ice_envs.core.options import check_flag, check_int
from ice_envs.core.wrapping import make_factories
from ice_envs.tip_of_the_diceberg import rules
from ice_envs.tip_of_the_diceberg.catalog import MAX_CATALOG, MAX_SLOTS, POWERS, Catalog, check_playable, load_catalog
from ice_envs.tip_of_the_diceberg.patterns import (
    ALL_SUITS_MASK,
    ITEM_DIE0,
    MAX_MELD,
    MAX_NUMBER,
    NO_SUM_MAX,
    NUM_CARDS,
    NUM_DICE,
    NUM_SUITS,
    PARITY_EVEN,
    PARITY_ODD,
    PARITY_SAME,
    SUIT_FACES,
    SUITS,
    Pattern,
    card_name,
    parse_card,
)
from ice_envs.tip_of_the_diceberg.spec import SPEC

MAX_SEATS = 5
DIE_LOC_SIZE = 8
PATTERN_FEATURES = 24
#: Width of a row of the ``slots`` piece (see the module docstring).
SLOT_SIZE = 2 + MAX_SEATS + 1 + len(POWERS) + PATTERN_FEATURES + MAX_CATALOG  # 100
#: Width of a row of the ``seats`` piece.
SEAT_SIZE = 11
NUM_PHASES = 7
#: Most rounds a game may be set to (``num_rounds``); the default is 3.
MAX_ROUNDS = 100
#: Finished rounds shown by ``past_out_orders``: the latest two (every earlier round of the default 3).
PAST_ROUNDS = 2
#: Columns of a seat in ``past_out_orders``: went out 1st, 2nd, 3rd (at most 3 go out, R5.1), stayed in.
PAST_PLACES = 4
#: Width of a row of ``slot_melds`` (and of ``selection``): cards 0-59, dice 60-77.
MELD_WIDTH = NUM_CARDS + NUM_DICE
#: Entries of each of the encoder's caches before it is emptied.
_ENCODE_CACHE_LIMIT = 512


def layout_for(config: rules.DicebergConfig) -> ObservationLayout:
    """The observation layout (the same for every configuration)."""
    return ObservationLayout(
        [
            Piece("hand", NUM_CARDS, 0, 1, "own hand"),
            Piece("table", NUM_CARDS, 0, 1, "cards on the Diceberg slots this trick"),
            Piece("removed", NUM_CARDS, 0, 1, "cards out of the round (cleared tricks, discards)"),
            Piece("die_values", (NUM_DICE, MAX_NUMBER), 0, 1, "per die: its value v one-hot (column v - 1)"),
            Piece(
                "die_locations",
                (NUM_DICE, DIE_LOC_SIZE),
                0,
                1,
                "per die: own, pool, on a slot, seat +1, +2, +3, +4, not in game",
            ),
            Piece("slots", (MAX_SLOTS, SLOT_SIZE), 0, 1, "the Diceberg slots (row below)"),
            Piece("seats", (MAX_SEATS, SEAT_SIZE), 0, 1, "per relative seat (row below)"),
            Piece("round", 1, 0, 1, "round / rounds"),
            Piece("last_round", 1, 0, 1, "last round"),
            Piece(
                "phase",
                NUM_PHASES,
                0,
                1,
                "phase: draft, lead (nothing played this trick), play, composing a meld (own), "
                "take power, discard power, reroll power",
            ),
            Piece("selection", NUM_CARDS + NUM_DICE, 0, 1, "own meld being composed: cards 0-59, dice 60-77"),
            Piece("marks", NUM_DICE, 0, 1, "own dice marked for the reroll power"),
            Piece("passes", 1, 0, 1, "passes in succession / players"),
            Piece("pool", 1, 0, 1, "pool dice / 18"),
            Piece("draft_left", 1, 0, 1, "draft picks left / 10"),
            # v1: appended, the pieces above keep their place and meaning
            Piece(
                "slot_melds",
                (MAX_SLOTS, MELD_WIDTH),
                0,
                1,
                "per slot: the meld on it this trick, cards 0-59, dice 60-77",
            ),
            Piece(
                "past_out_orders",
                (PAST_ROUNDS, MAX_SEATS, PAST_PLACES),
                0,
                1,
                "per finished round (latest first), per relative seat: went out 1st, 2nd, 3rd, stayed in",
            ),
        ]
    )


_LOC_CODES: dict[tuple[int, int], dict[int, int]] = {}


def _loc_codes(seat: int, n: int) -> dict[int, int]:
    """Location column by ``die_loc`` value as seen from ``seat``: own 0, pool 1, on a slot 2,
    relative seat +k at 2 + k, not in game 7 (cached per seat and player count)."""
    codes = _LOC_CODES.get((seat, n))
    if codes is None:
        codes = {rules.POOL: 1, rules.PLAYED: 2, rules.UNUSED: 7}
        for q in range(n):
            codes[q] = 0 if q == seat else 2 + (q - seat) % n
        _LOC_CODES[seat, n] = codes
    return codes


def pattern_features(p: Pattern) -> np.ndarray:
    """The 24 pattern features of a slot (see the observation table)."""
    f = [
        p.count_min / MAX_MELD,
        p.count_max / MAX_MELD,
        p.same_number,
        p.same_suit,
        p.distinct_numbers,
        p.distinct_suits,
        p.run,
        p.sum_min / NO_SUM_MAX,
        p.sum_max / NO_SUM_MAX,
        p.value_min / MAX_NUMBER,
        p.value_max / MAX_NUMBER,
        p.parity == PARITY_EVEN,
        p.parity == PARITY_ODD,
        p.parity == PARITY_SAME,
        *[(p.suits & ALL_SUITS_MASK) >> s & 1 for s in range(NUM_SUITS)],
        p.dice_min / MAX_MELD,
        min(p.dice_max, MAX_MELD) / MAX_MELD,
        p.cards_min / MAX_MELD,
        min(p.cards_max, MAX_MELD) / MAX_MELD,
    ]
    return np.asarray(f, dtype=np.float32)


def _remember(cache: dict, key: tuple, value: Any) -> Any:
    """Store ``value`` under ``key`` in one of the encoder's caches (emptied when full); returns it."""
    if len(cache) >= _ENCODE_CACHE_LIMIT:
        cache.clear()
    cache[key] = value
    return value


def _float32_row(width: int, ones: Sequence[int]) -> bytes:
    """The bytes of a float32 row of ``width`` zeros with 1.0 at the columns ``ones``."""
    row = np.zeros(width, dtype=np.float32)
    row[list(ones)] = 1.0
    return row.tobytes()


#: ``_VALUE_ROWS[v]``: the bytes of a ``die_values`` row for a die showing ``v`` (``v = 0``: all zero, the row
#: of a die not in the game). The dice block is joined from such rows: one write instead of index arrays.
_VALUE_ROWS = tuple(_float32_row(MAX_NUMBER, (v - 1,) if v else ()) for v in range(MAX_NUMBER + 1))


class TipOfTheDicebergEnv(IceAECEnv):
    """Tip of the Diceberg as a PettingZoo AEC env (see the module docstring)."""

    metadata = {**IceAECEnv.metadata, "name": SPEC.env_name}
    min_players = 3
    max_players = 5
    engine = rules
    reset_option_keys = ("start_player", "hands", "dice", "pool")
    #: Per round 20,000: 20x the longest heuristic game seen (350 decisions for 3 rounds) is 7,000, random
    #: play runs up to 9,902 (4 players) and its documented bound is 60,000 for 3 rounds
    #: (docs/rules/tip_of_the_diceberg.md).
    default_max_decisions = 60_000

    # The caches (:meth:`_caches`: created empty by the base class, left out of the saved state).
    _slot_cache: dict[tuple[int, ...], np.ndarray]
    _base_cache: dict[tuple[int, ...], np.ndarray]
    _misc_cache: dict[tuple[int, ...], np.ndarray]
    _removed_cache: dict[tuple[int, ...], np.ndarray]
    _past_cache: dict[tuple, list[int]]
    #: The deciding seat's last observation while it plays: ``(state, step, private copy)`` (the seat is
    #: that state's deciding seat at that step); a select (an item added to the meld being composed)
    #: patches it instead of a new encoding. Read it through :meth:`_kept_observation`.
    _play_memo: tuple[rules.DicebergState, int, np.ndarray] | None

    def _default_max_decisions(self) -> int:
        return 20_000 * self.config.num_rounds

    def __init__(
        self,
        num_players: int = 4,
        catalog: Any = None,
        num_rounds: int = 3,
        main_cards: Sequence[str] | None = None,
        start_player: int | None = None,
        compulsory_powers: bool = False,
        **common: Any,
    ) -> None:
        n = self.check_num_players(num_players)
        name = SPEC.env_name
        if catalog is not None and not isinstance(catalog, (str, os.PathLike, dict, list, Catalog)):
            raise OptionError(
                f"{name}: catalog must be None, 'default', a path or catalog data, got {type(catalog).__name__}"
            )
        try:
            cat = load_catalog(catalog)
        except ValueError as exc:
            raise OptionError(f"{name}: catalog: {exc}") from None
        rounds = check_int(name, "num_rounds", num_rounds, low=1, high=MAX_ROUNDS)
        start = check_int(name, "start_player", start_player, low=0, high=n - 1, allow_none=True)
        compulsory = check_flag(name, "compulsory_powers", compulsory_powers)
        if main_cards is not None and (isinstance(main_cards, str) or not isinstance(main_cards, (list, tuple))):
            raise OptionError(f"{name}: main_cards must be a list of card ids, got {main_cards!r}")
        ids = tuple(main_cards or ())
        for cid in ids:
            if not isinstance(cid, str):
                raise OptionError(f"{name}: main_cards must be card ids (strings), got {cid!r}")
            if cid not in {c.id for c in cat.cards}:
                raise OptionError(f"{name}: main_cards: catalog {cat.name!r} has no card {cid!r}")
        try:
            self.config = rules.DicebergConfig(
                num_players=n,
                catalog=cat,
                num_rounds=rounds,
                main_cards=ids,
                start_player=start,
                compulsory_powers=compulsory,
            )
        except ValueError as exc:
            raise OptionError(str(exc)) from None
        try:
            check_playable(cat, n, ids)
        except ValueError as exc:
            raise OptionError(f"{name}: catalog: {exc}") from None
        #: The observation layout; the encoder's offsets below are read from it once.
        self.obs_layout = lay = layout_for(self.config)
        super().__init__(n, **common)
        self._init_encoder(lay)

    def _caches(self) -> dict[str, Any]:
        """The base class's caches, the encoder's and the observation memo (:attr:`_play_memo`)."""
        return {
            **super()._caches(),
            "_slot_cache": {},
            "_base_cache": {},
            "_misc_cache": {},
            "_removed_cache": {},
            "_past_cache": {},
            "_play_memo": None,
        }

    def __setstate__(self, state: dict[str, Any]) -> None:
        """Restore a pickled or checkpointed env (see the base class), then lay the encoder out again from
        its configuration as this version of the code does: a checkpoint written by other code may hold
        tables laid out for that code's encoder."""
        super().__setstate__(state)
        self.obs_layout = layout_for(self.config)
        self._init_encoder(self.obs_layout)

    def _init_encoder(self, lay: ObservationLayout) -> None:
        """The observation size, the static slot block's place and the encoder's tables (:meth:`_init_encoder_tables`)."""
        self._obs_size = lay.size
        self._slots_slice = lay.slice("slots")
        self._init_encoder_tables(lay)

    def _init_encoder_tables(self, lay: ObservationLayout) -> None:
        """Offsets and per-seat index tables of :meth:`_encode`, read from the layout once."""
        n = self.num_players
        assert lay.offset("hand") == 0
        assert lay.offset("die_locations") == lay.offset("die_values") + lay.piece("die_values").size
        assert lay.offset("slots") == lay.offset("die_locations") + lay.piece("die_locations").size
        assert lay.offset("last_round") == lay.offset("round") + 1
        assert lay.offset("draft_left") == lay.offset("pool") + 1 == lay.offset("passes") + 2
        #: the offsets of :meth:`_encode`, in the order it unpacks them
        self._offsets = lay.offsets("table", "removed", "slots", "round", "phase", "selection", "marks", "passes")
        self._o_slot_melds, self._o_past = lay.offsets("slot_melds", "past_out_orders")
        o_values, o_slots, o_seats = lay.offsets("die_values", "slots", "seats")
        o_round, o_misc = lay.offsets("round", "passes")
        #: The dice block (``die_values`` then ``die_locations``), written at once from :data:`_VALUE_ROWS`
        #: and :attr:`_location_rows`.
        self._die_block = slice(o_values, o_slots)
        #: ``[seat][die_loc]``: the bytes of a ``die_locations`` row (``die_loc`` -3..-1 index from the end).
        self._location_rows: list[tuple[bytes, ...]] = []
        #: ``[seat][p]``: offset of the ``seats`` row of seat p.
        self._seat_rows = []
        #: ``[seat][k][p]``: the ones of "slot k taken this trick, by seat p".
        self._slot_taker = []
        #: ``[seat]``: where the dice held per seat and in the pool / 18 go (:meth:`_locations` order).
        self._count_at: list[np.ndarray] = []
        #: ``[seat]``: where the other values besides 0 / 1 go (:meth:`_misc_values` order).
        self._misc_at: list[np.ndarray] = []
        #: The locations whose dice the encoder counts (``_count_at`` order): each seat, then the pool.
        self._count_locs = (*range(n), rules.POOL)
        for seat in range(n):
            codes = _loc_codes(seat, n)
            order = [*range(n), rules.UNUSED, rules.PLAYED, rules.POOL]  # negative locations from the end
            self._location_rows.append(tuple(_float32_row(DIE_LOC_SIZE, (codes[loc],)) for loc in order))
            self._seat_rows.append(tuple(o_seats + SEAT_SIZE * ((p - seat) % n) for p in range(n)))
            rows = self._seat_rows[-1]
            self._count_at.append(np.array([rows[p] + 2 for p in range(n)] + [o_misc + 1], dtype=np.intp))
            misc = (
                [rows[p] + 1 for p in range(n)]  # cards / 12
                + [rows[p] + 3 for p in range(n)]  # points / (3 x rounds)
                + [o_round, o_misc, o_misc + 2]  # round, passes, draft_left
            )
            self._misc_at.append(np.array(misc, dtype=np.intp))
            self._slot_taker.append(
                [
                    tuple((o_slots + SLOT_SIZE * k + 1, o_slots + SLOT_SIZE * k + 2 + (p - seat) % n) for p in range(n))
                    for k in range(MAX_SLOTS)
                ]
            )

    # -- encoding
    def _num_actions(self) -> int:
        return rules.NUM_ACTIONS

    def _observation_box(self) -> spaces.Box:
        return self.obs_layout.box()

    def _static_slots(self, slots: list[int]) -> np.ndarray:
        """The parts of the slot block that are fixed for a game (present, power, pattern, card id)."""
        key = tuple(slots)
        block = self._slot_cache.get(key)
        if block is None:
            cards = self.config.catalog.cards
            block = np.zeros((MAX_SLOTS, SLOT_SIZE), dtype=np.float32)
            for k, idx in enumerate(slots):
                card = cards[idx]
                block[k, 0] = 1.0
                power_at = 2 + MAX_SEATS
                block[k, power_at + (POWERS.index(card.power) + 1 if card.power else 0)] = 1.0
                feat_at = power_at + 1 + len(POWERS)
                block[k, feat_at : feat_at + PATTERN_FEATURES] = pattern_features(card.pattern)
                block[k, feat_at + PATTERN_FEATURES + idx] = 1.0
            self._slot_cache[key] = block
        return block

    def _base_obs(self, slots: list[int]) -> np.ndarray:
        """A zero observation with the static slot block of ``slots`` and the seats present filled in
        (cached; copy before use)."""
        key = tuple(slots)
        base = self._base_cache.get(key)
        if base is None:
            base = np.zeros(self._obs_size, dtype=np.float32)
            base[self._slots_slice] = self._static_slots(slots).reshape(-1)
            o_seats = self.obs_layout.offset("seats")
            base[[o_seats + SEAT_SIZE * q for q in range(self.num_players)]] = 1.0  # present
            self._base_cache[key] = base
        return base

    def _encode(self, seat: int) -> np.ndarray:
        """The observation of ``seat`` (from :attr:`_play_memo` when that holds it, see :meth:`_apply_action`)."""
        s: rules.DicebergState = self.game_state
        if seat == s.current:
            kept = self._kept_observation()
            if kept is not None:
                return kept.copy()
        obs = self._encode_fresh(seat)
        if s.phase == rules.PHASE_PLAY and seat == s.current:
            self._play_memo = (s, self._num_steps, obs.copy())
        return obs

    def _kept_observation(self) -> np.ndarray | None:
        """The deciding seat's observation in :attr:`_play_memo`, if it is of this very state and step."""
        memo = self._play_memo
        if memo is not None and memo[0] is self.game_state and memo[1] == self._num_steps:
            return memo[2]
        return None

    def _encode_fresh(self, seat: int) -> np.ndarray:
        """The observation of ``seat``: the cached static part copied once, the dice block written from
        byte rows joined per die, then one write of every other 1.0 (indices gathered in plain Python from
        per-seat tables) and one write of each other value."""
        s: rules.DicebergState = self.game_state
        o_table, _, o_slots, o_round, o_phase, o_selection, o_marks, _ = self._offsets
        obs = self._base_obs(s.slots).copy()
        die_loc = s.die_loc
        if rules.UNUSED in die_loc:
            rows = [_VALUE_ROWS[0 if loc == rules.UNUSED else v] for v, loc in zip(s.die_value, die_loc)]
        else:
            rows = [_VALUE_ROWS[v] for v in s.die_value]
        at_loc = self._location_rows[seat]
        rows += [at_loc[loc] for loc in die_loc]
        obs[self._die_block] = np.frombuffer(b"".join(rows), dtype=np.float32)
        if s.removed:
            obs[self._removed_ones(s.removed)] = 1.0
        ones = list(s.hands[seat])  # the hand is the first piece (offset 0)
        if max(s.slot_player) >= 0:  # some slot is taken this trick
            taker = self._slot_taker[seat]
            for k, p in enumerate(s.slot_player):
                if p >= 0:
                    meld = s.slot_meld[k]
                    ones += taker[k][p]
                    at = self._o_slot_melds + MELD_WIDTH * k
                    ones += [at + it for it in meld]
                    ones += [o_table + it for it in meld if it < ITEM_DIE0]
        if s.history:
            ones += self._past_out_ones(s.history, seat)
        rows = self._seat_rows[seat]
        over = s.phase == rules.PHASE_OVER
        for k, p in enumerate(s.out_order):
            ones.append(rows[p] + 4)
            if k < 3:
                ones.append(rows[p] + 5 + k)
        if not over:
            ones.append(rows[s.current] + 8)
        if s.last_player >= 0:
            ones.append(rows[s.last_player] + 9)
        if s.passes and s.phase == rules.PHASE_PLAY:
            ones += [rows[p] + 10 for p in self._passed_seats(s)]
        if s.round + 1 == s.config.num_rounds:
            ones.append(o_round + 1)  # last_round
        if not over:
            phase = s.phase
            if phase == rules.PHASE_PLAY:
                if s.selection and seat == s.current:
                    ones.append(o_phase + 3)
                    ones += [o_selection + it for it in s.selection]
                else:
                    ones.append(o_phase + (1 if s.last_player < 0 else 2))
            elif phase == rules.PHASE_DRAFT:
                ones.append(o_phase)
            else:
                ones.append(o_phase + 4 + (phase - rules.PHASE_TAKE))
                if seat == s.current and s.marks:
                    ones += [o_marks + d for d in s.marks]
        obs.put(ones, 1.0)
        obs[self._count_at[seat]] = [die_loc.count(p) / NUM_DICE for p in self._count_locs]
        obs[self._misc_at[seat]] = self._misc_values(s)
        return obs

    def _misc_values(self, s: rules.DicebergState) -> np.ndarray:
        """Cards / 12 and points / (3 x rounds) per seat, round / rounds, passes / players and draft
        picks left / 10 (cached by the counts)."""
        key = (*map(len, s.hands), *s.points, s.round, s.passes, len(s.draft_order))
        hit = self._misc_cache.get(key)
        if hit is None:
            n = self.num_players
            top = 3.0 * s.config.num_rounds
            vals = [len(hand) / rules.HAND_SIZE for hand in s.hands]
            vals += [min(1.0, x / top) for x in s.points]
            vals += ((s.round + 1) / s.config.num_rounds, s.passes / n, len(s.draft_order) / (2 * MAX_SEATS))
            hit = _remember(self._misc_cache, key, np.array(vals, dtype=np.float32))
        return hit

    def _removed_ones(self, removed: list[int]) -> np.ndarray:
        """The indices of the ``removed`` ones (cached by the cards out of the round)."""
        key = tuple(removed)
        hit = self._removed_cache.get(key)
        if hit is None:
            hit = _remember(self._removed_cache, key, np.array(removed, dtype=np.intp) + self._offsets[1])
        return hit

    def _past_out_ones(self, history: list[list[int]], seat: int) -> list[int]:
        """Indices of the ones of ``past_out_orders`` as seen from ``seat``: the latest finished round
        first (cached by the rounds shown; do not modify)."""
        shown = history[-PAST_ROUNDS:]
        key = (seat, *map(tuple, shown))
        hit = self._past_cache.get(key)
        if hit is None:
            n = self.num_players
            hit = []
            for r, order in enumerate(reversed(shown)):
                row = self._o_past + r * MAX_SEATS * PAST_PLACES
                for p in range(n):
                    place = order.index(p) if p in order else PAST_PLACES - 1
                    hit.append(row + ((p - seat) % n) * PAST_PLACES + place)
            _remember(self._past_cache, key, hit)
        return hit

    @staticmethod
    def _passed_seats(s: rules.DicebergState) -> set[int]:
        """Seats that passed since the last play (the ``passes`` active seats before the one to act)."""
        out: set[int] = set()
        if s.phase != rules.PHASE_PLAY or not s.passes:
            return out
        n = s.config.num_players
        p = s.current
        while len(out) < s.passes:
            p = (p - 1) % n
            if p not in s.out_order:
                out.add(p)
            if p == s.current:
                break
        return out

    # -- engine
    def _position(self, options: dict[str, Any]) -> dict[str, Any]:
        """The position keys of ``reset(options=...)`` checked completely (R7.7) and in canonical form:
        card ids, ``(die type, value)`` pairs. Raises :class:`OptionError` naming the key."""
        name = SPEC.env_name
        n = self.num_players
        start = check_int(
            name, "reset option 'start_player'", options.get("start_player"), low=0, high=n - 1, allow_none=True
        )
        deck = set(rules.deck_cards(n))
        hands = options.get("hands")
        if hands is not None:
            hands = self._seat_lists("hands", hands)
            seen: set[int] = set()
            for p, hand in enumerate(hands):
                if len(hand) > rules.HAND_SIZE:
                    raise OptionError(
                        f"{name}: reset option 'hands': hand {p} has {len(hand)} cards, at most {rules.HAND_SIZE}"
                    )
                for i, c in enumerate(hand):
                    c = hand[i] = self._card_option(f"hands[{p}]", c)
                    if c not in deck:
                        raise OptionError(
                            f"{name}: reset option 'hands': card {card_name(c)} is not in the {n}-player deck"
                        )
                    if c in seen:
                        raise OptionError(f"{name}: reset option 'hands': card {card_name(c)} is dealt twice")
                    seen.add(c)
        dice = options.get("dice")
        if dice is not None:
            dice = [
                [self._die_option(f"dice[{p}]", x) for x in held]
                for p, held in enumerate(self._seat_lists("dice", dice))
            ]
        pool = options.get("pool")
        if pool is not None:
            if not isinstance(pool, (list, tuple)):
                raise OptionError(f"{name}: reset option 'pool' must be a list of dice like 'd6:4', got {pool!r}")
            pool = [self._die_option("pool", x) for x in pool]
        per_type = rules.DICE_PER_TYPE_FOR[n]
        given = [t for held in (dice or []) for t, _ in held] + [t for t, _ in (pool or [])]
        for t in range(NUM_SUITS):
            if given.count(t) > per_type:
                key = "dice" if dice is not None else "pool"
                raise OptionError(
                    f"{name}: reset option {key!r}: {given.count(t)} {SUITS[t]} dice given; "
                    f"a {n}-player game has {per_type} of each type (18 dice, R1.5)"
                )
        if pool is not None and dice is None and len(pool) < 2 * n:
            raise OptionError(
                f"{name}: reset option 'pool': the draft takes {2 * n} dice but the pool holds {len(pool)} "
                "(give 'dice' too to skip the draft)"
            )
        return {"start_player": start, "hands": hands, "dice": dice, "pool": pool}

    def _seat_lists(self, key: str, value: Any) -> list[list[Any]]:
        n = self.num_players
        if not isinstance(value, (list, tuple)) or len(value) != n:
            raise OptionError(f"{SPEC.env_name}: reset option {key!r} must be a list of {n} lists (one per seat)")
        for p, held in enumerate(value):
            if not isinstance(held, (list, tuple)):
                raise OptionError(
                    f"{SPEC.env_name}: reset option {key!r}: seat {p}'s entry must be a list, got {held!r}"
                )
        return [list(held) for held in value]

    @staticmethod
    def _card_option(where: str, value: Any) -> int:
        name = SPEC.env_name
        if isinstance(value, str):
            try:
                return parse_card(value)
            except ValueError as exc:
                raise OptionError(f"{name}: reset option {where}: {exc}") from None
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
            raise OptionError(
                f"{name}: reset option {where}: a card is an id 0-59 or a name like 'd8:7', got {value!r}"
            )
        if not 0 <= value < NUM_CARDS:
            raise OptionError(f"{name}: reset option {where}: card id {value} is not in 0..{NUM_CARDS - 1}")
        return int(value)

    @staticmethod
    def _die_option(where: str, value: Any) -> tuple[int, int]:
        """A die ``"d6:4"`` / ``"d6=4"`` / ``("d6", 4)`` / ``(1, 4)`` as ``(type, value)``, strictly."""
        name = SPEC.env_name
        bad = OptionError(f"{name}: reset option {where}: {value!r} is not a die like 'd6:4'")
        if isinstance(value, str):
            suit, sep, number = value.replace("=", ":").partition(":")
            if not sep or suit not in SUITS or not number.isdigit():
                raise bad
            t, v = SUITS.index(suit), int(number)
        elif isinstance(value, (list, tuple)) and len(value) == 2:
            t, v = value
            if isinstance(t, str) and t in SUITS:
                t = SUITS.index(t)
            for x in (t, v):
                if isinstance(x, (bool, np.bool_)) or not isinstance(x, (int, np.integer)):
                    raise bad
            t, v = int(t), int(v)
            if not 0 <= t < NUM_SUITS:
                raise bad
        else:
            raise bad
        if not 1 <= v <= SUIT_FACES[t]:
            raise OptionError(f"{name}: reset option {where}: a {SUITS[t]} die shows 1-{SUIT_FACES[t]}, got {v}")
        return t, v

    def _current_seat(self) -> int:
        return self.game_state.current

    def _apply_action(self, action: int) -> None:
        """Apply ``action``, which the base class has already checked against the mask of this
        state: the engine's own check (a second legal-action enumeration) is skipped.

        A select (an item added to the meld being composed, a third of random play's decisions)
        changes only the ``selection`` and ``phase`` pieces of the selecting seat's observation
        and nothing that another seat observes: the seat's last observation, if
        :attr:`_play_memo` holds it for this very state and step, is patched to match and stays
        valid for the next step. Any other action leaves the memo behind (its step no longer
        matches); a new state object (reset, ``set_state``, an assignment) never matches it.
        """
        s: rules.DicebergState = self.game_state
        obs = self._kept_observation() if action < rules.COMMIT and s.phase == rules.PHASE_PLAY else None
        if obs is not None:
            o_phase, o_selection = self._offsets[4], self._offsets[5]
            if not s.selection:  # the phase becomes "composing a meld (own)"
                obs[o_phase + (1 if s.last_player < 0 else 2)] = 0.0
                obs[o_phase + 3] = 1.0
            obs[o_selection + action] = 1.0
        rules.apply_legal(s, action, self.np_random)
        if obs is not None:
            self._play_memo = (s, self._num_steps + 1, obs)

    # -- text
    def _die_text(self, d: int) -> str:
        return f"die #{d} ({rules.die_name(d, self.game_state.die_value[d])})"

    def _describe(self, action: int) -> str:
        s: rules.DicebergState = self.game_state
        if action < rules.ADD_DIE:
            return f"add card {card_name(action)} to the meld"
        if action < rules.COMMIT:
            return f"add own {self._die_text(action - rules.ADD_DIE)} to the meld"
        if action < rules.PASS:
            k = action - rules.COMMIT
            if k >= len(s.slots):
                return f"play the meld to slot {k} (no such slot in this game)"
            meld = " ".join(rules.item_name(s, it) for it in s.selection) or "(empty)"
            card = rules.slot_card(s, k)
            return f"play {meld} to slot {k}: {card.label()} [{card.text}]"
        if action == rules.PASS:
            return "pass"
        if action < rules.DRAFT:
            return f"pass and take pool {self._die_text(action - rules.PASS_TAKE)}"
        if action < rules.TAKE:
            return f"draft pool {self._die_text(action - rules.DRAFT)}"
        if action < rules.DISCARD:
            return f"take power: take pool {self._die_text(action - rules.TAKE)}"
        if action < rules.MARK:
            return f"discard power: discard card {card_name(action - rules.DISCARD)} out of the round"
        if action < rules.REROLL:
            return f"reroll power: mark own {self._die_text(action - rules.MARK)} to re-roll"
        if action == rules.REROLL:
            marked = " ".join(rules.item_name(s, ITEM_DIE0 + d) for d in s.marks) or "nothing"
            return f"reroll power: re-roll {marked}"
        return "decline the power"

    def _render_text(self, viewer: int | None) -> str:
        s: rules.DicebergState = self.game_state
        n = self.num_players
        head = f"Tip of the Diceberg, {n} players, round {s.round + 1}/{s.config.num_rounds}, trick {s.tricks + 1}"
        if s.phase == rules.PHASE_OVER:
            head = (
                f"Tip of the Diceberg, {n} players — game over after {s.config.num_rounds} rounds; "
                f"winner: {', '.join(f'player_{p}' for p in s.winners)}"
            )
        else:
            head += f" — player_{s.current} is {rules.PHASE_NAMES[s.phase]}"
            if s.phase == rules.PHASE_PLAY and s.last_player < 0:
                head += " (lead)"
        pool = [rules.item_name(s, ITEM_DIE0 + d) for d in rules.pool_dice(s)]
        lines = [head, "Pool: " + (" ".join(pool) if pool else "(empty)"), "Diceberg slots:"]
        for k, idx in enumerate(s.slots):
            card = s.config.catalog.cards[idx]
            if s.slot_player[k] >= 0:
                meld = " ".join(rules.item_name(s, it) for it in s.slot_meld[k])
                status = f"taken by player_{s.slot_player[k]}: {meld}"
            else:
                status = "open"
            lines.append(f"  {k:2d} {card.label():30s} {card.text:52s} {status}")
        lines.append("Players:")
        for p in range(n):
            marker = ">" if p == s.current and s.phase != rules.PHASE_OVER else " "
            hand = s.hands[p]
            shown = " ".join(card_name(c) for c in hand) if viewer is None or viewer == p else "## " * len(hand)
            dice = " ".join(rules.item_name(s, ITEM_DIE0 + d) for d in rules.own_dice(s, p))
            status = ""
            if p in s.out_order:
                status = f"  OUT #{s.out_order.index(p) + 1}"
            lines.append(
                f"{marker} player_{p} {s.points[p]:2d} pts  {len(hand):2d} cards: {shown.strip():48s} dice: {dice}{status}"
            )
            if p == s.current and s.selection and (viewer is None or viewer == p):
                lines.append("    composing: " + " ".join(rules.item_name(s, it) for it in s.selection))
            if p == s.current and s.marks and (viewer is None or viewer == p):
                lines.append("    marked to re-roll: " + " ".join(rules.item_name(s, ITEM_DIE0 + d) for d in s.marks))
        if s.history:
            done = "; ".join(
                f"round {i + 1}: " + (", ".join(f"player_{p}" for p in order) or "nobody") + " out"
                for i, order in enumerate(s.history)
            )
            lines.append("Finished rounds: " + done)
        return "\n".join(lines)

    def _render_rgb(self, viewer: int | None) -> np.ndarray:
        from ice_envs.tip_of_the_diceberg.picture import draw

        return draw(self, viewer)

    def _render_svg(self, viewer: int | None) -> str:
        from ice_envs.tip_of_the_diceberg.picture import svg

        return svg(self, viewer)

    def _action_target(self, action: int) -> str | None:
        from ice_envs.tip_of_the_diceberg.picture import action_target

        return action_target(self, action)


env, raw_env = make_factories(TipOfTheDicebergEnv)
