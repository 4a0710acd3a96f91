"""
# Tip of the Diceberg

| Import             | `from ice_envs import tip_of_the_diceberg_v0`       |
|--------------------|-----------------------------------------------------|
| Actions            | Discrete                                            |
| Parallel API       | No                                                  |
| Manual Control     | `ice-envs play tip_of_the_diceberg`               |
| Agents             | `agents= ['player_0', ..., 'player_{n-1}']`         |
| Agents             | 3-5                                                 |
| Action Shape       | Discrete(225)                                       |
| Action Values      | Discrete(225)                                       |
| Observation Shape  | (2047,)                                             |
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
tip_of_the_diceberg_v0.env(num_players=4, catalog=None, num_rounds=3, main_cards=None,
                           start_player=None, render_mode=None, illegal_action="raise",
                           reward_mode="outcome", max_cycles=None)
```

`num_players`: 3-5. `catalog`: `None` (the default catalog of 7 starter and 25 main
cards), a path to a catalog JSON file (your own "blank cards"), or the catalog as a
dict. `num_rounds`: rounds in a game (3). `main_cards`: ids of main cards to reveal
instead of drawing one per power deck (e.g. `["R3", "D1", "T2", "C4"]`; decks not named
are drawn). `start_player`: seat that starts the first round (`None`: drawn).
`render_mode`: `"ansi"`, `"rgb_array"`, `"human"`. `illegal_action`: `"raise"` or
`"penalize"`. `reward_mode`: `"outcome"` or `"score"`. `max_cycles`: truncate after
`max_cycles * num_players` decisions.

`reset(seed, options)` accepts `options={"start_player": k, "hands": [[card, ...], ...],
"dice": [[die, ...], ...], "pool": [die, ...]}` to start from a given position: cards
are ids or names like `"d8:7"`, dice are names like `"d6:4"`; giving `dice` skips the
draft; giving `pool` leaves every other die out of the game.

## Observation Space

A dict with `"observation"` (float32, shape (2047,), in [0, 1]) and `"action_mask"`
(int8, shape (225,)). The observation is from the observing player's seat; seats are
in relative order (self, the next player clockwise, ...). Cards are indexed 0-59 (d4
1-4, d6 1-6, d8 1-8, d10 1-10, d12 1-12, d20 1-20); dice by slot 0-17 (three of each
type in the same suit order). The pieces, in order (`layout_for(config)` declares them;
a test keeps this table equal to it):

| Piece           | Offsets   | Size          | Range  | Meaning                                                                                                               |
|-----------------|-----------|---------------|--------|-----------------------------------------------------------------------------------------------------------------------|
| `hand`          | 0-59      | 60            | [0, 1] | own hand                                                                                                              |
| `table`         | 60-119    | 60            | [0, 1] | cards on the Diceberg slots this trick                                                                                |
| `removed`       | 120-179   | 60            | [0, 1] | cards out of the round (cleared tricks, discards)                                                                     |
| `die_values`    | 180-539   | 360 (18x20)   | [0, 1] | per die: its value v one-hot (column v - 1)                                                                           |
| `die_locations` | 540-683   | 144 (18x8)    | [0, 1] | per die: own, pool, on a slot, seat +1, +2, +3, +4, not in game                                                       |
| `slots`         | 684-1883  | 1200 (12x100) | [0, 1] | the Diceberg slots (row below)                                                                                        |
| `seats`         | 1884-1938 | 55 (5x11)     | [0, 1] | per relative seat (row below)                                                                                         |
| `round`         | 1939      | 1             | [0, 1] | round / rounds                                                                                                        |
| `last_round`    | 1940      | 1             | [0, 1] | last round                                                                                                            |
| `phase`         | 1941-1947 | 7             | [0, 1] | phase: draft, lead (nothing played this trick), play, composing a meld (own), take power, discard power, reroll power |
| `selection`     | 1948-2025 | 78            | [0, 1] | own meld being composed: cards 0-59, dice 60-77                                                                       |
| `marks`         | 2026-2043 | 18            | [0, 1] | own dice marked for the reroll power                                                                                  |
| `passes`        | 2044      | 1             | [0, 1] | passes in succession / players                                                                                        |
| `pool`          | 2045      | 1             | [0, 1] | pool dice / 18                                                                                                        |
| `draft_left`    | 2046      | 1             | [0, 1] | draft picks left / 10                                                                                                 |

A row of `slots` (100 values): 0 present, 1 taken this trick, 2-6 taken by relative
seat, 7-11 power (none, reroll, discard, take, clear), 12-35 pattern features, 36-99
catalog card one-hot. A row of `seats` (11 values): 0 present, 1 cards / 12, 2 dice /
18, 3 points / (3 x rounds), 4 out this round, 5-7 went out 1st / 2nd / 3rd, 8 to act,
9 played last this trick, 10 passed since the last play.

Pattern features per slot: count min / 8, count max / 8, same number, same suit,
distinct numbers, distinct suits, run, sum min / 160, sum max / 160, value min / 20,
value max / 20, all even, all odd, parity alike, allowed suits (6), dice min / 8,
dice max / 8, cards min / 8, cards max / 8.

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
from ice_envs.core.options import check_int
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

    def _default_max_decisions(self) -> int:
        return 20_000 * self.config.num_rounds

    def __init__(
        self,
        num_players: int = 4,
        catalog: Any = None,
        num_rounds: int = 3,
        main_cards: Sequence[str] | None = None,
        start_player: int | None = None,
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
                num_players=n, catalog=cat, num_rounds=rounds, main_cards=ids, start_player=start
            )
        except ValueError as exc:
            raise OptionError(str(exc)) from None
        try:
            check_playable(cat, n, ids)
        except ValueError as exc:
            raise OptionError(f"{name}: catalog: {exc}") from None
        self._slot_cache: dict[tuple[int, ...], np.ndarray] = {}
        self._base_cache: dict[tuple[int, ...], np.ndarray] = {}
        #: The observation layout; the encoder's offsets below are read from it once.
        self.obs_layout = lay = layout_for(self.config)
        super().__init__(n, **common)
        self._obs_size = lay.size
        self._slots_slice = lay.slice("slots")
        #: Index of "die d shows value 0" (add the value for the die's one-hot).
        self._die_value_at = tuple(lay.offset("die_values") + MAX_NUMBER * d - 1 for d in range(NUM_DICE))
        #: Index of die d's first location column.
        self._die_loc_at = tuple(lay.offset("die_locations") + DIE_LOC_SIZE * d for d in range(NUM_DICE))
        #: the offsets of :meth:`_encode`, in the order it unpacks them
        self._offsets = lay.offsets(
            "hand", "table", "removed", "slots", "seats", "round", "phase", "selection", "marks", "passes"
        )
        assert lay.offset("last_round") == lay.offset("round") + 1
        assert lay.offset("draft_left") == lay.offset("pool") + 1 == lay.offset("passes") + 2

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
        """A zero observation with the static slot block of ``slots`` filled in (cached; copy before use)."""
        key = tuple(slots)
        base = self._base_cache.get(key)
        if base is None:
            base = np.zeros(self._obs_size, dtype=np.float32)
            base[self._slots_slice] = self._static_slots(slots).reshape(-1)
            self._base_cache[key] = base
        return base

    def _encode(self, seat: int) -> np.ndarray:
        """The observation of ``seat``: the cached static part copied once, then one write of
        every 1.0 and one write of every other value (indices gathered in plain Python)."""
        s: rules.DicebergState = self.game_state
        n = self.num_players
        o_hand, o_table, o_removed, o_slots, o_seats, o_round, o_phase, o_selection, o_marks, o_misc = self._offsets
        obs = self._base_obs(s.slots).copy()
        ones = [o_hand + c for c in s.hands[seat]]
        ones += [o_removed + c for c in s.removed]
        ones += [o_table + it for meld in s.slot_meld for it in meld if it < ITEM_DIE0]
        die_loc = s.die_loc
        codes = _loc_codes(seat, n)
        die_value_at, die_loc_at = self._die_value_at, self._die_loc_at
        for d, (loc, val) in enumerate(zip(die_loc, s.die_value)):
            if loc != rules.UNUSED:
                ones.append(die_value_at[d] + val)
            ones.append(die_loc_at[d] + codes[loc])
        for k, p in enumerate(s.slot_player):
            if p >= 0:
                at = o_slots + SLOT_SIZE * k
                ones.append(at + 1)
                ones.append(at + 2 + (p - seat) % n)
        over = s.phase == rules.PHASE_OVER
        passed = self._passed_seats(s)
        top = 3.0 * s.config.num_rounds
        out_order = s.out_order
        at_val: list[int] = []
        vals: list[float] = []
        for p in range(n):
            row = o_seats + SEAT_SIZE * ((p - seat) % n)
            ones.append(row)
            at_val += (row + 1, row + 2, row + 3)
            vals += (len(s.hands[p]) / rules.HAND_SIZE, die_loc.count(p) / NUM_DICE, min(1.0, s.points[p] / top))
            if p in out_order:
                ones.append(row + 4)
                k = out_order.index(p)
                if k < 3:
                    ones.append(row + 5 + k)
            if not over and p == s.current:
                ones.append(row + 8)
            if p == s.last_player:
                ones.append(row + 9)
            if p in passed:
                ones.append(row + 10)
        at_val.append(o_round)
        vals.append((s.round + 1) / s.config.num_rounds)
        if s.round + 1 == s.config.num_rounds:
            ones.append(o_round + 1)  # last_round
        if not over:
            if s.phase == rules.PHASE_DRAFT:
                ones.append(o_phase)
            elif s.phase == rules.PHASE_PLAY:
                if s.selection and seat == s.current:
                    ones.append(o_phase + 3)
                else:
                    ones.append(o_phase + (1 if s.last_player < 0 else 2))
            else:
                ones.append(o_phase + 4 + (s.phase - rules.PHASE_TAKE))
            if seat == s.current:
                ones += [o_selection + it for it in s.selection]
                ones += [o_marks + d for d in s.marks]
        at_val += (o_misc, o_misc + 1, o_misc + 2)  # passes, pool, draft_left
        vals += (s.passes / n, die_loc.count(rules.POOL) / NUM_DICE, len(s.draft_order) / (2 * MAX_SEATS))
        obs[np.fromiter(ones, np.intp, len(ones))] = 1.0
        obs[at_val] = vals
        return obs

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
        state: the engine's own check (a second legal-action enumeration) is skipped."""
        rules.apply_legal(self.game_state, action, self.np_random)

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


env, raw_env = make_factories(TipOfTheDicebergEnv)
